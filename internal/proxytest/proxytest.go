// Package proxytest starts real forward proxies (Squid, tinyproxy) and a small
// sandbox egress gateway on 127.0.0.1 for tests, the way httptest starts
// servers. Start one Squid and one tinyproxy per test package from TestMain
// and stop them after m.Run.
//
// Go never sends loopback targets through a proxy, so proxied tests use
// made-up names: Squid resolves the names in SquidOptions.Hosts to 127.0.0.1
// through its hosts_file, and denies everything outside its allowlist before
// resolving anything.
package proxytest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// InstallCommand is the command that installs the proxies these tests run.
const InstallCommand = "apt-get install -y squid tinyproxy"

// Default binaries, as installed by Debian's squid and tinyproxy packages.
const (
	SquidBinary     = "/usr/sbin/squid"
	TinyproxyBinary = "/usr/bin/tinyproxy"
)

const (
	// readyTimeout bounds the wait for a proxy to accept connections.
	readyTimeout = 20 * time.Second
	// pollInterval is the readiness poll's period.
	pollInterval = 5 * time.Millisecond
	// portAttempts bounds the retries on EADDRINUSE.
	portAttempts = 5
)

// errAddrInUse marks a start that lost its port to another process.
var errAddrInUse = errors.New("address already in use")

// findBinary returns path if it is executable, or an error naming the install command.
func findBinary(path, name string) (string, error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
		return path, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s not found at %s: install it with: %s", name, path, InstallCommand)
}

// freePort returns a port nothing listens on at this moment.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ClosedAddr returns a 127.0.0.1 address nothing listens on (a port just released).
func ClosedAddr() (string, error) {
	p, err := freePort()
	if err != nil {
		return "", err
	}
	return "127.0.0.1:" + strconv.Itoa(p), nil
}

// shareDir makes dir usable by the user a root-started proxy drops to (Squid's
// "proxy"): chown when running as root, else nothing is needed.
func shareDir(dir, account string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup(account)
	if err != nil {
		// no such account: let anyone write, the directory is private to the test run anyway
		return os.Chmod(dir, 0o777)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	return os.Chown(dir, uid, gid)
}

// process is a started proxy process.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	stderr *strings.Builder
}

func startProcess(bin string, args []string, dir string) (*process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var errb strings.Builder
	cmd.Stdout, cmd.Stderr = &errb, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, exited: make(chan struct{}), stderr: &errb}
	go func() { cmd.Wait(); close(p.exited) }()
	return p, nil
}

// waitReady polls addr until it accepts a connection, the process exits, or readyTimeout passes.
func (p *process) waitReady(addr string) error {
	deadline := time.Now().Add(readyTimeout)
	for {
		select {
		case <-p.exited:
			return errors.New("exited before accepting connections")
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not accepting connections on %s after %s", addr, readyTimeout)
		}
		t := time.NewTimer(pollInterval)
		select {
		case <-p.exited:
			t.Stop()
		case <-t.C:
		}
	}
}

// kill stops the process group and waits for it.
func (p *process) kill() {
	if p == nil {
		return
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// startOnFreePort starts a proxy with start(port) until one start is not lost to
// EADDRINUSE, at most portAttempts times.
func startOnFreePort(start func(port int) error) error {
	var err error
	for range portAttempts {
		var port int
		if port, err = freePort(); err != nil {
			return err
		}
		if err = start(port); !errors.Is(err, errAddrInUse) {
			return err
		}
	}
	return err
}
