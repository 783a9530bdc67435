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
	}{
		{"nil", nil, Unknown, "no error"},
		{"dns not found", urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example.com", IsNotFound: true}}), Transient, "could not resolve host api.example.com"},
		{"dns timeout", &net.DNSError{Err: "i/o timeout", Name: "h", IsTimeout: true}, Transient, "timed out"},
		{"refused", urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), Transient, "connection refused"},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, Transient, "connection reset"},
		{"broken pipe", &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}, Transient, "connection reset"},
		{"net timeout", urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}), Transient, "timed out"},
		{"unknown authority", urlErr(x509.UnknownAuthorityError{Cert: cert}), Unknown, "unknown authority"},
		{"expired", urlErr(x509.CertificateInvalidError{Cert: cert, Reason: x509.Expired}), Unknown, "certificate invalid"},
		{"hostname", urlErr(x509.HostnameError{Certificate: cert, Host: "api.example.com"}), Unknown, "host name"},
		{"verification", urlErr(&tls.CertificateVerificationError{Err: errors.New("x509: bad")}), Unknown, "verification"},
		{"not TLS", urlErr(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), Structural, "HTTP response to HTTPS client"},
		{"not TLS text", urlErr(errors.New("http: server gave HTTP response to HTTPS client")), Structural, "HTTP response to HTTPS client"},
		{"deadline", fmt.Errorf("step: %w", context.DeadlineExceeded), Transient, "deadline exceeded"},
		{"cancelled", fmt.Errorf("step: %w", context.Canceled), Unknown, "cancelled"},
		{"unexpected EOF", urlErr(io.ErrUnexpectedEOF), Transient, "EOF"},
		{"EOF", urlErr(io.EOF), Transient, "EOF"},
		{"GOAWAY", errors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=""`), Transient, "HTTP/2"},
		{"CONNECT Forbidden", urlErr(errors.New("Forbidden")), Policy, "Forbidden"},
		{"CONNECT proxy auth", urlErr(errors.New("Proxy Authentication Required")), Policy, "Proxy Authentication Required"},
		{"CONNECT Bad Gateway", urlErr(errors.New("Bad Gateway")), Unknown, "Bad Gateway"},
		{"client timeout text", errors.New(`Post "https://api/x": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)`), Transient, "timed out"},
		{"x509 text", errors.New("tls: failed to verify certificate: x509: certificate has expired or is not yet valid"), Unknown, "certificate"},
		{"unrecognised", errors.New("boom"), Unknown, "unrecognised failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := FromError(tc.err)
			checkFailure(t, f, tc.class, tc.reason, "", nil)
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
	want := New(Policy, "denied", "ask")
	if got := FromError(fmt.Errorf("step 2: %w", want)); got != want {
		t.Errorf("FromError = %v, want the wrapped *Failure", got)
	}
}

func TestGoErrorText(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "read reset", tool: ToolAuto, text: "read tcp 10.1.0.4:51234->140.82.112.6:443: read: connection reset by peer\n", class: Transient},
		{name: "write broken pipe", tool: ToolAuto, text: "write tcp 10.1.0.4:51234->140.82.112.6:443: write: broken pipe\n", class: Transient},
		{name: "EOF", tool: ToolAuto, text: `Get "https://index.docker.io/v2/": EOF` + "\n", class: Transient},
		{name: "no such host", tool: ToolAuto, text: "dial tcp: lookup proxy.golang.org on 127.0.0.53:53: no such host\n", class: Transient, reason: "could not resolve host proxy.golang.org"},
		{name: "dial refused", tool: ToolAuto, text: "dial tcp 127.0.0.1:5432: connect: connection refused\n", class: Transient, reason: "127.0.0.1:5432"},
		{name: "cancelled", tool: ToolAuto, text: `Get "https://x/": context canceled` + "\n", class: Unknown, reason: "cancelled"},
		{name: "insecure registry", tool: ToolAuto, text: `Error response from daemon: Get "https://10.0.0.1:5000/v2/": http: server gave HTTP response to HTTPS client` + "\n", class: Structural},
		{name: "bare CONNECT 403, old format", tool: ToolAuto, text: "Get https://proxy.golang.org/x/@v/list: Forbidden\n", class: Policy},
		{name: "bare CONNECT 502", tool: ToolAuto, text: `Head "https://h.example/": Bad Gateway` + "\n", class: Unknown},
		{name: "not a reason phrase", tool: ToolAuto, text: `Get "https://h.example/": Something Else` + "\n", class: Unknown, reason: "unrecognised"},
	})
}
