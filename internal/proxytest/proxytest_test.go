package proxytest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// connect sends CONNECT target to the proxy at addr and returns the answer.
func connect(t *testing.T, addr, target string) *http.Response {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestSquidAndTinyproxy(t *testing.T) {
	sq, err := StartSquid(SquidOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := StartTinyproxy(TinyproxyOptions{})
	if err != nil {
		sq.Close()
		t.Fatal(err)
	}
	if r := connect(t, sq.Addr, "denied.test:443"); r.StatusCode != 403 || !strings.HasPrefix(r.Header.Get("X-Squid-Error"), "ERR_ACCESS_DENIED") {
		t.Errorf("Squid: %s %v", r.Status, r.Header)
	}
	if r := connect(t, tp.Addr, "denied.test:443"); r.Status != "403 Filtered" {
		t.Errorf("tinyproxy: %s", r.Status)
	}
	if n, err := sq.WaitLog("denied.test:443", 1, 5*time.Second); err != nil || n != 1 {
		t.Errorf("access log: %d lines (%v)", n, err)
	}
	// a line that never comes: WaitLog gives up at its timeout with the count
	start := time.Now()
	if n, err := sq.WaitLog("never-requested.test", 1, 100*time.Millisecond); err != nil || n != 0 {
		t.Errorf("WaitLog for a missing line: %d, %v; want 0, nil", n, err)
	}
	if el := time.Since(start); el < 100*time.Millisecond || el > 5*time.Second {
		t.Errorf("WaitLog with a 100ms timeout returned after %s", el)
	}
	sq.Close()
	tp.Close()
	for _, addr := range []string{sq.Addr, tp.Addr} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after Close", addr)
		}
	}
}

func TestStartOnFreePortRetriesAddrInUse(t *testing.T) {
	calls := 0
	err := startOnFreePort(func(port int) error {
		calls++
		if calls < 3 {
			return errAddrInUse
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
	calls = 0
	err = startOnFreePort(func(int) error { calls++; return errAddrInUse })
	if !errors.Is(err, errAddrInUse) || calls != portAttempts {
		t.Fatalf("err %v after %d calls, want a bounded retry", err, calls)
	}
}

func TestMissingBinaryNamesInstallCommand(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, err := range []error{
		func() error { _, err := StartSquid(SquidOptions{Binary: "/nonexistent/squid"}); return err }(),
		func() error { _, err := StartTinyproxy(TinyproxyOptions{Binary: "/nonexistent/tinyproxy"}); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "apt-get install -y squid tinyproxy") {
			t.Errorf("error %v does not name the install command", err)
		}
	}
}

func TestGatewayStatusRecordsRefusals(t *testing.T) {
	g := NewGateway(GatewayOptions{NoProxy: []string{"localhost"}})
	defer g.Close()
	if r := connect(t, g.Addr, "dev.to:443"); r.StatusCode != 403 || len(r.Header.Values("X-Deny-Reason")) != 0 {
		t.Fatalf("CONNECT: %s %v, want a bare 403", r.Status, r.Header)
	}
	resp, err := http.Get(g.URL + StatusPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		RecentRelayFailures []StatusRecord
		NoProxy             []string
	}
	if err := jsonDecode(resp, &doc); err != nil || len(doc.RecentRelayFailures) != 1 || doc.RecentRelayFailures[0].Host != "dev.to:443" ||
		doc.RecentRelayFailures[0].Kind != "connect_rejected" || doc.NoProxy[0] != "localhost" {
		t.Fatalf("status %+v (%v)", doc, err)
	}
	if g.Connects() != 1 || g.StatusRequests() != 1 {
		t.Errorf("counts %d %d", g.Connects(), g.StatusRequests())
	}
}

func jsonDecode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }
