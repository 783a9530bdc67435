package proxytest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TinyproxyOptions configures StartTinyproxy; the zero value is the usual test set-up.
type TinyproxyOptions struct {
	// Allow lists extended regular expressions of the host names tinyproxy lets
	// through (FilterDefaultDeny); default `^localhost$` and `\.allowed\.test$`.
	// Everything else is answered "403 Filtered".
	Allow []string
	// Binary is the tinyproxy executable; "" means TinyproxyBinary.
	Binary string
}

// Tinyproxy is a running tinyproxy on 127.0.0.1. tinyproxy resolves names with
// the system resolver, so targets it should reach are "localhost:PORT".
type Tinyproxy struct {
	// Addr is host:port of the proxy.
	Addr string
	// URL is "http://" + Addr.
	URL string
	// Dir holds the configuration, filter, log and pid file.
	Dir  string
	proc *process
}

// StartTinyproxy writes a configuration into a fresh temp folder, starts
// `tinyproxy -d` on a free port (retrying on EADDRINUSE) and waits until the
// port accepts connections.
func StartTinyproxy(o TinyproxyOptions) (*Tinyproxy, error) {
	bin := o.Binary
	if bin == "" {
		bin = TinyproxyBinary
	}
	bin, err := findBinary(bin, "tinyproxy")
	if err != nil {
		return nil, err
	}
	if len(o.Allow) == 0 {
		o.Allow = []string{`^localhost$`, `\.allowed\.test$`}
	}
	dir, err := os.MkdirTemp("", "proxytest-tinyproxy-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	tp := &Tinyproxy{Dir: dir}
	if err := startOnFreePort(func(port int) error { return tp.start(bin, port, o) }); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("tinyproxy: %w", err)
	}
	return tp, nil
}

func (tp *Tinyproxy) start(bin string, port int, o TinyproxyOptions) error {
	tp.Addr = "127.0.0.1:" + strconv.Itoa(port)
	tp.URL = "http://" + tp.Addr
	filter := filepath.Join(tp.Dir, "filter")
	if err := os.WriteFile(filter, []byte(strings.Join(o.Allow, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	logPath := filepath.Join(tp.Dir, "tinyproxy.log")
	conf := filepath.Join(tp.Dir, "tinyproxy.conf")
	text := fmt.Sprintf(`# written by proxytest
Port %d
Listen 127.0.0.1
Timeout 10
MaxClients 50
PidFile "%s"
LogFile "%s"
LogLevel Info
Filter "%s"
FilterType ere
FilterDefaultDeny Yes
`, port, filepath.Join(tp.Dir, "tinyproxy.pid"), logPath, filter)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return err
	}
	p, err := startProcess(bin, []string{"-d", "-c", conf}, tp.Dir)
	if err != nil {
		return err
	}
	if err := p.waitReady(tp.Addr); err != nil {
		p.kill()
		log, _ := os.ReadFile(logPath)
		all := p.stderr.String() + string(log)
		if strings.Contains(all, "Address already in use") {
			return errAddrInUse
		}
		return fmt.Errorf("%v\n%s", err, lastLines(all, 15))
	}
	tp.proc = p
	return nil
}

// Close kills tinyproxy and removes its folder.
func (tp *Tinyproxy) Close() error {
	tp.proc.kill()
	return os.RemoveAll(tp.Dir)
}
