package demo

import (
	_ "embed"
	"html"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
)

// The demo proxy's Squid identity.
const (
	// SquidServer is the Server header of the proxy's denial (and the version in its page).
	SquidServer = "squid/6.13"
	// visibleHost is the proxy's visible_hostname, as in Squid's X-Cache and page footer.
	visibleHost = "retrywise-demo"
)

// squidAccessDenied is Squid's ERR_ACCESS_DENIED page as Squid renders it
// (English, with its inline stylesheet); @@URL@@, @@DATE@@, @@HOST@@ and
// @@SERVER@@ stand for what Squid fills in.
//
//go:embed squid_access_denied.html
var squidAccessDenied string

// proxy is a forward proxy that never dials the network: it denies
// DeniedHost as Squid does and answers 502 for every other target.
type proxy struct {
	srv  *server
	port string

	mu   sync.Mutex
	seen map[string]int
}

// startProxy starts the proxy on a free port of 127.0.0.1.
func startProxy() (*proxy, error) {
	p := &proxy{seen: map[string]int{}}
	s, err := serve(p)
	if err != nil {
		return nil, err
	}
	p.srv = s
	_, p.port, _ = net.SplitHostPort(strings.TrimPrefix(s.url, "http://"))
	return p, nil
}

// server returns the proxy's server; nil when the proxy is nil.
func (p *proxy) server() *server {
	if p == nil {
		return nil
	}
	return p.srv
}

// requests returns the number of proxy requests for host (its port ignored).
func (p *proxy) requests(host string) int {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[normHost(host)]
}

func normHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// ServeHTTP answers CONNECT and absolute-form requests as a proxy, and the
// status endpoint (egress.StatusPath) with 404 so that a probe reads the
// answer itself.
func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var host, shown string
	switch {
	case r.Method == http.MethodConnect:
		h, port, err := net.SplitHostPort(r.Host)
		if err != nil {
			h, port = r.Host, "443"
		}
		host = h
		// Squid shows a tunnel's target as https://HOST/* (the port only when not 443)
		shown = "https://" + h + "/*"
		if port != "443" {
			shown = "https://" + net.JoinHostPort(h, port) + "/*"
		}
	case r.URL.IsAbs():
		host = r.URL.Hostname()
		u := *r.URL
		u.User = nil
		shown = u.String()
	case r.URL.Path == egress.StatusPath:
		http.Error(w, "404 page not found: the retrywise demo proxy has no status endpoint", http.StatusNotFound)
		return
	default:
		http.Error(w, "400 bad request: the retrywise demo proxy serves only CONNECT and absolute-form requests", http.StatusBadRequest)
		return
	}
	host = normHost(host)
	p.mu.Lock()
	p.seen[host]++
	p.mu.Unlock()
	if host == DeniedHost {
		p.deny(w, shown)
		return
	}
	http.Error(w, "502 bad gateway: "+host+" is not part of the retrywise demo, and the demo proxy never dials the network", http.StatusBadGateway)
}

// deny answers as Squid does when http_access denies the request: 403 with
// X-Squid-Error: ERR_ACCESS_DENIED 0 and the ERR_ACCESS_DENIED page.
func (p *proxy) deny(w http.ResponseWriter, shown string) {
	body := strings.NewReplacer(
		"@@URL@@", html.EscapeString(shown),
		"@@DATE@@", time.Now().UTC().Format(http.TimeFormat),
		"@@HOST@@", visibleHost,
		"@@SERVER@@", SquidServer,
	).Replace(squidAccessDenied)
	h := w.Header()
	h.Set("Server", SquidServer)
	h.Set("Mime-Version", "1.0")
	h.Set("Content-Type", "text/html;charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Squid-Error", "ERR_ACCESS_DENIED 0")
	h.Set("Vary", "Accept-Language")
	h.Set("Content-Language", "en")
	h.Set("X-Cache", "MISS from "+visibleHost)
	h.Set("X-Cache-Lookup", "NONE from "+visibleHost+":"+p.port)
	h.Set("Via", "1.1 "+visibleHost+" ("+SquidServer+")")
	w.WriteHeader(http.StatusForbidden)
	w.Write([]byte(body))
}
