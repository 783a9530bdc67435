package demo

import (
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Paths of the demo's endpoints.
const (
	// FlakyPath is the flaky endpoint's path.
	FlakyPath = "/articles/published"
	// LookupPath is the lookup endpoint's path: an article not published yet.
	LookupPath = "/articles/by-slug/hello-world"
	// DeniedPath is the path of DeniedURL on DeniedHost.
	DeniedPath = "/api/articles"
)

// flakyFailures is how many requests the flaky endpoint fails before it answers.
const flakyFailures = 2

// server is one net/http server on 127.0.0.1; close stops it and waits for
// its accept loop and every connection it served.
type server struct {
	url   string
	srv   *http.Server
	done  chan struct{}
	conns sync.WaitGroup
	mu    sync.Mutex
	open  map[net.Conn]struct{}
}

// serve starts h on a free port of 127.0.0.1.
func serve(h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{url: "http://" + ln.Addr().String(), done: make(chan struct{}), open: map[net.Conn]struct{}{}}
	s.srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ConnState:         s.track,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln)
	}()
	return s, nil
}

// track counts the connections being served, so close can wait for them.
func (s *server) track(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st {
	case http.StateNew:
		s.open[c] = struct{}{}
		s.conns.Add(1)
	case http.StateClosed, http.StateHijacked:
		if _, ok := s.open[c]; ok {
			delete(s.open, c)
			s.conns.Done()
		}
	}
}

// close closes the listener and every connection, then waits for the goroutines.
func (s *server) close() {
	if s == nil {
		return
	}
	s.srv.Close()
	<-s.done // Serve has returned: no connection is added after this
	s.conns.Wait()
}

// flaky answers 503 flakyFailures times, then 200 {"published": 3}.
type flaky struct{ n atomic.Int64 }

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.n.Add(1) <= flakyFailures {
		writeJSON(w, http.StatusServiceUnavailable, `{"error":"service unavailable","status":503}`)
		return
	}
	writeJSON(w, http.StatusOK, `{"published": 3}`)
}

// lookupHandler answers every request 404, as a lookup of a slug not published yet.
func lookupHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, `{"error":"not found","status":404}`)
	})
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body+"\n")
}
