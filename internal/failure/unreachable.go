package failure

import (
	"errors"
	"net"
)

// Unreachable reports whether f is a server that could not be reached at
// all: its name did not resolve, or no connection to it (or its proxy)
// could be made, a dial that timed out included. Nothing was sent, and
// waiting a few seconds seldom fixes it, so a client that only reads
// (explain) gives up at once.
func Unreachable(f *Failure) bool {
	if f == nil {
		return false
	}
	switch f.Code {
	case CodeDNS, CodeDNSSinkhole, CodeRefused, CodeConnectFailed, CodeUnreachable, CodeProxyUnreachable:
		return true
	}
	var op *net.OpError
	return errors.As(f, &op) && op.Op == "dial"
}
