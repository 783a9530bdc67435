package egress

import (
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

func TestClientOf(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want Client
	}{
		{[]string{"curl", "-sS", "https://x.test/"}, ClientCurl},
		{[]string{"/usr/bin/git", "push"}, ClientGit},
		{[]string{"sh", "-c", "git push"}, ""},
		{[]string{"wget", "https://x.test/"}, ""},
		{nil, ""},
	} {
		if got := ClientOf(tt.argv); got != tt.want {
			t.Errorf("ClientOf(%q) = %q, want %q", tt.argv, got, tt.want)
		}
		// the client of a program is the client of its tool: one rule
		if len(tt.argv) > 0 && ClientForTool(failure.ToolOf(tt.argv[0])) != tt.want {
			t.Errorf("ClientForTool(ToolOf(%q)) disagrees with ClientOf", tt.argv[0])
		}
	}
	for tool, want := range map[failure.Tool]Client{failure.ToolGit: ClientGit, failure.ToolCurl: ClientCurl, failure.ToolAuto: "", failure.ToolExec: "", failure.ToolHTTP: ""} {
		if got := ClientForTool(tool); got != want {
			t.Errorf("ClientForTool(%q) = %q, want %q", tool, got, want)
		}
	}
}
