package httpstep

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

// credentialHeaders are sent on the first request of every redirect test;
// the value of X-Custom is a registered secret.
var credentialHeaders = http.Header{
	"Authorization":       {"Bearer tok-redirect-1"},
	"Proxy-Authorization": {"Basic cHJveHk6cHc="},
	"Cookie":              {"session=abc123"},
	"Api-Key":             {"devto-key-2"},
	"X-Api-Key":           {"xkey-3"},
	"X-Auth-Token":        {"xauth-4"},
	"Private-Token":       {"glpat-5"},
	"X-Custom":            {"registered-secret-6"},
	"X-Team":              {"platform"},
}

// recorder is a server that records the headers of the requests to /final.
type recorder struct {
	mu  sync.Mutex
	got http.Header
	*httptest.Server
}

func newRecorder(t *testing.T, redirect func(r *http.Request) string) *recorder {
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/final" {
			rec.mu.Lock()
			rec.got = r.Header.Clone()
			rec.mu.Unlock()
			w.Write([]byte("{}"))
			return
		}
		http.Redirect(w, r, redirect(r), http.StatusFound)
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (rec *recorder) headers() http.Header {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.got
}

// hostsTo returns a transport that dials every host name to addr, so that
// distinct names (api.test, evil.api.test) reach one server on 127.0.0.1.
func hostsTo(addr string) *http.Transport {
	tr := NewTransport(TransportOptions{Proxy: func(*http.Request) (*url.URL, error) { return nil, nil }})
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	return tr
}

func send(t *testing.T, c *http.Client, u string) {
	t.Helper()
	s, err := New(Options{URL: u, Header: credentialHeaders, Client: c})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Attempt(context.Background(), 1); err != nil {
		t.Fatalf("attempt: %v", err)
	}
}

func isRegistered(v string) bool { return v == "registered-secret-6" }

func checkStripped(t *testing.T, got http.Header, stripped bool) {
	t.Helper()
	if got == nil {
		t.Fatal("the redirect was not followed")
	}
	for name, vs := range credentialHeaders {
		keep := name == "X-Team" || !stripped
		if has := got.Get(name) == vs[0]; has != keep {
			t.Errorf("%s forwarded: %v, want %v (headers %v)", name, has, keep, got)
		}
	}
	if got.Get("User-Agent") == "" {
		t.Errorf("User-Agent not forwarded")
	}
}

// TestRedirectToAnotherPortStripsCredentials: the origin (scheme, host and
// port) changed.
func TestRedirectToAnotherPortStripsCredentials(t *testing.T) {
	target := newRecorder(t, nil)
	from := newRecorder(t, func(*http.Request) string { return target.URL + "/final" })
	send(t, NewClientSecrets(NewTransport(TransportOptions{}), true, isRegistered), from.URL+"/start")
	checkStripped(t, target.headers(), true)
}

func TestRedirectSameOriginKeepsCredentials(t *testing.T) {
	srv := newRecorder(t, func(r *http.Request) string { return "http://" + r.Host + "/final" })
	send(t, NewClientSecrets(NewTransport(TransportOptions{}), true, isRegistered), srv.URL+"/start")
	checkStripped(t, srv.headers(), false)
}

// TestRedirectToSubdomainStripsCredentials: Go itself keeps Authorization
// and Cookie for a subdomain (and any port); retrywise does not.
func TestRedirectToSubdomainStripsCredentials(t *testing.T) {
	for _, to := range []string{"evil.api.test", "api.test.evil", "other.test"} {
		t.Run(to, func(t *testing.T) {
			srv := newRecorder(t, func(r *http.Request) string {
				_, port, _ := net.SplitHostPort(r.Host)
				return "http://" + to + ":" + port + "/final"
			})
			_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
			send(t, NewClientSecrets(hostsTo(srv.Listener.Addr().String()), true, isRegistered), "http://api.test:"+port+"/start")
			checkStripped(t, srv.headers(), true)
		})
	}
}

// TestRedirectToFileScheme: a redirect to a scheme other than http(s) is a
// structural failure named for the scheme, not a TLS one.
func TestRedirectToFileScheme(t *testing.T) {
	for _, loc := range []string{"file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/"} {
		srv := newRecorder(t, func(*http.Request) string { return loc })
		s, err := New(Options{URL: srv.URL + "/start", Client: NewClient(NewTransport(TransportOptions{}), true)})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Attempt(context.Background(), 1)
		var f *failure.Failure
		if !errors.As(err, &f) {
			t.Fatalf("%s: attempt: %v", loc, err)
		}
		scheme, _, _ := strings.Cut(loc, ":")
		if f.Code != failure.CodeRedirectScheme || f.Class != failure.Structural || !strings.Contains(f.Reason, scheme) {
			t.Errorf("%s: failure %s/%s %q", loc, f.Class, f.Code, f.Reason)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"https://api.test/x", "https://api.test:443/y", true},
		{"https://API.test./x", "https://api.test/y", true},
		{"http://api.test/x", "https://api.test/y", true},
		{"http://api.test:8080/x", "https://api.test:8080/y", true},
		{"https://api.test/x", "http://api.test/y", false},
		{"https://api.test/x", "https://api.test:8443/y", false},
		{"https://api.test/x", "https://evil.api.test/y", false},
		{"https://api.test/x", "https://api.test.evil/y", false},
		{"http://127.0.0.1:1/x", "http://127.0.0.1:2/y", false},
	} {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := SameOrigin(a, b); got != tt.same {
			t.Errorf("SameOrigin(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}
