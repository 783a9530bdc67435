// Package egress tells "not allowed" from "not reachable": it finds the
// forward proxy a client would use for a target (with that client's own
// rules), asks the proxy about the target the way the client did, reads the
// answer in the proxy's dialect, consults the gateway's status endpoint, and
// turns a denial into a policy failure before the retry loop waits.
package egress

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Target is a host and port reached over http or https.
type Target struct {
	// Scheme is "https" or "http".
	Scheme string
	// Host is the host name or IP address, without brackets.
	Host string
	// Port is the port number as text.
	Port string
}

// ParseTarget reads a host, host:port or http(s) URL; https is assumed for a
// bare host, and the port defaults to the scheme's (443, 80). Credentials in a
// URL are dropped.
func ParseTarget(s string) (Target, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Target{}, errors.New("empty target")
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return Target{}, fmt.Errorf("invalid target URL: %v", redactURLError(err))
		}
		scheme := strings.ToLower(u.Scheme)
		if scheme != "http" && scheme != "https" {
			return Target{}, fmt.Errorf("target scheme %q is not http or https", u.Scheme)
		}
		return newTarget(scheme, u.Hostname(), u.Port())
	}
	if strings.ContainsAny(s, "/?#@ ") {
		return Target{}, fmt.Errorf("target %q is not a host, host:port or URL", s)
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.Count(s, ":") > 1 && !strings.HasPrefix(s, "[") {
		host = s // a bare IPv6 address
	}
	return newTarget("https", strings.Trim(host, "[]"), port)
}

func newTarget(scheme, host, port string) (Target, error) {
	if host == "" {
		return Target{}, errors.New("target has no host")
	}
	if port == "" {
		port = defaultPort(scheme)
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return Target{}, fmt.Errorf("target port %q is not a port number", port)
	}
	return Target{Scheme: scheme, Host: strings.ToLower(host), Port: port}, nil
}

func defaultPort(scheme string) string {
	if scheme == "http" {
		return "80"
	}
	return "443"
}

// Addr returns "host:port", the form of a CONNECT request.
func (t Target) Addr() string { return net.JoinHostPort(t.Host, t.Port) }

// String returns Addr.
func (t Target) String() string { return t.Addr() }

// URL returns the target as a URL with an empty path.
func (t Target) URL() *url.URL {
	return &url.URL{Scheme: t.Scheme, Host: t.Addr(), Path: "/"}
}

// redactURLError returns a url.Error's cause only: its URL may hold credentials.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
