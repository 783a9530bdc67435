package egress

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in, want, scheme string
		err              bool
	}{
		{in: "dev.to", want: "dev.to:443", scheme: "https"},
		{in: "dev.to:8443", want: "dev.to:8443", scheme: "https"},
		{in: "https://user:pw@Dev.To/x?y", want: "dev.to:443", scheme: "https"},
		{in: "http://example.com/", want: "example.com:80", scheme: "http"},
		{in: "http://example.com:8080", want: "example.com:8080", scheme: "http"},
		{in: "[::1]:443", want: "[::1]:443", scheme: "https"},
		{in: "::1", want: "[::1]:443", scheme: "https"},
		{in: "ftp://example.com", err: true},
		{in: "example.com:99999", err: true},
		{in: "example.com/path", err: true},
		{in: "", err: true},
	} {
		got, err := ParseTarget(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseTarget(%q) error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err == nil && (got.Addr() != tc.want || got.Scheme != tc.scheme) {
			t.Errorf("ParseTarget(%q) = %s %s, want %s %s", tc.in, got.Scheme, got.Addr(), tc.scheme, tc.want)
		}
	}
}

func TestDiscoverByClient(t *testing.T) {
	for _, tc := range []struct {
		name   string
		client Client
		env    []string
		target string
		want   string // proxy addr, "" for direct
		source string // the variable it came from, for every proxied case
	}{
		{name: "go prefers upper case", client: ClientGo, env: []string{"HTTPS_PROXY=http://10.0.0.1:3128", "https_proxy=http://10.0.0.2:3128"}, target: "dev.to", want: "10.0.0.1:3128", source: "HTTPS_PROXY"},
		{name: "curl prefers lower case", client: ClientCurl, env: []string{"HTTPS_PROXY=http://10.0.0.1:3128", "https_proxy=http://10.0.0.2:3128"}, target: "dev.to", want: "10.0.0.2:3128", source: "https_proxy"},
		{name: "git prefers lower case", client: ClientGit, env: []string{"HTTPS_PROXY=http://10.0.0.1:3128", "https_proxy=http://10.0.0.2:3128"}, target: "dev.to", want: "10.0.0.2:3128", source: "https_proxy"},
		{name: "go never proxies loopback", client: ClientGo, env: []string{"HTTPS_PROXY=http://10.0.0.1:3128"}, target: "localhost:8443", want: ""},
		{name: "curl proxies localhost", client: ClientCurl, env: []string{"https_proxy=http://10.0.0.1:3128"}, target: "localhost:8443", want: "10.0.0.1:3128", source: "https_proxy"},
		{name: "go does not split NO_PROXY on spaces", client: ClientGo, env: []string{"HTTPS_PROXY=http://10.0.0.1:3128", "NO_PROXY=a.test dev.to"}, target: "dev.to", want: "10.0.0.1:3128", source: "HTTPS_PROXY"},
		{name: "go NO_PROXY by comma", client: ClientGo, env: []string{"HTTPS_PROXY=http://10.0.0.1:3128", "NO_PROXY=a.test,dev.to"}, target: "dev.to", want: ""},
		{name: "curl splits no_proxy on spaces", client: ClientCurl, env: []string{"https_proxy=http://10.0.0.1:3128", "no_proxy=a.test dev.to"}, target: "dev.to", want: ""},
		{name: "curl no_proxy subdomain with leading dot", client: ClientCurl, env: []string{"https_proxy=http://10.0.0.1:3128", "no_proxy=.allowed.test"}, target: "up.allowed.test", want: ""},
		{name: "curl no_proxy matches a parent domain", client: ClientCurl, env: []string{"https_proxy=http://10.0.0.1:3128", "no_proxy=to"}, target: "dev.to", want: ""},
		{name: "curl no_proxy suffix needs a dot", client: ClientCurl, env: []string{"https_proxy=http://10.0.0.1:3128", "no_proxy=v.to"}, target: "dev.to", want: "10.0.0.1:3128", source: "https_proxy"},
		{name: "curl no_proxy star", client: ClientCurl, env: []string{"https_proxy=http://10.0.0.1:3128", "no_proxy=*"}, target: "dev.to", want: ""},
		{name: "curl no_proxy CIDR", client: ClientCurl, env: []string{"https_proxy=http://10.0.0.1:3128", "no_proxy=192.168.0.0/16"}, target: "192.168.4.4", want: ""},
		{name: "curl ignores HTTP_PROXY upper case", client: ClientCurl, env: []string{"HTTP_PROXY=http://10.0.0.1:3128"}, target: "http://example.com", want: ""},
		{name: "go reads HTTP_PROXY", client: ClientGo, env: []string{"HTTP_PROXY=http://10.0.0.1:3128"}, target: "http://example.com", want: "10.0.0.1:3128", source: "HTTP_PROXY"},
		{name: "curl all_proxy fallback, default port 1080", client: ClientCurl, env: []string{"ALL_PROXY=10.0.0.3"}, target: "dev.to", want: "10.0.0.3:1080", source: "ALL_PROXY"},
		{name: "go default proxy port 80", client: ClientGo, env: []string{"HTTPS_PROXY=10.0.0.3"}, target: "dev.to", want: "10.0.0.3:80", source: "HTTPS_PROXY"},
		{name: "no variables, direct", client: ClientCurl, env: []string{}, target: "dev.to", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &Discovery{Env: append(tc.env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+t.TempDir())}
			p, err := d.ProxyFor(context.Background(), tc.client, mustTarget(t, tc.target))
			if err != nil {
				t.Fatal(err)
			}
			if got := addrOf(p); got != tc.want {
				t.Fatalf("proxy %q, want %q", got, tc.want)
			}
			if p != nil && p.Source != tc.source {
				t.Errorf("source %q, want %q", p.Source, tc.source)
			}
		})
	}
}

func TestDiscoverCurlArgs(t *testing.T) {
	env := []string{"https_proxy=http://10.0.0.1:3128"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{args: []string{"curl", "-x", "http://10.0.0.9:8080", "https://dev.to/"}, want: "10.0.0.9:8080"},
		{args: []string{"curl", "-x10.0.0.9:8080", "https://dev.to/"}, want: "10.0.0.9:8080"},
		{args: []string{"curl", "--proxy", "", "https://dev.to/"}, want: ""},
		{args: []string{"curl", "--noproxy", "dev.to", "https://dev.to/"}, want: ""},
		{args: []string{"curl", "-fsS", "https://dev.to/"}, want: "10.0.0.1:3128"},
	} {
		s := Step{Args: tc.args}
		d := discoveryFor(env, s, ClientCurl)
		p, err := d.ProxyFor(context.Background(), ClientCurl, mustTarget(t, URLFromArgs(tc.args)))
		if err != nil {
			t.Fatal(err)
		}
		if got := addrOf(p); got != tc.want {
			t.Errorf("%v: proxy %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestURLFromArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"curl", "-x", "http://proxy:3128", "-H", "Referer: https://a.test/", "https://dev.to/api"}, "https://dev.to/api"},
		{[]string{"curl", "--url", "https://dev.to/"}, "https://dev.to/"},
		{[]string{"git", "ls-remote", "https://denied.test/r.git"}, "https://denied.test/r.git"},
		{[]string{"git", "push", "origin", "main"}, ""},
	} {
		if got := URLFromArgs(tc.args); got != tc.want {
			t.Errorf("URLFromArgs(%v) = %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := gitConfigArgs([]string{"git", "-c", "http.proxy=x", "-chttp.sslVerify=false", "-C", "/tmp", "push", "-c", "no"}); strings.Join(got, " ") != "-c http.proxy=x -c http.sslVerify=false -C /tmp" {
		t.Errorf("gitConfigArgs = %q", got)
	}
}

// gitEnv returns an environment whose only git configuration is a global
// file holding config (its path is cfg), with https_proxy=http://10.0.0.1:3128.
func gitEnv(t *testing.T, config string) (env []string, cfg string) {
	t.Helper()
	home := t.TempDir()
	cfg = filepath.Join(home, "gitconfig")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + cfg, "https_proxy=http://10.0.0.1:3128", "PATH=" + os.Getenv("PATH")}, cfg
}

// addrOf returns the proxy's address; "" for none (direct).
func addrOf(p *Proxy) string {
	if p == nil {
		return ""
	}
	return p.Addr
}

// TestDiscoverGitAsksGit checks http.proxy and http.<url>.proxy through the
// real git, and the variables when git has no setting.
func TestDiscoverGitAsksGit(t *testing.T) {
	env, _ := gitEnv(t, "[http \"https://only.test\"]\n\tproxy = http://10.0.0.7:3128\n[http \"https://none.test\"]\n\tproxy = \"\"\n")
	for _, tc := range []struct {
		target string
		config []string
		want   string
		source string
	}{
		{target: "https://only.test/r.git", want: "10.0.0.7:3128", source: "git config http.proxy"},
		{target: "https://sub.only.test/r.git", want: "10.0.0.1:3128", source: "https_proxy"},
		{target: "https://none.test/r.git", want: ""},
		{target: "https://other.test/r.git", want: "10.0.0.1:3128", source: "https_proxy"},
		{target: "https://other.test/r.git", config: []string{"-c", "http.proxy=10.0.0.8:8080"}, want: "10.0.0.8:8080", source: "git config http.proxy"},
	} {
		d := &Discovery{Env: env, GitConfig: tc.config}
		p, err := d.ProxyFor(context.Background(), ClientGit, mustTarget(t, tc.target))
		if err != nil {
			t.Fatalf("%s: %v", tc.target, err)
		}
		if got := addrOf(p); got != tc.want || (p != nil && p.Source != tc.source) {
			t.Errorf("%s %v: proxy %q (%v), want %q from %s", tc.target, tc.config, addrOf(p), p, tc.want, tc.source)
		}
	}
}

// TestDiscoverGitBrokenConfig: a git config git cannot read is an error that
// quotes git's own first line, not a guess at the proxy.
func TestDiscoverGitBrokenConfig(t *testing.T) {
	env, cfg := gitEnv(t, "[http\n\tproxy = http://10.0.0.7:3128\n")
	p, err := (&Discovery{Env: env}).ProxyFor(context.Background(), ClientGit, mustTarget(t, "https://only.test/r.git"))
	want := "git config --get-urlmatch http.proxy: exit status 128: fatal: bad config line 1 in file " + cfg
	if p != nil || err == nil || err.Error() != want {
		t.Fatalf("ProxyFor = %v, %v; want the error %q", p, err, want)
	}
}

// TestDiscoverCurlAgreesWithCurl asks the real curl which variable it uses.
func TestDiscoverCurlAgreesWithCurl(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl not found: apt-get install -y curl")
	}
	// curl reports the proxy port it tried; a direct attempt fails to resolve curl.test
	re := regexp.MustCompile(`(?:Failed to connect to|connect to) 127\.0\.0\.1 port (\d)`)
	for _, env := range [][]string{
		{"HTTPS_PROXY=http://127.0.0.1:1", "https_proxy=http://127.0.0.1:2"},
		{"HTTPS_PROXY=http://127.0.0.1:1"},
		{"ALL_PROXY=http://127.0.0.1:3", "all_proxy=http://127.0.0.1:4"},
		{"HTTPS_PROXY=http://127.0.0.1:1", "no_proxy=a.test curl.test"},
	} {
		cmd := exec.Command("curl", "-sS", "-v", "--max-time", "5", "https://curl.test:1/")
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		cmd.Run()
		curlSays := "direct"
		if m := re.FindStringSubmatch(errb.String()); m != nil {
			curlSays = "127.0.0.1:" + m[1]
		} else if !strings.Contains(errb.String(), "Could not resolve host: curl.test") {
			t.Fatalf("env %v: cannot tell what curl did:\n%s", env, errb.String())
		}
		d := &Discovery{Env: env}
		p, err := d.ProxyFor(context.Background(), ClientCurl, mustTarget(t, "https://curl.test:1/"))
		if err != nil {
			t.Fatal(err)
		}
		weSay := "direct"
		if p != nil {
			weSay = p.Addr
		}
		if weSay != curlSays {
			t.Errorf("env %v: curl uses %q, discovery says %q\n%s", env, curlSays, weSay, errb.String())
		}
	}
}

// TestDiscoverGoAgreesWithNetHTTP runs this test binary with an environment and
// compares http.ProxyFromEnvironment (read once per process) with ClientGo.
func TestDiscoverGoAgreesWithNetHTTP(t *testing.T) {
	if os.Getenv("EGRESS_HELPER_URL") != "" {
		req, _ := http.NewRequest("GET", os.Getenv("EGRESS_HELPER_URL"), nil)
		u, err := http.ProxyFromEnvironment(req)
		switch {
		case err != nil:
			os.Stdout.WriteString("error\n")
		case u == nil:
			os.Stdout.WriteString("direct\n")
		default:
			os.Stdout.WriteString(u.Host + "\n")
		}
		return
	}
	for _, tc := range []struct {
		env []string
		url string
	}{
		{[]string{"HTTPS_PROXY=http://10.0.0.1:3128", "https_proxy=http://10.0.0.2:3128"}, "https://dev.to/"},
		{[]string{"https_proxy=http://10.0.0.2:3128"}, "https://dev.to/"},
		{[]string{"HTTPS_PROXY=http://10.0.0.1:3128", "NO_PROXY=a.test dev.to"}, "https://dev.to/"},
		{[]string{"HTTPS_PROXY=http://10.0.0.1:3128", "no_proxy=dev.to"}, "https://dev.to/"},
		{[]string{"HTTPS_PROXY=http://10.0.0.1:3128"}, "https://127.0.0.1:8443/"},
		{[]string{"HTTP_PROXY=http://10.0.0.1:3128", "http_proxy=http://10.0.0.2:3128"}, "http://example.com/"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDiscoverGoAgreesWithNetHTTP$")
		cmd.Env = append([]string{"EGRESS_HELPER_URL=" + tc.url}, tc.env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("helper: %v", err)
		}
		netHTTP := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
		d := &Discovery{Env: tc.env}
		p, err := d.ProxyFor(context.Background(), ClientGo, mustTarget(t, tc.url))
		if err != nil {
			t.Fatal(err)
		}
		ours := "direct"
		if p != nil {
			ours = p.URL.Host
		}
		if ours != netHTTP {
			t.Errorf("env %v url %s: net/http uses %q, discovery %q", tc.env, tc.url, netHTTP, ours)
		}
	}
}
