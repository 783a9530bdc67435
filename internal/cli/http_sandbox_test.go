package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// TestHTTPThroughAgentSandboxDenied: a CONNECT refused by srt's or Codex's
// proxy (403, x-proxy-error: blocked-by-allowlist, their own body; a
// stand-in on 127.0.0.1 writes their exact bytes) is recognised on the http
// step's CONNECT path and by the probe, as on an HTTP answer: policy, exit
// 77 without a retry, the remedy naming the setting (allowedDomains,
// allowed_domains), not a "bare 403 to CONNECT".
func TestHTTPThroughAgentSandboxDenied(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		kind    proxytest.SandboxKind
		setting string
	}{
		{"srt", proxytest.SandboxSrt, "allowedDomains"},
		{"Codex", proxytest.SandboxCodex, "[network_proxy.policy] allowed_domains"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := proxytest.NewSandboxProxy(tc.kind)
			defer p.Close()
			rep := filepath.Join(t.TempDir(), "r.json")
			r := runCLI(t, "", []string{"HTTPS_PROXY=" + p.URL}, "http", "--schedule", "10s,20s", "--report", rep, "https://blocked.example/api")
			if r.code != exitcode.Policy || len(r.clock.Waits()) != 0 {
				t.Fatalf("exit %d waits %v, want 77 and no wait\n%s", r.code, r.clock.Waits(), r.stderr)
			}
			mustContain(t, "stderr", r.stderr, tc.setting, "x-proxy-error: blocked-by-allowlist")
			if strings.Contains(r.stderr, "bare 403") {
				t.Errorf("read as a bare 403:\n%s", r.stderr)
			}
			got, raw := readReport(t, rep)
			if got.Code != failure.CodeSandboxDenied || !strings.Contains(got.Remedy, tc.setting) || !strings.Contains(got.Remedy, "blocked.example") {
				t.Errorf("report:\n%s", raw)
			}
		})
	}
}
