package ghissue

import (
	"strings"
	"testing"
)

// TestLastBook: the last well-formed marker wins; a marker over the bound,
// unclosed or not base64 is skipped.
func TestLastBook(t *testing.T) {
	a, b := BookMarker([]byte(`{"a":1}`)), BookMarker([]byte(`{"b":2}`))
	huge := bookOpen + strings.Repeat("A", MaxBookMarker+4) + bookClose
	for _, tc := range []struct {
		name, text, want string
		ok               bool
	}{
		{"none", "just a report", "", false},
		{"one", "x\n" + a + "\ny", `{"a":1}`, true},
		{"last wins", a + "\n" + b, `{"b":2}`, true},
		{"a bad last falls back", a + "\n" + bookOpen + "!!!not base64" + bookClose, `{"a":1}`, true},
		{"unclosed", bookOpen + "e30=", "", false},
		{"over the bound", a + huge, `{"a":1}`, true},
		{"empty book writes none", BookMarker(nil), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := lastBook(tc.text)
			if ok != tc.ok || string(got) != tc.want {
				t.Errorf("lastBook = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
