package proxytest

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SandboxKind is the agent sandbox whose proxy a SandboxProxy stands in for.
type SandboxKind int

// The sandboxes whose CONNECT denials SandboxProxy writes.
const (
	// SandboxSrt is Claude Code's sandbox runtime (srt, src/sandbox/http-proxy.ts).
	SandboxSrt SandboxKind = iota
	// SandboxCodex is Codex's network proxy (codex-rs/network-proxy/src/responses.rs).
	SandboxCodex
)

// SrtDenial and CodexDenial are the exact answers those proxies write to a
// CONNECT for a host not on their allowlist (the research notes,
// agent-sandboxes.md): 403, x-proxy-error: blocked-by-allowlist, their body.
const (
	SrtDenial = "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nX-Proxy-Error: blocked-by-allowlist\r\n\r\n" +
		"Connection blocked by network allowlist"
	codexBody   = `CODEX_NETWORK_POLICY_DECISION {"decision":"deny","reason":"not_allowed","source":"baseline_policy","protocol":"https_connect","host":"HOST","port":443}` + "\nCodex blocked this request: domain not in allowlist (this is not a denylist block).\n"
	codexHeader = "HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nx-proxy-error: blocked-by-allowlist\r\ncontent-length: "
)

// SandboxProxy is a tiny CONNECT proxy on 127.0.0.1 that refuses every
// CONNECT as srt's or Codex's proxy does, byte for byte, then closes.
type SandboxProxy struct {
	// Addr is host:port of the proxy; URL is "http://" + Addr.
	Addr, URL string
	ln        net.Listener
	kind      SandboxKind
	wg        sync.WaitGroup
	connects  atomic.Int64
}

// NewSandboxProxy starts a stand-in for kind's proxy; Close stops it.
func NewSandboxProxy(kind SandboxKind) *SandboxProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("proxytest: " + err.Error())
	}
	p := &SandboxProxy{Addr: ln.Addr().String(), ln: ln, kind: kind}
	p.URL = "http://" + p.Addr
	p.wg.Add(1)
	go p.serve()
	return p
}

// Connects returns how many CONNECT requests the proxy refused.
func (p *SandboxProxy) Connects() int64 { return p.connects.Load() }

// Close stops the proxy and waits for its connections to end.
func (p *SandboxProxy) Close() {
	p.ln.Close()
	p.wg.Wait()
}

func (p *SandboxProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			req, err := http.ReadRequest(bufio.NewReader(c))
			if err != nil {
				return
			}
			if req.Method == http.MethodConnect {
				p.connects.Add(1)
			}
			host, _, _ := strings.Cut(req.Host, ":")
			switch p.kind {
			case SandboxCodex:
				body := strings.Replace(codexBody, "HOST", host, 1)
				c.Write([]byte(codexHeader + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
			default:
				c.Write([]byte(SrtDenial)) // srt ends the socket after the body
			}
		}()
	}
}
