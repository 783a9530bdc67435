package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"github.com/retrywise/retrywise/internal/failure"
)

// errNotHTTP marks an answer that is not HTTP at all.
var errNotHTTP = errors.New("not an HTTP answer")

// ask sends one request for target to proxy and reads the answer: status,
// headers and at most MaxBody of body, within the timeout.
func (p *Prober) ask(ctx context.Context, proxy *Proxy, target Target, method string) (failure.ProxyAnswer, error) {
	if proxy.URL.Scheme != "http" && proxy.URL.Scheme != "https" {
		return failure.ProxyAnswer{}, fmt.Errorf("%w %q: only http and https proxies are probed", ErrUnsupportedProxy, proxy.URL.Scheme)
	}
	p.sent.Add(1)
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	conn, err := p.opts.Dial(ctx, "tcp", proxy.Addr)
	if err != nil {
		return failure.ProxyAnswer{}, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if proxy.URL.Scheme == "https" {
		tc := tls.Client(conn, &tls.Config{ServerName: proxy.URL.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			return failure.ProxyAnswer{}, err
		}
		conn = tc
	}

	req := &http.Request{Method: method, Header: http.Header{"User-Agent": {userAgent}}, Host: target.Addr()}
	if method == http.MethodConnect {
		req.URL = &url.URL{Opaque: target.Addr()}
	} else {
		req.URL = target.URL()
		req.Close = true
	}
	if auth := proxyAuth(proxy.URL); auth != "" {
		req.Header.Set("Proxy-Authorization", auth)
	}
	if method == http.MethodConnect {
		err = req.Write(conn)
	} else {
		err = req.WriteProxy(conn)
	}
	if err != nil {
		return failure.ProxyAnswer{}, ctxErr(ctx, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		if ctx.Err() != nil {
			return failure.ProxyAnswer{}, ctx.Err()
		}
		var ne net.Error
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) || errors.Is(err, syscall.ECONNRESET) {
			return failure.ProxyAnswer{}, err
		}
		return failure.ProxyAnswer{}, fmt.Errorf("%w: %v", errNotHTTP, err)
	}
	defer resp.Body.Close()
	a := failure.ProxyAnswer{Method: method, Status: resp.StatusCode, Reason: reasonPhrase(resp.Status), Header: resp.Header}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// a stalled body ends at the deadline: keep what arrived
		a.Body, _ = io.ReadAll(io.LimitReader(resp.Body, MaxBody))
	}
	return a, nil
}

// ctxErr returns the context's error once it is done, else err.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// reasonPhrase returns the phrase of a status such as "403 Filtered".
func reasonPhrase(status string) string {
	_, phrase, _ := strings.Cut(status, " ")
	return strings.TrimSpace(phrase)
}

// proxyAuth returns the Proxy-Authorization value for a proxy URL with credentials, or "".
func proxyAuth(u *url.URL) string {
	if u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))
}

// statusLine renders an answer's status as "HTTP 403 Filtered".
func statusLine(a failure.ProxyAnswer) string {
	s := "HTTP " + strconv.Itoa(a.Status)
	if a.Reason != "" {
		return s + " " + a.Reason
	}
	if t := http.StatusText(a.Status); t != "" {
		return s + " " + t
	}
	return s
}
