package egress

import (
	"context"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/proxytest"
)

// TestProbeAgentSandboxDenial: a probe through srt's or Codex's proxy (a
// stand-in writing their exact CONNECT denial) reads the sandbox's own
// refusal: denied, code sandbox-egress-denied, the remedy naming the
// setting, without asking the status endpoint or a canary.
func TestProbeAgentSandboxDenial(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind    proxytest.SandboxKind
		label   string
		setting string
	}{
		{proxytest.SandboxSrt, "srt x-proxy-error: blocked-by-allowlist", "allowedDomains"},
		{proxytest.SandboxCodex, "Codex x-proxy-error: blocked-by-allowlist", "allowed_domains"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			sp := proxytest.NewSandboxProxy(tc.kind)
			defer sp.Close()
			p := newProber(t, Options{Env: []string{"HTTPS_PROXY=" + sp.URL}, StatusURL: StatusOff})
			r := p.Probe(context.Background(), mustTarget(t, "dev.to"))
			if r.Verdict != Denied || r.Code != failure.CodeSandboxDenied || !strings.Contains(r.Reason, tc.label) || !strings.Contains(r.Remedy, tc.setting) || !strings.Contains(r.Remedy, "dev.to") {
				t.Fatalf("%s %s: %s / %s", r.Verdict, r.Code, r.Reason, r.Remedy)
			}
			if sp.Connects() != 1 {
				t.Errorf("%d CONNECTs, want 1", sp.Connects())
			}
		})
	}
}
