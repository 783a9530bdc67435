// Package demo builds the world of `retrywise demo`: in-process servers on
// 127.0.0.1 and a local git repository that, between them, fail in each of
// the ways retrywise tells apart (a transient 503 that recovers, a 404 that
// is an answer, a Squid proxy denial, a non-fast-forward push), and the
// embedded job file that runs a step against each of them.
package demo

import (
	"context"
	_ "embed"
	"fmt"
	"sync"
)

//go:embed demo.yml
var config []byte

// Config returns the embedded job file the demo runs (a copy; callers may change it).
func Config() []byte { return append([]byte(nil), config...) }

// The names of the environment variables the job file references.
const (
	EnvFlakyURL  = "DEMO_FLAKY_URL"
	EnvLookupURL = "DEMO_LOOKUP_URL"
	EnvProxyURL  = "DEMO_PROXY_URL"
	EnvDeniedURL = "DEMO_DENIED_URL"
	EnvRepo      = "DEMO_REPO"
)

// DeniedHost is the host the demo proxy denies the way Squid does.
const DeniedHost = "blocked.demo.test"

// World is a running demo world; Close stops it.
type World struct {
	// Env holds DEMO_FLAKY_URL, DEMO_LOOKUP_URL, DEMO_PROXY_URL, DEMO_DENIED_URL and DEMO_REPO as KEY=VALUE.
	Env []string
	// FlakyURL answers 503 twice, then 200 {"published": 3}.
	FlakyURL string
	// LookupURL answers 404 {"error":"not found","status":404}.
	LookupURL string
	// ProxyURL is the forward proxy, http://127.0.0.1:PORT.
	ProxyURL string
	// DeniedURL is the URL on DeniedHost that the proxy refuses.
	DeniedURL string
	// Repo is the work tree whose push to origin is rejected non-fast-forward.
	Repo string
	// Origin is Repo's origin, a bare repository that has moved on.
	Origin string

	flakyH        flaky
	flaky, lookup *server
	proxy         *proxy
	closeOnce     sync.Once
}

// Start starts the servers on 127.0.0.1 and builds the repositories in dir
// (which must exist and stays the caller's); ctx bounds the set-up only.
func Start(ctx context.Context, dir string) (_ *World, err error) {
	w := &World{}
	defer func() {
		if err != nil {
			w.Close() // what started before the failure
		}
	}()
	if w.flaky, err = serve(&w.flakyH); err != nil {
		return nil, fmt.Errorf("demo: flaky endpoint: %w", err)
	}
	if w.lookup, err = serve(lookupHandler()); err != nil {
		return nil, fmt.Errorf("demo: lookup endpoint: %w", err)
	}
	if w.proxy, err = startProxy(); err != nil {
		return nil, fmt.Errorf("demo: proxy: %w", err)
	}
	if w.Repo, w.Origin, err = buildRepo(ctx, dir); err != nil {
		return nil, fmt.Errorf("demo: repository: %w", err)
	}
	w.FlakyURL = w.flaky.url + FlakyPath
	w.LookupURL = w.lookup.url + LookupPath
	w.ProxyURL = w.proxy.srv.url
	w.DeniedURL = "https://" + DeniedHost + DeniedPath
	w.Env = []string{
		EnvFlakyURL + "=" + w.FlakyURL,
		EnvLookupURL + "=" + w.LookupURL,
		EnvProxyURL + "=" + w.ProxyURL,
		EnvDeniedURL + "=" + w.DeniedURL,
		EnvRepo + "=" + w.Repo,
	}
	return w, nil
}

// Close shuts every server down and waits for their goroutines; it leaves dir alone and may be called again.
func (w *World) Close() {
	if w == nil {
		return
	}
	w.closeOnce.Do(func() {
		for _, s := range []*server{w.flaky, w.lookup, w.proxy.server()} {
			s.close()
		}
	})
}

// FlakyHits returns how many requests the flaky endpoint has received.
func (w *World) FlakyHits() int { return int(w.flakyH.n.Load()) }

// ProxyRequests returns how many proxy requests (CONNECT or absolute-form) named host, with or without a port.
func (w *World) ProxyRequests(host string) int { return w.proxy.requests(host) }

// Describe returns one line per part of the world: what answers what.
func (w *World) Describe() []string {
	return []string{
		fmt.Sprintf("%s: answers 503 Service Unavailable twice, then 200 {\"published\": 3} (transient, recovers)", w.FlakyURL),
		fmt.Sprintf("%s: answers 404 {\"error\":\"not found\",\"status\":404} (absent: not published yet)", w.LookupURL),
		fmt.Sprintf("%s: a forward proxy that denies %s the way Squid does (403, X-Squid-Error: ERR_ACCESS_DENIED 0) and answers 502 for any other host; it never dials out", w.ProxyURL, DeniedHost),
		fmt.Sprintf("%s: a git work tree with one commit to push (%s); its origin %s has moved on, so git push origin HEAD:main is rejected non-fast-forward", w.Repo, LogFile, w.Origin),
	}
}
