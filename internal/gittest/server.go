package gittest

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Fault is what the front does to a request instead of (or after) passing it
// to git http-backend.
type Fault int

// The faults.
const (
	// Status502 answers 502 Bad Gateway, as a proxy or load balancer would.
	Status502 Fault = iota + 1
	// Status503 answers 503 Service Unavailable.
	Status503
	// Status403 answers 403 Forbidden (a token that has not propagated yet).
	Status403
	// Reset closes the connection with a TCP reset before answering.
	Reset
	// Stall accepts the request and never answers; the handler returns when
	// the client goes away or the server closes.
	Stall
	// DropAfterApply lets the backend apply a push (a receive-pack POST), then
	// drops the connection without sending the backend's answer. Requests
	// that are not receive-pack POSTs pass through and do not consume it.
	DropAfterApply
)

// Request is the record of one request the front received.
type Request struct {
	// Method and Path are the request's.
	Method, Path string
	// Fault is what the front did instead of answering normally; 0 when nothing.
	Fault Fault
	// Status is the status sent (0 when the connection was dropped).
	Status int
}

// Server serves the bare repositories under Root over smart HTTP, with the
// real git http-backend behind a front that injects faults and can require
// basic authentication.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT.
	URL string
	// Root holds the bare repositories (GIT_PROJECT_ROOT).
	Root string

	env      []string
	backend  *cgi.Handler
	srv      *httptest.Server
	done     chan struct{}
	received chan struct{}

	mu       sync.Mutex
	faults   []Fault
	user     string
	pass     string
	requests []Request
}

// NewServer starts a server on 127.0.0.1 for the bare repositories it creates
// with NewRepo; env is the isolated git environment (Env). It is closed when
// the test ends.
func NewServer(t testing.TB, env []string) *Server {
	t.Helper()
	execPath := RequireGit(t)
	s := &Server{Root: t.TempDir(), env: env, done: make(chan struct{}), received: make(chan struct{}, 1)}
	backendEnv := []string{"GIT_PROJECT_ROOT=" + s.Root, "GIT_HTTP_EXPORT_ALL=1"}
	for _, kv := range env {
		if strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "GIT_CONFIG_") {
			backendEnv = append(backendEnv, kv)
		}
	}
	s.backend = &cgi.Handler{Path: filepath.Join(execPath, "git-http-backend"), Dir: s.Root, Env: backendEnv, Stderr: os.Stderr}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
	return s
}

// NewRepo creates the bare repository name (e.g. "site.git") under Root and
// returns its URL and its path on disk.
func (s *Server) NewRepo(t testing.TB, name string) (url, path string) {
	t.Helper()
	path = NewBare(t, s.env, filepath.Join(s.Root, name))
	return s.URL + "/" + name, path
}

// Inject makes the next n requests get fault f (after any faults already queued).
func (s *Server) Inject(f Fault, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, f)
	}
}

// RequireBasicAuth makes every request without these basic credentials get
// 401 with a WWW-Authenticate challenge.
func (s *Server) RequireBasicAuth(user, pass string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user, s.pass = user, pass
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Pushes returns how many receive-pack POSTs (pack uploads) were received.
func (s *Server) Pushes() int {
	n := 0
	for _, r := range s.Requests() {
		if isReceivePack(r.Method, r.Path) {
			n++
		}
	}
	return n
}

func isReceivePack(method, path string) bool {
	return method == http.MethodPost && strings.HasSuffix(path, "/git-receive-pack")
}

// next pops the fault for a request, if any.
func (s *Server) next(r *http.Request) (Fault, string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var f Fault
	if len(s.faults) > 0 {
		f = s.faults[0]
		if f != DropAfterApply || isReceivePack(r.Method, r.URL.Path) {
			s.faults = s.faults[1:]
		} else {
			f = 0
		}
	}
	return f, s.user, s.pass
}

// dropPending reports whether a DropAfterApply fault is queued.
func (s *Server) dropPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.faults, DropAfterApply)
}

func (s *Server) record(r *http.Request, f Fault, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Fault: f, Status: status})
	select {
	case s.received <- struct{}{}:
	default:
	}
}

// Received returns a channel that receives after a request is recorded; use
// it to wait, without sleeping, for a request to arrive (a stall to begin).
func (s *Server) Received() <-chan struct{} { return s.received }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	f, user, pass := s.next(r)
	switch f {
	case Status502, Status503, Status403:
		code := map[Fault]int{Status502: http.StatusBadGateway, Status503: http.StatusServiceUnavailable, Status403: http.StatusForbidden}[f]
		s.record(r, f, code)
		http.Error(w, http.StatusText(code), code)
		return
	case Reset:
		s.record(r, f, 0)
		drop(w, true)
		return
	case Stall:
		s.record(r, f, 0)
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		drop(w, false)
		return
	}
	if user != "" {
		u, p, ok := r.BasicAuth()
		if !ok || subtle.ConstantTimeCompare([]byte(u+"\x00"+p), []byte(user+"\x00"+pass)) != 1 {
			s.record(r, 0, http.StatusUnauthorized)
			w.Header().Set("WWW-Authenticate", `Basic realm="gittest"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		r.Header.Del("Authorization")
	}
	if f == DropAfterApply {
		rec := httptest.NewRecorder()
		s.backend.ServeHTTP(rec, r)
		s.record(r, f, 0)
		drop(w, false)
		return
	}
	if s.dropPending() {
		// curl silently resends a request whose reused connection died
		// without an answer; a fresh connection for the push makes the drop
		// reach git, as a drop after a proxy's idle timeout would.
		w.Header().Set("Connection", "close")
	}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	s.backend.ServeHTTP(sw, r)
	s.record(r, 0, sw.status)
}

// drop closes the client's connection without an answer; with reset, the
// close sends a TCP RST instead of a FIN.
func drop(w http.ResponseWriter, reset bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("gittest: the response writer cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	conn.Close()
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}
