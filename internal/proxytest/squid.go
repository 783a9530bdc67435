package proxytest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// SquidOptions configures StartSquid; the zero value is the usual test set-up.
type SquidOptions struct {
	// Allow lists the dstdomain entries Squid lets through; default [".allowed.test"].
	// Everything else is denied with ERR_ACCESS_DENIED.
	Allow []string
	// Hosts are the names Squid resolves to 127.0.0.1 (its hosts_file); default
	// up.allowed.test and down.allowed.test.
	Hosts []string
	// Binary is the squid executable; "" means SquidBinary.
	Binary string
	// DenyReset denies with a TCP reset (deny_info TCP_RESET) instead of
	// the ERR_ACCESS_DENIED page: a denial that reads as a network blip.
	DenyReset bool
}

// Squid is a running Squid on 127.0.0.1.
type Squid struct {
	// Addr is host:port of the proxy.
	Addr string
	// URL is "http://" + Addr.
	URL string
	// Dir holds the configuration, logs and pid file.
	Dir string
	// AccessLog is the path of Squid's access log (one line per request, written as it ends).
	AccessLog string
	proc      *process
}

// StartSquid writes a configuration into a fresh temp folder, checks it with
// `squid -k parse`, starts `squid -N` on a free port (retrying on
// EADDRINUSE) and waits until the port accepts connections.
func StartSquid(o SquidOptions) (*Squid, error) {
	bin := o.Binary
	if bin == "" {
		bin = SquidBinary
	}
	bin, err := findBinary(bin, "squid")
	if err != nil {
		return nil, err
	}
	if len(o.Allow) == 0 {
		o.Allow = []string{".allowed.test"}
	}
	if len(o.Hosts) == 0 {
		o.Hosts = []string{"up.allowed.test", "down.allowed.test"}
	}
	dir, err := os.MkdirTemp("", "proxytest-squid-")
	if err != nil {
		return nil, err
	}
	if err := shareDir(dir, "proxy"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Squid{Dir: dir, AccessLog: filepath.Join(dir, "access.log")}
	err = startOnFreePort(func(port int) error { return s.start(bin, port, o) })
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("squid: %w", err)
	}
	return s, nil
}

func (s *Squid) start(bin string, port int, o SquidOptions) error {
	s.Addr = "127.0.0.1:" + strconv.Itoa(port)
	s.URL = "http://" + s.Addr
	hosts := filepath.Join(s.Dir, "hosts")
	if err := os.WriteFile(hosts, []byte("127.0.0.1 "+strings.Join(o.Hosts, " ")+"\n"), 0o644); err != nil {
		return err
	}
	conf := filepath.Join(s.Dir, "squid.conf")
	text := fmt.Sprintf(`# written by proxytest
http_port %[1]s
visible_hostname proxytest
pid_filename %[2]s/squid.pid
cache_log %[2]s/cache.log
access_log stdio:%[3]s
buffered_logs off
cache_store_log none
cache deny all
cache_mem 8 MB
coredump_dir %[2]s
shutdown_lifetime 0 seconds
pinger_enable off
netdb_filename none
hosts_file %[4]s
acl allowed dstdomain %[5]s
http_access allow allowed
http_access deny all
`, s.Addr, s.Dir, s.AccessLog, hosts, strings.Join(o.Allow, " "))
	if o.DenyReset {
		text += "acl denied_all src all\ndeny_info TCP_RESET denied_all\nhttp_access deny denied_all\n"
		text = strings.Replace(text, "http_access deny all\n", "", 1)
	}
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return err
	}
	if out, err := exec.Command(bin, "-k", "parse", "-f", conf).CombinedOutput(); err != nil {
		return fmt.Errorf("squid -k parse -f %s: %v\n%s", conf, err, lastLines(string(out), 10))
	}
	p, err := startProcess(bin, []string{"-N", "-f", conf}, s.Dir)
	if err != nil {
		return err
	}
	if err := p.waitReady(s.Addr); err != nil {
		p.kill()
		log, _ := os.ReadFile(filepath.Join(s.Dir, "cache.log"))
		all := p.stderr.String() + string(log)
		if strings.Contains(all, "Address already in use") {
			return errAddrInUse
		}
		return fmt.Errorf("%v\n%s", err, lastLines(all, 15))
	}
	s.proc = p
	return nil
}

// CountLog returns the number of access-log lines containing substr.
func (s *Squid) CountLog(substr string) (int, error) {
	b, err := os.ReadFile(s.AccessLog)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n, nil
}

// WaitLog waits until at least n access-log lines contain substr, or timeout
// passes; it returns the count last seen. Squid writes a line when a
// transaction ends, which may be just after the client saw the answer. It
// does not poll: it recounts each time inotify reports a write in Squid's
// folder.
func (s *Squid) WaitLog(substr string, n int, timeout time.Duration) (int, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return 0, fmt.Errorf("inotify: %w", err)
	}
	events := os.NewFile(uintptr(fd), "inotify") // non-blocking, so its deadline works
	defer events.Close()
	// the folder, not the file: the log is created by Squid's first line
	if _, err := syscall.InotifyAddWatch(fd, s.Dir, syscall.IN_CREATE|syscall.IN_MODIFY|syscall.IN_CLOSE_WRITE); err != nil {
		return 0, fmt.Errorf("inotify watch %s: %w", s.Dir, err)
	}
	if err := events.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return 0, err
	}
	buf := make([]byte, 64*(syscall.SizeofInotifyEvent+syscall.NAME_MAX+1))
	for {
		// counted after the watch is set, so no write is missed
		got, err := s.CountLog(substr)
		if err != nil || got >= n {
			return got, err
		}
		if _, err := events.Read(buf); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return s.CountLog(substr)
			}
			return got, err
		}
	}
}

// Close kills Squid and removes its folder.
func (s *Squid) Close() error {
	s.proc.kill()
	return os.RemoveAll(s.Dir)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
