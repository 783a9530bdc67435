package failure

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/proxytest"
)

// The lab: loopback proxies that answer as the agent sandboxes' proxies do
// (research: agent-sandboxes.md §3 and §4; srt's src/sandbox/http-proxy.ts,
// Codex's codex-rs/network-proxy/src/responses.rs), and real clients (Go's,
// curl) sent through them; what the clients report is classified.

// sandboxProxy answers every request, CONNECT or plain HTTP, as a denying
// sandbox proxy does: status, headers and body.
func sandboxProxy(t *testing.T, status int, header map[string]string, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

const (
	srtBody   = "Connection blocked by network allowlist"
	codexBody = `CODEX_NETWORK_POLICY_DECISION {"decision":"deny","reason":"not_allowed","source":"baseline_policy","protocol":"http","host":"blocked.example","port":80}` + "\nCodex blocked this request: domain not in allowlist (this is not a denylist block).\n"
)

var labProxies = []struct {
	name   string
	status int
	header map[string]string
	body   string
	class  Class
	code   Code
	remedy string
}{
	{"srt denial", 403, map[string]string{"X-Proxy-Error": "blocked-by-allowlist"}, srtBody, Policy, CodeSandboxDenied, "allowedDomains"},
	{"codex denial", 403, map[string]string{"x-proxy-error": "blocked-by-allowlist"}, codexBody, Policy, CodeSandboxDenied, "[network_proxy.policy] allowed_domains"},
	{"codex method policy", 403, map[string]string{"x-proxy-error": "blocked-by-method-policy"}, codexBody, Policy, CodeSandboxDenied, "allowed_domains"},
	{"srt upstream failure", 502, nil, "", Transient, HTTPCode(502), ""},
}

// TestLabSandboxProxiesGoClient: Go's client fetching a plain-HTTP URL
// through the proxy gets the proxy's own answer, headers and body.
func TestLabSandboxProxiesGoClient(t *testing.T) {
	for _, p := range labProxies {
		t.Run(p.name, func(t *testing.T) {
			srv := sandboxProxy(t, p.status, p.header, p.body)
			pu, _ := url.Parse(srv.URL)
			c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 5 * time.Second}
			resp, err := c.Get("http://blocked.example/")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			f := Classify(Input{Status: resp.StatusCode, Header: resp.Header, Text: string(b)})
			if f.Class != p.class || f.Code != p.code {
				t.Fatalf("%s %s (%s), want %s %s", f.Class, f.Code, f.Reason, p.class, p.code)
			}
			if !strings.Contains(f.Remedy, p.remedy) {
				t.Errorf("remedy %q lacks %q", f.Remedy, p.remedy)
			}
		})
	}
}

// TestLabSandboxProxiesCurl: curl's CONNECT through the proxy; verbose, it
// shows the proxy's header; terse, only the status, and the environment
// names the sandbox.
func TestLabSandboxProxiesCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	for _, p := range labProxies {
		for _, verbose := range []bool{true, false} {
			name := p.name + map[bool]string{true: " verbose", false: " terse"}[verbose]
			t.Run(name, func(t *testing.T) {
				srv := sandboxProxy(t, p.status, p.header, p.body)
				args := []string{"-sS", "--max-time", "5", "-x", srv.URL, "https://blocked.example/"}
				if verbose {
					args = append([]string{"-v"}, args...)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, curl, args...)
				cmd.Env = []string{"PATH=/usr/bin:/bin", "NO_PROXY=", "no_proxy="}
				out, err := cmd.CombinedOutput()
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatalf("curl: %v\n%s", err, out)
				}
				env := []string{"HTTPS_PROXY=" + srv.URL}
				if strings.HasPrefix(p.name, "srt") {
					env = append(env, "SANDBOX_RUNTIME=1")
				} else {
					env = append(env, "CODEX_SANDBOX=seatbelt")
				}
				f := Classify(Input{Tool: ToolCurl, Text: string(out), ExitCode: ee.ExitCode(), Env: env})
				if f.Class != p.class {
					t.Fatalf("%s %s (%s), want %s\n%s", f.Class, f.Code, f.Reason, p.class, out)
				}
				if p.class == Policy && !strings.Contains(f.Remedy, "allowed") {
					t.Errorf("remedy %q names no allowlist setting", f.Remedy)
				}
				if p.class == Policy && strings.HasPrefix(p.name, "srt") && !strings.Contains(f.Remedy, "allowedDomains") {
					t.Errorf("srt's remedy %q lacks allowedDomains", f.Remedy)
				}
			})
		}
	}
}

// TestLabAWFSquid: a real Squid with AWF's ACL shape (a dstdomain
// allowlist, everything else denied with its stock ERR_ACCESS_DENIED page),
// curl sent through it as an agent inside AWF's container is; with AWF's
// environment the denial names the workflow's frontmatter and the host,
// never AWF's own addresses.
func TestLabAWFSquid(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("no curl")
	}
	if _, err := exec.LookPath(proxytest.SquidBinary); err != nil {
		t.Skip("no squid")
	}
	sq, err := proxytest.StartSquid(proxytest.SquidOptions{Allow: []string{".allowed.test"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	awf := []string{"HTTPS_PROXY=http://172.30.0.10:3128", "SQUID_PROXY_HOST=squid-proxy"}
	for _, verbose := range []bool{true, false} {
		t.Run(map[bool]string{true: "verbose", false: "terse"}[verbose], func(t *testing.T) {
			args := []string{"-sS", "--max-time", "5", "-x", sq.URL, "https://registry.blocked.test/pkg"}
			if verbose {
				args = append([]string{"-v"}, args...)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, curl, args...)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "NO_PROXY=", "no_proxy="}
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("curl: %v\n%s", err, out)
			}
			f := Classify(Input{Tool: ToolCurl, Text: string(out), ExitCode: ee.ExitCode(), Env: awf})
			if f.Class != Policy || f.Code != CodeProxyDenied {
				t.Fatalf("%s %s (%s)\n%s", f.Class, f.Code, f.Reason, out)
			}
			if !strings.Contains(f.Remedy, "network: allowed:") || !strings.Contains(f.Remedy, "gh aw compile") {
				t.Errorf("remedy %q names neither the frontmatter nor gh aw compile", f.Remedy)
			}
			if verbose && !strings.Contains(f.Remedy, "registry.blocked.test") {
				t.Errorf("remedy %q does not name the host", f.Remedy)
			}
			if strings.Contains(f.Remedy, "172.30.") || strings.Contains(f.Remedy, "squid-proxy") || strings.Contains(f.Remedy, "127.0.0.1") {
				t.Errorf("remedy names a proxy's own address: %q", f.Remedy)
			}
		})
	}
}
