package failure

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
)

// TestTrace pins the one reading of a failure's way to the server for git's
// output (what push and exec decide on): network or not, through a proxy,
// sent or not, credentials refused.
func TestTrace(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Trace
	}{
		{"reset", "fatal: unable to access 'https://h/r.git/': Recv failure: Connection reset by peer",
			Trace{Network: true, URL: "https://h/r.git/"}},
		{"a gateway's 502 is an answer, not the network", "remote: Bad Gateway\nfatal: unable to access 'https://h/r.git/': The requested URL returned error: 502",
			Trace{URL: "https://h/r.git/", Status: 502}},
		{"a git 504 is an answer too", "error: RPC failed; HTTP 504 curl 22 The requested URL returned error: 504\nfatal: the remote end hung up unexpectedly",
			Trace{Status: 504}},
		{"rate limited by the server", "remote: rate limited by 'github.com', please try again in 30 seconds\nfatal: unable to access 'https://github.com/o/r/': The requested URL returned error: 429",
			Trace{URL: "https://github.com/o/r/", Status: 429}},
		{"an x509 error is configuration", "fatal: unable to access 'https://github.com/o/r/': SSL certificate problem: unable to get local issuer certificate",
			Trace{URL: "https://github.com/o/r/"}},
		{"stall", "fatal: unable to access 'https://h/r.git/': Operation too slow. Less than 1024 bytes/sec transferred the last 30 seconds",
			Trace{Network: true, URL: "https://h/r.git/"}},
		{"dropped after the pack", "error: RPC failed; curl 52 Empty reply from server\nfatal: the remote end hung up unexpectedly",
			Trace{Network: true}},
		{"refused: never sent", "fatal: unable to access 'https://h/r.git/': Failed to connect to h port 443 after 2 ms: Connection refused",
			Trace{Network: true, NotSent: true, URL: "https://h/r.git/"}},
		{"DNS: never sent", "fatal: unable to access 'https://h/r.git/': Could not resolve host: h",
			Trace{Network: true, NotSent: true, URL: "https://h/r.git/"}},
		{"proxy CONNECT denied", "fatal: unable to access 'https://github.com/o/r/': Received HTTP code 403 from proxy after CONNECT",
			Trace{Network: true, Proxy: true, NotSent: true, URL: "https://github.com/o/r/", ConnectStatus: 403}},
		{"proxy not resolved", "fatal: unable to access 'https://github.com/o/r/': Could not resolve proxy: proxy.corp",
			Trace{Network: true, Proxy: true, NotSent: true, URL: "https://github.com/o/r/"}},
		{"proxy refused the connection", "fatal: unable to access 'https://github.com/o/r/': Failed to connect to proxy.corp port 3128 after 1 ms: Connection refused",
			Trace{Network: true, Proxy: true, NotSent: true, URL: "https://github.com/o/r/"}},
		{"server 403", "remote: Forbidden\nfatal: unable to access 'https://h/r.git/': The requested URL returned error: 403",
			Trace{AuthRefused: true, URL: "https://h/r.git/", Status: 403}},
		{"authentication failed", "remote: Invalid username or token.\nfatal: Authentication failed for 'https://github.com/o/r.git/'",
			Trace{AuthRefused: true}},
		{"permission denied to a bot", "remote: Permission to o/r.git denied to github-actions[bot].\nfatal: unable to access 'https://github.com/o/r/': The requested URL returned error: 403",
			Trace{AuthRefused: true, URL: "https://github.com/o/r/", Status: 403}},
		{"no credentials at all", "fatal: could not read Username for 'https://github.com': terminal prompts disabled", Trace{}},
		{"credentials in the URL are dropped", "fatal: unable to access 'https://x-access-token:ghs_abc@github.com/o/r/': Could not resolve host: github.com",
			Trace{Network: true, NotSent: true, URL: "https://github.com/o/r/"}},
		{"rejection", " ! [rejected]        main -> main (non-fast-forward)", Trace{}},
		{"Go's bare Service Unavailable is the proxy's CONNECT answer", `Get "https://dev.to/api": Service Unavailable`,
			Trace{Network: true, Proxy: true, NotSent: true, URL: "https://dev.to/api", ConnectStatus: 503}},
		{"empty", "", Trace{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if tt.text != "" {
				want.Client = ToolGit // git's proxy rules apply to what git printed
			}
			if got := FromText(ToolGit, tt.text, NoExitCode).Trace; got != want {
				t.Errorf("Trace = %+v, want %+v", got, want)
			}
		})
	}
}

func TestTraceOfGoErrors(t *testing.T) {
	dial := func(op string, err error) error {
		return &url.Error{Op: "Post", URL: "https://user@api.example.com/v1", Err: &net.OpError{Op: op, Net: "tcp", Err: err}}
	}
	tests := []struct {
		name string
		err  error
		want Trace
	}{
		{"refused dial", dial("dial", os.NewSyscallError("connect", syscall.ECONNREFUSED)),
			Trace{Network: true, NotSent: true, URL: "https://api.example.com/v1"}},
		{"proxy down", dial("proxyconnect", os.NewSyscallError("connect", syscall.ECONNREFUSED)),
			Trace{Network: true, NotSent: true, Proxy: true, URL: "https://api.example.com/v1"}},
		{"dns", dial("dial", &net.DNSError{Err: "no such host", Name: "api.example.com", IsNotFound: true}),
			Trace{Network: true, NotSent: true, URL: "https://api.example.com/v1"}},
		{"reset after sending", dial("read", os.NewSyscallError("read", syscall.ECONNRESET)),
			Trace{Network: true, URL: "https://api.example.com/v1"}},
		{"not a network error", errors.New("something odd"), Trace{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FromError(tt.err).Trace; got != tt.want {
				t.Errorf("Trace = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestNotSentFromGoErrors: what the trace of a Go client error says about
// whether the request reached the server (an HTTP step replays a POST only
// when it did not).
func TestNotSentFromGoErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, refused := http.Get("http://" + addr + "/")
	if refused == nil {
		t.Fatal("a closed port answered")
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused (real)", refused, true},
		{"DNS failure", &url.Error{Op: "Post", URL: "https://nx.invalid/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nx.invalid", IsNotFound: true}}}, true},
		{"bare DNS error", &net.DNSError{Err: "server misbehaving", Name: "h"}, true},
		{"proxy CONNECT could not open", &url.Error{Op: "Post", URL: "https://h/", Err: &net.OpError{Op: "proxyconnect", Net: "tcp", Err: errors.New("connection refused")}}, true},
		{"reset while reading", &url.Error{Op: "Post", URL: "https://h/", Err: &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}}, false},
		{"unexpected EOF", &url.Error{Op: "Post", URL: "https://h/", Err: io.ErrUnexpectedEOF}, false},
		{"timeout after connecting", &url.Error{Op: "Post", URL: "https://h/", Err: context.DeadlineExceeded}, false},
	}
	for _, tt := range tests {
		if got := FromError(tt.err).Trace.NotSent; got != tt.want {
			t.Errorf("%s: NotSent = %v, want %v", tt.name, got, tt.want)
		}
	}
}
