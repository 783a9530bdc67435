package failure

import (
	"errors"
	"net"
	"testing"
)

// TestUnreachable: a name that does not resolve, a refused connection or
// a dial that failed is unreachable; a 5xx or a reset after connecting is not.
func TestUnreachable(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("i/o timeout")}
	read := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	for _, tt := range []struct {
		f    *Failure
		want bool
	}{
		{New(Transient, CodeDNS, "r", "", ""), true},
		{New(Transient, CodeRefused, "r", "", ""), true},
		{&Failure{Class: Transient, Code: CodeTimeout, Err: dial}, true},
		{&Failure{Class: Transient, Code: CodeReset, Err: read}, false},
		{FromHTTP(Response{Status: 502}), false},
		{nil, false},
	} {
		if got := Unreachable(tt.f); got != tt.want {
			t.Errorf("Unreachable(%v) = %v, want %v", tt.f, got, tt.want)
		}
	}
}
