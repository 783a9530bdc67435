package egress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/retrywise/retrywise/internal/redact"
)

// The status endpoint of a sandbox egress gateway ($HTTPS_PROXY/__agentproxy/status)
// is not a published format. Reports show a JSON object whose
// recentRelayFailures holds {"ts", "kind", "detail", "host"} entries and a
// noProxy list. A recent connect_rejected for the host confirms a denial; the
// host in noProxy means the request should not have gone through the proxy at
// all; anything unreadable means "no information", never "allowed".

// statusDoc is the part of the status document the probe reads.
type statusDoc struct {
	RecentRelayFailures []statusRecord  `json:"recentRelayFailures"`
	NoProxy             json.RawMessage `json:"noProxy"`
}

type statusRecord struct {
	TS     string `json:"ts"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
	Host   string `json:"host"`
}

// statusURL returns the status endpoint for proxy, and whether it was derived
// from the proxy (credentials may then be sent to it); nil when disabled.
func (p *Prober) statusURL(proxy *Proxy) (u *url.URL, derived bool) {
	if strings.EqualFold(strings.TrimSpace(p.opts.StatusURL), StatusOff) {
		return nil, false
	}
	if p.statusU != nil {
		return p.statusU, false
	}
	return &url.URL{Scheme: proxy.URL.Scheme, Host: proxy.Addr, Path: StatusPath}, true
}

// consultStatus fetches the status endpoint once and adds what it says to r.
func (p *Prober) consultStatus(ctx context.Context, r *Result, proxy *Proxy, target Target) {
	u, derived := p.statusURL(proxy)
	if u == nil {
		return
	}
	r.Requests++
	doc, err := p.fetchStatus(ctx, u, proxy, derived)
	if err != nil {
		r.Evidence = append(r.Evidence, "status endpoint: no information ("+err.Error()+")")
		return
	}
	if rec, ok := doc.recordFor(target); ok {
		line := "status endpoint: " + clipLine(rec.Kind) + " " + clipLine(rec.Host)
		if rec.TS != "" {
			line += " at " + clipLine(rec.TS)
		}
		if rec.Detail != "" {
			line += ": " + clipLine(rec.Detail)
		}
		r.Evidence = append(r.Evidence, line)
		if rec.Kind == "connect_rejected" && r.Verdict == Denied {
			r.Reason += ", confirmed by the proxy's status endpoint"
		}
	} else {
		r.Evidence = append(r.Evidence, "status endpoint: no recent failure recorded for "+target.Addr())
	}
	if doc.inNoProxy(target) {
		r.Misconfigured = true
		r.Evidence = append(r.Evidence, "status endpoint: "+target.Host+" is in the proxy's noProxy list")
		if r.Verdict == Denied {
			r.Reason += "; the proxy says " + target.Host + " should not go through it at all (client misconfiguration)"
			r.Remedy = fmt.Sprintf("Waiting will not change this: the proxy lists %s in noProxy, so the client must connect to it directly: add %s to NO_PROXY (no_proxy for curl and git).", target.Host, target.Host)
		}
	}
}

// errNoInfo marks a status answer that says nothing usable.
var errNoInfo = errors.New("no information")

// fetchStatus GETs the status endpoint directly (never through a proxy), reads
// at most MaxBody, and parses it.
func (p *Prober) fetchStatus(ctx context.Context, u *url.URL, proxy *Proxy, derived bool) (*statusDoc, error) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	p.sent.Add(1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, errNoInfo
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "application/json")
	if derived {
		if auth := proxyAuth(proxy.URL); auth != "" {
			req.Header.Set("Proxy-Authorization", auth)
		}
	}
	client := &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: p.opts.Dial, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no answer within %s", p.opts.Timeout)
		}
		return nil, errors.New(netReason(redactURLError(err), p.opts.Timeout))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("body not complete within %s", p.opts.Timeout)
		}
		return nil, errors.New("body cut short")
	}
	if len(body) > MaxBody {
		return nil, fmt.Errorf("body over %d KiB", MaxBody>>10)
	}
	return parseStatus(body)
}

// parseStatus parses a status document; an object with neither known field is no information.
func parseStatus(body []byte) (*statusDoc, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, errors.New("not a JSON object")
	}
	_, hasF := raw["recentRelayFailures"]
	_, hasN := raw["noProxy"]
	if !hasF && !hasN {
		return nil, errors.New("no recentRelayFailures or noProxy")
	}
	var doc statusDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, errors.New("unexpected shape")
	}
	return &doc, nil
}

// recordFor returns the latest record naming target (host:port, or the host alone).
func (d *statusDoc) recordFor(target Target) (statusRecord, bool) {
	var found statusRecord
	ok := false
	for _, rec := range d.RecentRelayFailures {
		h := strings.ToLower(strings.TrimSpace(rec.Host))
		if h == target.Addr() || h == target.Host {
			if !ok || rec.Kind == "connect_rejected" || rec.TS >= found.TS {
				found, ok = rec, true
			}
		}
	}
	return found, ok
}

// inNoProxy reports whether the document's noProxy (a list, or a comma
// separated string) covers target's host.
func (d *statusDoc) inNoProxy(target Target) bool {
	if len(d.NoProxy) == 0 {
		return false
	}
	var entries []string
	if err := json.Unmarshal(d.NoProxy, &entries); err != nil {
		var s string
		if json.Unmarshal(d.NoProxy, &s) != nil {
			return false
		}
		entries = strings.Split(s, ",")
	}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		e = strings.TrimPrefix(e, "*")
		switch {
		case e == "":
		case e == target.Host || e == target.Addr():
			return true
		case strings.HasPrefix(e, ".") && strings.HasSuffix(target.Host, e):
			return true
		}
	}
	return false
}

// clipLine keeps a value quoted from the status document short (with the
// one cut, redact.Clip) and on one line.
func clipLine(s string) string {
	return redact.Clip(strings.Join(strings.Fields(s), " "), 160)
}
