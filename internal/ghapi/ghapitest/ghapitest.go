// Package ghapitest is a test helper for the GitHub API clients: a server on
// 127.0.0.1 that speaks http and https on one port, records every request
// with the origin it arrived at, and the redirect matrix the clients are
// tested with (301, 302, 307 and 308 to another port, another host, another
// scheme and the same origin), so that a test can show the token reaches
// the API's origin and nothing else.
package ghapitest

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Hit is one request a Server received.
type Hit struct {
	// Origin is the scheme, host and port the request arrived at ("http://localhost:4242").
	Origin string
	// Method and Path are the request's.
	Method, Path string
	// Authorization is the request's Authorization header.
	Authorization string
	// Dump is the whole request as it arrived, body included.
	Dump string
}

// Carries reports whether the request holds token anywhere (a header, the
// URL, the body), as written, base64-encoded or percent-encoded.
func (h Hit) Carries(token string) bool {
	for _, form := range []string{token, base64.StdEncoding.EncodeToString([]byte(token)), base64.RawURLEncoding.EncodeToString([]byte(token)), url.QueryEscape(token)} {
		if strings.Contains(h.Dump, form) {
			return true
		}
	}
	return h.Authorization != ""
}

// Server is an HTTP server on 127.0.0.1 that answers http and https on the
// same port (the first byte of a connection tells them apart), so that a
// redirect can change the scheme alone, or the host alone ("localhost"
// for "127.0.0.1").
type Server struct {
	// Port is the server's port.
	Port string

	ln      net.Listener
	srv     *http.Server
	handler http.Handler

	mu   sync.Mutex
	hits []Hit
}

// NewServer starts a Server that serves h; it is closed when the test ends.
func NewServer(t *testing.T, h http.Handler) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s := &Server{Port: port, handler: h}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	s.ln = newSniffer(ln, &tls.Config{Certificates: []tls.Certificate{cert()}})
	go s.srv.Serve(s.ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	dump, _ := httputil.DumpRequest(r, true)
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	h := Hit{Origin: scheme + "://" + r.Host, Method: r.Method, Path: r.URL.RequestURI(), Authorization: r.Header.Get("Authorization"), Dump: string(dump)}
	// DumpRequest consumed the body; give the handler the copy.
	if i := bytes.Index(dump, []byte("\r\n\r\n")); i >= 0 {
		r.Body = readCloser{bytes.NewReader(dump[i+4:])}
	}
	s.mu.Lock()
	s.hits = append(s.hits, h)
	s.mu.Unlock()
	s.handler.ServeHTTP(w, r)
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// URL returns the server's root as scheme://host:port, without a slash.
func (s *Server) URL(scheme, host string) string {
	return scheme + "://" + net.JoinHostPort(host, s.Port)
}

// Hits returns the requests received so far.
func (s *Server) Hits() []Hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Hit(nil), s.hits...)
}

// Reset forgets the requests received so far.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits = nil
}

// Origin returns the origin a request arrived at, as Hit.Origin writes it.
func Origin(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// Transport returns a transport that trusts the servers' certificate and
// uses no proxy; it is closed when the test ends.
func Transport(t *testing.T) *http.Transport {
	pool := x509.NewCertPool()
	c := cert()
	pool.AddCert(c.Leaf)
	tr := &http.Transport{Proxy: nil, TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// Redirect is one case of the matrix: a redirect status and where it points.
type Redirect struct {
	// Name names the case ("307 to another port").
	Name string
	// Status is the redirect status.
	Status int
	// Target is the root the redirect points to (scheme://host:port).
	Target string
	// SameOrigin is true when Target is the API's own origin.
	SameOrigin bool
}

// Statuses are the redirect statuses the matrix uses.
var Statuses = []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect}

// Matrix returns the redirect cases from the API at http://127.0.0.1:api.Port:
// each status to another port (other's), to another host (localhost, the
// same port), to another scheme (https, the same host and port), and to the
// same origin.
func Matrix(api, other *Server) []Redirect {
	var m []Redirect
	for _, st := range Statuses {
		m = append(m,
			Redirect{Name: fmt.Sprintf("%d to another port", st), Status: st, Target: other.URL("http", "127.0.0.1")},
			Redirect{Name: fmt.Sprintf("%d to another host", st), Status: st, Target: api.URL("http", "localhost")},
			Redirect{Name: fmt.Sprintf("%d to another scheme", st), Status: st, Target: api.URL("https", "127.0.0.1")},
			Redirect{Name: fmt.Sprintf("%d to the same origin", st), Status: st, Target: api.URL("http", "127.0.0.1"), SameOrigin: true},
		)
	}
	return m
}

// CheckToken fails the test for every request of the servers that reached
// an origin other than apiOrigin carrying token, and returns the requests
// that reached another origin.
func CheckToken(t *testing.T, token, apiOrigin string, servers ...*Server) (elsewhere []Hit) {
	t.Helper()
	for _, s := range servers {
		for _, h := range s.Hits() {
			if h.Origin == apiOrigin {
				continue
			}
			elsewhere = append(elsewhere, h)
			if h.Carries(token) {
				t.Errorf("%s %s%s carried the token (Authorization %q)", h.Method, h.Origin, h.Path, h.Authorization)
			}
		}
	}
	return elsewhere
}

// sniffer is a listener whose connections are TLS when their first byte is
// a TLS handshake record, plain otherwise.
type sniffer struct {
	net.Listener
	cfg   *tls.Config
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newSniffer(ln net.Listener, cfg *tls.Config) *sniffer {
	s := &sniffer{Listener: ln, cfg: cfg, conns: make(chan net.Conn), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *sniffer) loop() {
	for {
		c, err := s.Listener.Accept()
		if err != nil {
			s.Close()
			return
		}
		go func() {
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			br := bufio.NewReader(c)
			b, err := br.Peek(1)
			c.SetReadDeadline(time.Time{})
			if err != nil {
				c.Close()
				return
			}
			var out net.Conn = &peeked{Conn: c, r: br}
			if b[0] == 0x16 {
				out = tls.Server(out, s.cfg)
			}
			select {
			case s.conns <- out:
			case <-s.done:
				c.Close()
			}
		}()
	}
}

func (s *sniffer) Accept() (net.Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-s.done:
		return nil, net.ErrClosed
	}
}

func (s *sniffer) Close() error {
	s.once.Do(func() { close(s.done) })
	return s.Listener.Close()
}

// peeked is a connection whose first bytes were read into r.
type peeked struct {
	net.Conn
	r *bufio.Reader
}

func (p *peeked) Read(b []byte) (int, error) { return p.r.Read(b) }

var (
	certOnce sync.Once
	theCert  tls.Certificate
)

// cert is a self-signed certificate for 127.0.0.1 and localhost, made once.
func cert() tls.Certificate {
	certOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ghapitest"},
			NotBefore: time.Unix(0, 0), NotAfter: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
			KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			BasicConstraintsValid: true, IsCA: true,
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			panic(err)
		}
		leaf, err := x509.ParseCertificate(der)
		if err != nil {
			panic(errors.Join(errors.New("ghapitest: certificate"), err))
		}
		theCert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
	})
	return theCert
}
