package failure

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEvidenceLine(t *testing.T) {
	long := strings.Repeat("é", maxEvidenceLen) // 2 bytes a character
	tests := []struct{ in, want string }{
		{"", ""},
		{"fatal: bad config line 1 in file .git/config\n", "fatal: bad config line 1 in file .git/config"},
		{"  error: first\nsecond\n", "error: first"},
		{"progress 10%\rprogress 20%\n", "progress 10%"},
		{"\ncontent after a blank line", ""},
		{"\x00\tpadded \t", "padded"},
		{long + "\nnext", long[:maxEvidenceLen]},
	}
	for _, tt := range tests {
		got := EvidenceLine(tt.in)
		if got != tt.want {
			t.Errorf("EvidenceLine(%.40q) = %.40q, want %.40q", tt.in, got, tt.want)
		}
		if len(got) > maxEvidenceLen || !utf8.ValidString(got) {
			t.Errorf("EvidenceLine(%.40q) = %d bytes, valid UTF-8 %v", tt.in, len(got), utf8.ValidString(got))
		}
	}
}
