package failure

import "testing"

func TestLowSpeedLimit(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "git over http, before any ref", tool: ToolGit, exit: 128,
			text:  "fatal: unable to access 'https://git.example.com/o/r.git/': Operation too slow. Less than 1024 bytes/sec transferred the last 30 seconds\n",
			class: Transient, code: "transfer-stalled", reason: "transfer stalled: below 1024 bytes/s for 30s", remedy: "GIT_HTTP_LOW_SPEED_LIMIT",
			evidence: []string{"Operation too slow"},
		},
		{
			name: "curl", tool: ToolCurl, exit: 28,
			text:  "curl: (28) Operation too slow. Less than 1 bytes/sec transferred the last 1 seconds\n",
			class: Transient, code: "transfer-stalled", reason: "curl 28, transfer stalled",
		},
	})
}
