package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// ShutdownTimeout bounds the wait for in-flight requests once Serve's context is done.
const ShutdownTimeout = 2 * time.Second

// Health is the /healthz check: 200 "ok" while serving, 503 "shutting down"
// after SetServing(false). The zero value is serving; safe for concurrent use.
type Health struct {
	stopping atomic.Bool
}

// SetServing says whether the process is serving (true) or shutting down (false).
func (h *Health) SetServing(serving bool) { h.stopping.Store(!serving) }

// Handler answers the health check on whatever path it is mounted (/healthz).
func (h *Health) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if h.stopping.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("shutting down\n"))
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
}

// Mux mounts m at /metrics and h at /healthz.
func Mux(m *Metrics, h *Health) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.Handle("/healthz", h.Handler())
	return mux
}

// ListenAddr returns the address to listen on for addr (--listen): HOST:PORT
// as given, a bare :PORT on loopback (127.0.0.1:PORT); all interfaces only
// when asked for (0.0.0.0:PORT, [::]:PORT).
func ListenAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen address %q: want HOST:PORT or :PORT (e.g. :9090, 127.0.0.1:9090, 0.0.0.0:9090): %w", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("listen address %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// Serve listens on addr (see ListenAddr) and serves mux in the background
// until ctx is done, then shuts down, waiting at most ShutdownTimeout for
// requests in flight. It returns once listening, with the bound address (the
// port chosen for :0); log (nil: silent) gets one line when listening, one
// when stopped (the listener is closed by then) and one per error after
// start, the last two from another goroutine.
func Serve(ctx context.Context, addr string, mux http.Handler, log func(string)) (bound string, err error) {
	if log == nil {
		log = func(string) {}
	}
	addr, err = ListenAddr(addr)
	if err != nil {
		return "", err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listen on %s: %w", addr, err)
	}
	bound = ln.Addr().String()
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
	}
	log("metrics: listening on " + bound)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	go func() {
		select {
		case <-ctx.Done():
		case err := <-served:
			// Serve failed on its own (the listener broke): report it, nothing to shut down.
			log(fmt.Sprintf("metrics: serving on %s stopped: %v", bound, err))
			return
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			log(fmt.Sprintf("metrics: shutdown on %s: %v; closing", bound, err))
			_ = srv.Close()
		}
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			log(fmt.Sprintf("metrics: serving on %s: %v", bound, err))
		}
		log("metrics: stopped listening on " + bound)
	}()
	return bound, nil
}
