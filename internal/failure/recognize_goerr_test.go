package failure

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"
)

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "slow" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func urlErr(err error) error {
	return &url.Error{Op: "Get", URL: "https://api.example.com/v1", Err: err}
}

func TestFromError(t *testing.T) {
	cert := &x509.Certificate{NotAfter: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), NotBefore: time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		name   string
		err    error
		class  Class
		reason string
		code   Code
	}{
		{"nil", nil, Unknown, "no error", "unknown"},
		{"dns not found", urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example.com", IsNotFound: true}}), Transient, "could not resolve host api.example.com", "dns-failure"},
		{"dns timeout", &net.DNSError{Err: "i/o timeout", Name: "h", IsTimeout: true}, Transient, "timed out", "dns-failure"},
		{"refused", urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), Transient, "connection refused", "connection-refused"},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, Transient, "connection reset", "connection-reset"},
		{"broken pipe", &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}, Transient, "connection reset", "connection-reset"},
		{"net timeout", urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}), Transient, "timed out", "timeout"},
		{"unknown authority", urlErr(x509.UnknownAuthorityError{Cert: cert}), Unknown, "unknown authority", "tls-certificate"},
		{"expired", urlErr(x509.CertificateInvalidError{Cert: cert, Reason: x509.Expired}), Unknown, "certificate invalid", "tls-certificate"},
		{"hostname", urlErr(x509.HostnameError{Certificate: cert, Host: "api.example.com"}), Unknown, "host name", "tls-certificate"},
		{"verification", urlErr(&tls.CertificateVerificationError{Err: errors.New("x509: bad")}), Unknown, "verification", "tls-certificate"},
		{"not TLS", urlErr(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), Structural, "HTTP response to HTTPS client", "http-to-https-server"},
		{"not TLS text", urlErr(errors.New("http: server gave HTTP response to HTTPS client")), Structural, "HTTP response to HTTPS client", "http-to-https-server"},
		{"deadline", fmt.Errorf("step: %w", context.DeadlineExceeded), Transient, "deadline exceeded", "timeout"},
		{"cancelled", fmt.Errorf("step: %w", context.Canceled), Unknown, "cancelled", "cancelled"},
		{"unexpected EOF", urlErr(io.ErrUnexpectedEOF), Transient, "EOF", "unexpected-eof"},
		{"EOF", urlErr(io.EOF), Transient, "EOF", "unexpected-eof"},
		{"GOAWAY", errors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=""`), Transient, "HTTP/2", "http2-stream-closed"},
		{"CONNECT Forbidden", urlErr(errors.New("Forbidden")), Policy, "Forbidden", "proxy-denied"},
		{"CONNECT proxy auth", urlErr(errors.New("Proxy Authentication Required")), Policy, "Proxy Authentication Required", "proxy-auth-required"},
		{"CONNECT Bad Gateway", urlErr(errors.New("Bad Gateway")), Unknown, "Bad Gateway", "proxy-connect-failed"},
		{"client timeout text", errors.New(`Post "https://api/x": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)`), Transient, "timed out", "timeout"},
		{"x509 text", errors.New("tls: failed to verify certificate: x509: certificate has expired or is not yet valid"), Unknown, "certificate", "tls-certificate"},
		{"unrecognised", errors.New("boom"), Unknown, "unrecognised failure", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := FromError(tc.err)
			checkFailure(t, f, tc.class, tc.code, tc.reason, "", nil)
			if err := invariants(f); err != nil {
				t.Error(err)
			}
			if tc.err != nil && !errors.Is(f, tc.err) {
				t.Errorf("Err does not wrap the original error")
			}
		})
	}
}

func TestFromErrorKeepsFailure(t *testing.T) {
	want := New(Policy, CodeBadCredentials, "denied", "ask")
	if got := FromError(fmt.Errorf("step 2: %w", want)); got != want {
		t.Errorf("FromError = %v, want the wrapped *Failure", got)
	}
}

func TestGoErrorText(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "read reset", tool: ToolAuto, text: "read tcp 10.1.0.4:51234->140.82.112.6:443: read: connection reset by peer\n", class: Transient, code: "connection-reset"},
		{name: "write broken pipe", tool: ToolAuto, text: "write tcp 10.1.0.4:51234->140.82.112.6:443: write: broken pipe\n", class: Transient, code: "connection-reset"},
		{name: "EOF", tool: ToolAuto, text: `Get "https://index.docker.io/v2/": EOF` + "\n", class: Transient, code: "unexpected-eof"},
		{name: "no such host", tool: ToolAuto, text: "dial tcp: lookup proxy.golang.org on 127.0.0.53:53: no such host\n", class: Transient, code: "dns-failure", reason: "could not resolve host proxy.golang.org"},
		{name: "dial refused", tool: ToolAuto, text: "dial tcp 127.0.0.1:5432: connect: connection refused\n", class: Transient, code: "connection-refused", reason: "127.0.0.1:5432"},
		{name: "cancelled", tool: ToolAuto, text: `Get "https://x/": context canceled` + "\n", class: Unknown, code: "cancelled", reason: "cancelled"},
		{name: "insecure registry", tool: ToolAuto, text: `Error response from daemon: Get "https://10.0.0.1:5000/v2/": http: server gave HTTP response to HTTPS client` + "\n", class: Structural, code: "http-to-https-server"},
		{name: "bare CONNECT 403, old format", tool: ToolAuto, text: "Get https://proxy.golang.org/x/@v/list: Forbidden\n", class: Policy, code: "proxy-denied"},
		{name: "bare CONNECT 502", tool: ToolAuto, text: `Head "https://h.example/": Bad Gateway` + "\n", class: Unknown, code: "proxy-connect-failed"},
		{name: "not a reason phrase", tool: ToolAuto, text: `Get "https://h.example/": Something Else` + "\n", class: Unknown, code: "unknown", reason: "unrecognised"},
	})
}
