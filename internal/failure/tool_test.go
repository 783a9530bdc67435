package failure

import "testing"

func TestToolOf(t *testing.T) {
	for _, tt := range []struct {
		program string
		want    Tool
	}{
		{"git", ToolGit},
		{"/usr/bin/git", ToolGit},
		{"curl", ToolCurl},
		{"/opt/homebrew/bin/curl", ToolCurl},
		{"sh", ToolAuto},
		{"git-lfs", ToolAuto},
		{"curl.sh", ToolAuto},
		{"./scripts/git/deploy", ToolAuto},
		{"", ToolAuto},
	} {
		if got := ToolOf(tt.program); got != tt.want {
			t.Errorf("ToolOf(%q) = %q, want %q", tt.program, got, tt.want)
		}
	}
}
