package egress

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/proxytest"
)

// The package's real proxies, started once by TestMain.
var (
	squid *proxytest.Squid
	tiny  *proxytest.Tinyproxy
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if os.Getenv("EGRESS_HELPER_URL") != "" {
		return m.Run() // a helper run of TestDiscoverGoAgreesWithNetHTTP needs no proxies
	}
	var err error
	if squid, err = proxytest.StartSquid(proxytest.SquidOptions{}); err != nil {
		fmt.Fprintf(os.Stderr, "egress tests need a real Squid: %v\n", err)
		return 1
	}
	defer squid.Close()
	if tiny, err = proxytest.StartTinyproxy(proxytest.TinyproxyOptions{}); err != nil {
		fmt.Fprintf(os.Stderr, "egress tests need a real tinyproxy: %v\n", err)
		return 1
	}
	defer tiny.Close()
	return m.Run()
}

// upstream starts an HTTP server on 127.0.0.1 and returns its port.
func upstream(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Upstream", "yes")
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return port
}

// closedPort returns a 127.0.0.1 port nothing listens on.
func closedPort(t testing.TB) string {
	t.Helper()
	addr, err := proxytest.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(addr)
	return port
}

func mustTarget(t testing.TB, s string) Target {
	t.Helper()
	tg, err := ParseTarget(s)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func newProber(t testing.TB, o Options) *Prober {
	t.Helper()
	if o.Env == nil {
		o.Env = []string{}
	}
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func hasLine(lines []string, substr string) bool {
	for _, l := range lines {
		if strings.Contains(l, substr) {
			return true
		}
	}
	return false
}
