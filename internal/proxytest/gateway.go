package proxytest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// StatusPath is where a sandbox gateway serves its status JSON.
const StatusPath = "/__agentproxy/status"

// StatusMode says how a Gateway answers GET StatusPath.
type StatusMode int

// The status endpoint's behaviours.
const (
	// StatusJSON serves {"recentRelayFailures": [...], "noProxy": [...]}.
	StatusJSON StatusMode = iota
	// StatusJunk serves an HTML page.
	StatusJunk
	// StatusHuge serves a JSON document of 1 MiB.
	StatusHuge
	// StatusSlow never answers until the client goes away or the gateway closes.
	StatusSlow
	// StatusMissing answers 404.
	StatusMissing
)

// GatewayOptions configures NewGateway.
type GatewayOptions struct {
	// Tunnels maps "host:port" targets the gateway lets through to the 127.0.0.1
	// address it connects them to. Every other CONNECT is refused.
	Tunnels map[string]string
	// DenyStatus is the status of a refused CONNECT; 0 means 403.
	DenyStatus int
	// DenyHeader is added to a refused CONNECT's answer (e.g. x-deny-reason,
	// Proxy-Status); nil gives a bare status, the sandbox dialect.
	DenyHeader http.Header
	// Status says how the status endpoint answers.
	Status StatusMode
	// NoProxy is the status document's noProxy list.
	NoProxy []string
}

// StatusRecord is one entry of the status document's recentRelayFailures.
type StatusRecord struct {
	TS     string `json:"ts"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
	Host   string `json:"host"`
}

// Gateway is a small in-process egress gateway: it answers CONNECT with a bare
// 403 (or DenyStatus) unless the target is in Tunnels, records each refusal,
// and serves the records as JSON at StatusPath.
type Gateway struct {
	// Addr is host:port of the gateway.
	Addr string
	// URL is "http://" + Addr.
	URL string
	srv *httptest.Server
	opt GatewayOptions

	mu       sync.Mutex
	records  []StatusRecord
	connects int
	statuses int
	release  chan struct{}
}

// NewGateway starts a gateway on 127.0.0.1.
func NewGateway(o GatewayOptions) *Gateway {
	if o.DenyStatus == 0 {
		o.DenyStatus = http.StatusForbidden
	}
	g := &Gateway{opt: o, release: make(chan struct{})}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	g.Addr = g.srv.Listener.Addr().String()
	g.URL = "http://" + g.Addr
	return g
}

// Close stops the gateway, releasing a slow status request first.
func (g *Gateway) Close() {
	close(g.release)
	g.srv.CloseClientConnections()
	g.srv.Close()
}

// Connects returns the number of CONNECT requests received.
func (g *Gateway) Connects() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.connects
}

// StatusRequests returns the number of requests to the status endpoint.
func (g *Gateway) StatusRequests() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.statuses
}

func (g *Gateway) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		g.connect(w, r)
		return
	}
	if r.URL.Path == StatusPath && r.Method == http.MethodGet {
		g.status(w, r)
		return
	}
	http.NotFound(w, r)
}

func (g *Gateway) connect(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.connects++
	backend, ok := g.opt.Tunnels[r.Host]
	if !ok {
		g.records = append(g.records, StatusRecord{
			TS: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), Kind: "connect_rejected",
			Detail: "gateway answered 403 to CONNECT (policy denial or upstream failure)", Host: r.Host,
		})
	}
	g.mu.Unlock()
	if !ok {
		for k, vs := range g.opt.DenyHeader {
			w.Header()[k] = vs
		}
		w.WriteHeader(g.opt.DenyStatus)
		return
	}
	up, err := net.Dial("tcp", backend)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
	go func() {
		io.Copy(up, buf)
		up.Close()
	}()
	io.Copy(conn, up)
	conn.Close()
}

func (g *Gateway) status(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.statuses++
	doc := map[string]any{"recentRelayFailures": append([]StatusRecord{}, g.records...), "noProxy": g.opt.NoProxy}
	g.mu.Unlock()
	switch g.opt.Status {
	case StatusJunk:
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>status: all good {not json</body></html>\n")
	case StatusHuge:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"recentRelayFailures":[`)
		entry := `{"ts":"2026-09-11T08:56:12.843Z","kind":"connect_rejected","detail":"` + strings.Repeat("x", 900) + `","host":"elsewhere.test:443"},`
		for range (1 << 20) / len(entry) {
			io.WriteString(w, entry)
		}
		io.WriteString(w, `{"ts":"","kind":"","detail":"","host":""}]}`)
	case StatusSlow:
		select {
		case <-r.Context().Done():
		case <-g.release:
		}
	case StatusMissing:
		http.NotFound(w, r)
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	}
}

// Stall is a TCP listener that accepts connections and never answers: a
// proxy that hangs.
type Stall struct {
	// Addr is host:port of the listener.
	Addr string
	l    net.Listener

	mu       sync.Mutex
	conns    []net.Conn
	done     chan struct{}
	accepted chan struct{}
}

// NewStall starts a stalling listener on 127.0.0.1.
func NewStall() (*Stall, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Stall{Addr: l.Addr().String(), l: l, done: make(chan struct{}), accepted: make(chan struct{}, 1)}
	go func() {
		defer close(s.done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			select {
			case s.accepted <- struct{}{}:
			default:
			}
		}
	}()
	return s, nil
}

// Accepted returns a channel that receives after a connection is accepted;
// use it to wait, without sleeping, until a client is stuck on the stall.
func (s *Stall) Accepted() <-chan struct{} { return s.accepted }

// Close stops accepting and closes the held connections.
func (s *Stall) Close() {
	s.l.Close()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}
