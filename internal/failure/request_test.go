package failure

import (
	"errors"
	"strings"
	"testing"
)

// TestFieldFailures: what each --field outcome is, and that the reason names
// the field and the remedy says what to do.
func TestFieldFailures(t *testing.T) {
	jqErr := errors.New("expected an object but got: array ([{\"id\":7}])")
	tests := []struct {
		name   string
		f      *Failure
		class  Class
		code   Code
		reason string
		remedy string
	}{
		{"missing", FieldsMissing([]string{"id=.id", "n=.a // null"}), Absent, CodeFieldMissing,
			"not in the response: id=.id, n=.a // null", "--absent-ok"},
		{"jq error", FieldExprFailed("id=.items.id", jqErr), Structural, CodeFieldExprFailed,
			"--field id=.items.id failed: jq: expected an object but got: array", "fix the expression"},
		{"several", FieldSeveralResults("id=.items[].id"), Structural, CodeFieldSeveral,
			"--field id=.items[].id yields more than one result", "collect the results with [...]"},
		{"not JSON", FieldNotJSON(errors.New("invalid character 'n'"), []byte("not json")), Structural, CodeFieldNotJSON,
			"the response is not JSON", "Accept: application/json"},
		{"too large", FieldBodyTooLarge(8 << 20), Structural, CodeFieldTooLarge, "over 8 MiB", "smaller document"},
	}
	for _, tt := range tests {
		f := tt.f
		if f.Class != tt.class || f.Code != tt.code || !strings.Contains(f.Reason, tt.reason) || !strings.Contains(f.Remedy, tt.remedy) {
			t.Errorf("%s: %s %s %q (remedy %q), want %s %s %q (remedy with %q)", tt.name, f.Class, f.Code, f.Reason, f.Remedy, tt.class, tt.code, tt.reason, tt.remedy)
		}
	}
	if f := FieldExprFailed("id=.x", jqErr); !errors.Is(f.Err, jqErr) {
		t.Errorf("jq error not kept: %v", f.Err)
	}
}
