package failure

import (
	"errors"
	"testing"
)

func TestTraitsOf(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Traits
	}{
		{"reset", "fatal: unable to access 'https://h/r.git/': Recv failure: Connection reset by peer", Traits{Network: true}},
		{"gateway 502", "remote: Bad Gateway\nfatal: unable to access 'https://h/r.git/': The requested URL returned error: 502", Traits{Network: true}},
		{"stall", "fatal: unable to access 'https://h/r.git/': Operation too slow. Less than 1024 bytes/sec transferred the last 30 seconds", Traits{Network: true}},
		{"dropped after the pack", "error: RPC failed; curl 52 Empty reply from server\nfatal: the remote end hung up unexpectedly", Traits{Network: true}},
		{"proxy CONNECT denied", "fatal: unable to access 'https://github.com/o/r/': Received HTTP code 403 from proxy after CONNECT", Traits{Network: true, Proxy: true}},
		{"curl CONNECT tunnel", "fatal: unable to access 'https://github.com/o/r/': CONNECT tunnel failed, response 407", Traits{Network: true, Proxy: true}},
		{"proxy not resolved", "fatal: unable to access 'https://github.com/o/r/': Could not resolve proxy: proxy.corp", Traits{Network: true, Proxy: true}},
		{"server 403", "remote: Forbidden\nfatal: unable to access 'https://h/r.git/': The requested URL returned error: 403", Traits{Auth: true}},
		{"authentication failed", "remote: Invalid username or token.\nfatal: Authentication failed for 'https://github.com/o/r.git/'", Traits{Auth: true}},
		{"permission denied to a bot", "remote: Permission to o/r.git denied to github-actions[bot].\nfatal: unable to access 'https://github.com/o/r/': The requested URL returned error: 403", Traits{Auth: true}},
		{"no credentials at all", "fatal: could not read Username for 'https://github.com': terminal prompts disabled", Traits{}},
		{"rejection", " ! [rejected]        main -> main (non-fast-forward)", Traits{}},
		{"empty", "", Traits{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TraitsOf(tt.text); got != tt.want {
				t.Errorf("TraitsOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestEndpointInTheErrorChain(t *testing.T) {
	base := errors.New("exit status 128")
	f := &Failure{Class: Transient, Reason: "connection reset", Err: base}
	if _, ok := EndpointOf(f); ok {
		t.Fatal("endpoint before one was attached")
	}
	e := &Endpoint{URL: "https://git.example.com/o/r.git", Traits: Traits{Network: true}}
	WithEndpoint(f, e)
	WithEndpoint(f, e) // idempotent
	got, ok := EndpointOf(f)
	if !ok || got != e || got.URL != "https://git.example.com/o/r.git" || !got.Network {
		t.Fatalf("EndpointOf = %+v, %v", got, ok)
	}
	if !errors.Is(f, base) || errors.Unwrap(e) != base {
		t.Error("the endpoint hides the original error")
	}
	// a diagnosis that builds a new failure keeps the endpoint by keeping Err
	d := &Failure{Class: Policy, Reason: "denied by the proxy", Err: f.Err}
	if got, ok := EndpointOf(d); !ok || got != e {
		t.Error("a reclassified failure lost the endpoint")
	}
	if e.Error() != "request to https://git.example.com/o/r.git: exit status 128" {
		t.Errorf("Error() = %q", e.Error())
	}
}
