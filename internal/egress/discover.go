package egress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/net/http/httpproxy"

	"github.com/retrywise/retrywise/internal/environ"
	"github.com/retrywise/retrywise/internal/failure"
)

// Client names the program whose proxy rules apply; they differ.
type Client string

// The clients.
const (
	// ClientGo is Go's net/http: HTTPS_PROXY before https_proxy, loopback
	// targets never proxied, NO_PROXY split on commas only.
	ClientGo Client = "go"
	// ClientCurl is curl: https_proxy before HTTPS_PROXY, http_proxy only in
	// lower case, then all_proxy; no_proxy split on commas and spaces.
	ClientCurl Client = "curl"
	// ClientGit is git over libcurl: `git config --get-urlmatch http.proxy URL`
	// first, then curl's variables.
	ClientGit Client = "git"
)

// ParseClient returns the client with the given name ("" is ClientGo).
func ParseClient(s string) (Client, error) {
	switch c := Client(strings.ToLower(strings.TrimSpace(s))); c {
	case "":
		return ClientGo, nil
	case ClientGo, ClientCurl, ClientGit:
		return c, nil
	}
	return "", fmt.Errorf("unknown client %q (want go, curl or git)", s)
}

// Proxy is the forward proxy a client uses for a target.
type Proxy struct {
	// URL is the proxy URL, credentials included: never print it.
	URL *url.URL
	// Addr is the proxy's host:port, with the client's default port filled in.
	Addr string
	// Source says where the proxy came from: an environment variable's name,
	// "git config http.proxy" or "curl --proxy".
	Source string
}

// String returns Addr: never the credentials.
func (p *Proxy) String() string { return p.Addr }

// Discovery resolves proxies the way each client would.
type Discovery struct {
	// Env is the clients' environment as KEY=VALUE pairs; nil means os.Environ().
	Env []string
	// Dir is git's working directory ("" means the current one).
	Dir string
	// Git is the git executable; "" means "git" from PATH.
	Git string
	// GitConfig holds "-c key=value" arguments of git's command line, passed on
	// to `git config` so that they count.
	GitConfig []string
	// CurlProxy is curl's --proxy/-x value when given on its command line.
	CurlProxy *string
	// CurlNoProxy is curl's --noproxy value when given on its command line.
	CurlNoProxy *string
}

// ErrUnsupportedProxy is returned for a proxy scheme the prober cannot speak (SOCKS).
var ErrUnsupportedProxy = errors.New("unsupported proxy scheme")

// ProxyFor returns the proxy client would use for t, or nil when it connects directly.
func (d *Discovery) ProxyFor(ctx context.Context, client Client, t Target) (*Proxy, error) {
	switch client {
	case ClientCurl:
		return d.curlProxy(t)
	case ClientGit:
		return d.gitProxy(ctx, t)
	default:
		return d.goProxy(t)
	}
}

func (d *Discovery) env() envMap {
	if d.Env == nil {
		return envMap(environ.Map(os.Environ()))
	}
	return envMap(environ.Map(d.Env))
}

// envMap looks variables up by exact name.
type envMap map[string]string

// first returns the first non-empty variable of names and its name.
func (e envMap) first(names ...string) (value, name string) {
	for _, n := range names {
		if v := e[n]; v != "" {
			return v, n
		}
	}
	return "", ""
}

// goConfig is net/http's proxy configuration from the environment, read in
// net/http's order (upper case first), which httpproxy.FromEnvironment no
// longer follows since x/net v0.4x; it also returns the variables' names.
func (d *Discovery) goConfig() (cfg httpproxy.Config, httpsName, httpName string) {
	e := d.env()
	cfg.HTTPSProxy, httpsName = e.first("HTTPS_PROXY", "https_proxy")
	cfg.HTTPProxy, httpName = e.first("HTTP_PROXY", "http_proxy")
	cfg.NoProxy, _ = e.first("NO_PROXY", "no_proxy")
	cfg.CGI = e["REQUEST_METHOD"] != ""
	return cfg, httpsName, httpName
}

// GoProxyFunc returns the Transport.Proxy function for Go requests under env
// (KEY=VALUE pairs), with the rules Probe applies to ClientGo, so that an HTTP
// step and its diagnosis agree on the proxy whatever the process environment.
func GoProxyFunc(env []string) func(*http.Request) (*url.URL, error) {
	cfg, _, _ := (&Discovery{Env: env}).goConfig()
	f := cfg.ProxyFunc()
	return func(r *http.Request) (*url.URL, error) { return f(r.URL) }
}

// goProxy applies net/http's rules through golang.org/x/net/http/httpproxy.
func (d *Discovery) goProxy(t Target) (*Proxy, error) {
	cfg, httpsName, httpName := d.goConfig()
	u, err := cfg.ProxyFunc()(t.URL())
	if err != nil {
		return nil, fmt.Errorf("proxy for %s: %v", t, redactURLError(err))
	}
	if u == nil {
		return nil, nil
	}
	src := httpName
	if t.Scheme == "https" {
		src = httpsName
	}
	return newProxy(u, src, goDefaultPort(u.Scheme))
}

func goDefaultPort(scheme string) string {
	switch scheme {
	case "https":
		return "443"
	case "socks5", "socks5h":
		return "1080"
	}
	return "80"
}

// curlProxy applies curl's rules: --proxy, then https_proxy/HTTPS_PROXY (or
// http_proxy only), then all_proxy/ALL_PROXY, each lower case first; then
// --noproxy or no_proxy/NO_PROXY.
func (d *Discovery) curlProxy(t Target) (*Proxy, error) {
	e := d.env()
	value, src := "", ""
	if d.CurlProxy != nil {
		value, src = *d.CurlProxy, "curl --proxy"
		if value == "" {
			return nil, nil
		}
	} else {
		if t.Scheme == "https" {
			value, src = e.first("https_proxy", "HTTPS_PROXY")
		} else {
			value, src = e.first("http_proxy")
		}
		if value == "" {
			value, src = e.first("all_proxy", "ALL_PROXY")
		}
	}
	if value == "" {
		return nil, nil
	}
	noProxy, _ := e.first("no_proxy", "NO_PROXY")
	if d.CurlNoProxy != nil {
		noProxy = *d.CurlNoProxy
	}
	if curlNoProxyMatch(t.Host, noProxy) {
		return nil, nil
	}
	return parseCurlProxy(value, src)
}

// gitProxy asks git for http.proxy (http.<url>.proxy included) and falls back
// to curl's variables, as git's http.c does.
func (d *Discovery) gitProxy(ctx context.Context, t Target) (*Proxy, error) {
	value, set, err := d.gitConfigProxy(ctx, t)
	if err != nil {
		return nil, err
	}
	if !set {
		// git's http.c reads the same variables as curl, lower case winning
		sub := Discovery{Env: d.Env}
		return sub.curlProxy(t)
	}
	e := d.env()
	if value == "" {
		return nil, nil // http.proxy set to the empty string: no proxy
	}
	noProxy, _ := e.first("no_proxy", "NO_PROXY")
	if curlNoProxyMatch(t.Host, noProxy) {
		return nil, nil
	}
	return parseCurlProxy(value, "git config http.proxy")
}

// gitConfigProxy runs `git config --get-urlmatch http.proxy URL`; set is false
// when git has no such setting for the URL.
func (d *Discovery) gitConfigProxy(ctx context.Context, t Target) (value string, set bool, err error) {
	bin := d.Git
	if bin == "" {
		bin = "git"
	}
	args := append(append([]string{}, d.GitConfig...), "config", "--get-urlmatch", "http.proxy", t.URL().String())
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = d.Dir
	if d.Env != nil {
		cmd.Env = d.Env
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	var ee *exec.ExitError
	switch {
	case runErr == nil:
		return strings.TrimSpace(out.String()), true, nil
	case errors.As(runErr, &ee) && ee.ExitCode() == 1:
		return "", false, nil
	}
	// a broken git config is git's failure to report, not a reason to guess
	return "", false, fmt.Errorf("git config --get-urlmatch http.proxy: %v: %s", runErr, failure.EvidenceLine(errb.String()))
}

// parseCurlProxy parses a proxy value the way curl does: no scheme means
// http, and the default port is 1080.
func parseCurlProxy(value, src string) (*Proxy, error) {
	value = strings.TrimSpace(value)
	if !strings.Contains(value, "://") {
		value = "http://" + value
	}
	u, err := url.Parse(value)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("invalid proxy in %s", src)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	return newProxy(u, src, "1080")
}

func newProxy(u *url.URL, src, defPort string) (*Proxy, error) {
	port := u.Port()
	if port == "" {
		port = defPort
	}
	p := &Proxy{URL: u, Addr: net.JoinHostPort(u.Hostname(), port), Source: src}
	switch u.Scheme {
	case "http", "https":
		return p, nil
	}
	return p, fmt.Errorf("%w %q in %s", ErrUnsupportedProxy, u.Scheme, src)
}

// curlNoProxyMatch reports whether curl skips the proxy for host under list:
// "*" alone matches every host; entries are split on commas and white space;
// a leading dot is ignored; a name matches itself and its subdomains; an IP
// matches an address or CIDR entry.
func curlNoProxyMatch(host, list string) bool {
	list = strings.TrimSpace(list)
	if list == "" {
		return false
	}
	if list == "*" {
		return true
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	ip, ipErr := netip.ParseAddr(host)
	for _, tok := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		tok = strings.ToLower(strings.TrimSpace(tok))
		if ipErr == nil {
			if pfx, err := netip.ParsePrefix(tok); err == nil {
				if pfx.Contains(ip) {
					return true
				}
				continue
			}
			if a, err := netip.ParseAddr(strings.Trim(tok, "[]")); err == nil && a == ip {
				return true
			}
			continue
		}
		tok = strings.TrimSuffix(strings.TrimPrefix(tok, "."), ".")
		if tok == "" {
			continue
		}
		if host == tok || strings.HasSuffix(host, "."+tok) {
			return true
		}
	}
	return false
}

// ProxyCredentials returns the user names and passwords found in the proxy
// variables of env (HTTPS_PROXY, http_proxy, ALL_PROXY, ... in either case),
// so that callers can mask them wherever they appear.
func ProxyCredentials(env []string) []string {
	var out []string
	e := environ.Map(env)
	for _, n := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
		v := strings.TrimSpace(e[n])
		if v == "" {
			continue
		}
		if !strings.Contains(v, "://") {
			v = "http://" + v
		}
		u, err := url.Parse(v)
		if err != nil || u.User == nil {
			continue
		}
		if name := u.User.Username(); name != "" {
			out = append(out, name)
		}
		if pw, ok := u.User.Password(); ok && pw != "" {
			out = append(out, pw)
		}
	}
	return out
}
