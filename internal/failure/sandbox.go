package failure

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// The sandboxes agents and CI run behind, recognised from what they print
// and from the step's environment (research: agent-sandboxes.md, egress.md):
//
//   - GitHub Agentic Workflows' firewall (AWF): Squid at 172.30.0.10:3128
//     (HTTPS_PROXY, SQUID_PROXY_HOST), its "[WARN]   - Blocked: host:443
//     (domain not in allowlist)" summary, and its API proxy's budget
//     refusals (effective_tokens_limit_exceeded, ...), final for the run;
//   - Claude Code's sandbox runtime (srt): "X-Proxy-Error:
//     blocked-by-allowlist", "Connection blocked by network allowlist";
//   - Codex's network proxy ("x-proxy-error: blocked-by-*", a body starting
//     CODEX_NETWORK_POLICY_DECISION) and its CLI sandbox
//     (CODEX_SANDBOX_NETWORK_DISABLED=1: every socket is refused);
//   - Copilot coding agent's firewall (COPILOT_AGENT_FIREWALL_ENABLED=true
//     with its allowlists; its "Firewall rules blocked me" warning);
//   - harden-runner's sinkhole 54.185.253.63 (egress-policy: block);
//   - Azure Firewall's 470 / "Action: Deny".
//
// A refusal by any of them is policy: the same request is refused until
// the allowlist changes, and the remedy names the setting that changes it.

// The sandboxes' codes.
const (
	// CodeSandboxDenied: an agent sandbox's proxy (srt, Codex) refused the host.
	CodeSandboxDenied Code = "sandbox-egress-denied"
	// CodeAWFDenied: GitHub Agentic Workflows' firewall refused the host.
	CodeAWFDenied Code = "awf-egress-denied"
	// CodeAWFBudget: AWF's API proxy refused a model call: a budget of the
	// run (tokens, AI credits, runs) is spent.
	CodeAWFBudget Code = "awf-budget-exhausted"
	// CodeCopilotFirewall: the Copilot coding agent's firewall blocked a host.
	CodeCopilotFirewall Code = "copilot-firewall-blocked"
	// CodeCodexNoNetwork: Codex CLI's sandbox runs the command without network.
	CodeCodexNoNetwork Code = "codex-sandbox-no-network"
	// CodeHardenRunner: harden-runner sinkholed a host not in allowed-endpoints.
	CodeHardenRunner Code = "harden-runner-blocked"
	// CodeDNSSinkhole: a remote host resolved to 0.0.0.0 (a DNS filter's sinkhole).
	CodeDNSSinkhole Code = "dns-sinkholed"
	// CodeAzureFirewall: Azure Firewall denied the request (470, Action: Deny).
	CodeAzureFirewall Code = "azure-firewall-denied"
)

// rankSandbox: a sandbox's own refusal is conclusive.
const rankSandbox = rankRule - 1

// hardenRunnerSinkhole is the address harden-runner resolves blocked hosts to.
const hardenRunnerSinkhole = "54.185.253.63"

const (
	remedySrt          = "Claude Code's sandbox (srt) allows only listed hosts: add the host to network.allowedDomains in ~/.srt-settings.json, or to sandbox.network.allowedDomains in .claude/settings.json; retrying cannot succeed"
	remedyCodexProxy   = "Codex's network proxy allows only listed hosts: add the host to [network_proxy.policy] allowed_domains in config.toml; retrying cannot succeed"
	remedyCodexSandbox = "Codex runs the command in a sandbox without network (CODEX_SANDBOX_NETWORK_DISABLED=1): set network_access = true under [sandbox_workspace_write] in config.toml, or a less restrictive sandbox mode; retrying cannot succeed"
	remedyAWFBudget    = "GitHub Agentic Workflows' API proxy enforces a budget for the run (tokens, AI credits, runs): it refuses every later call of this run, so do not retry; raise the limit in the workflow's frontmatter or config (apiProxy.maxAiCredits and the token and run limits), then gh aw compile"
	remedyAzure        = "Azure Firewall denies the destination: add an application or network rule allowing it (ask the firewall's admin); retrying cannot succeed"
	remedyCopilotFW    = "the Copilot coding agent's firewall allows only listed hosts: add the host to the custom allowlist in the repository's settings (Settings → Copilot → Coding agent), or fetch it in .github/workflows/copilot-setup-steps.yml, which runs before the firewall is enabled; retrying cannot succeed"
)

var (
	reProxyErrorHdr = LazyRE(`(?i)x-proxy-error:\s*(blocked-by-[a-z-]+)`)
	reJSONHost      = regexp.MustCompile(`"host"\s*:\s*"([^"]+)"`)
	reAWFBudget     = LazyRE(`\b(effective_tokens_limit_exceeded|ai_credits_limit_exceeded|max_runs_exceeded|max_cache_misses_exceeded|permission_denied_limit_exceeded|model_multiplier_cap_exceeded)\b|Maximum AI credits exceeded(?: \([\d.]+ / [\d.]+\))?`)
	reAWFBlocked    = LazyRE(`Blocked: ([^\s:]+)(?::(\d+))? \(([^)]*)\)|Firewall blocked (?:domains|access to)(?: during startup)?:?\s*"?([^"\s]*)`)
	reCopilotWarn   = LazyRE(`(?i)blocked by firewall rules|Firewall rules blocked me`)
	reAzureDeny     = LazyRE(`Action: Deny\b`)
	reSinkholeAddr  = LazyRE(`(?i)(?:ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|dial tcp|connect to|connection refused|Failed to connect to)[^\n]{0,40}?(?:\b0\.0\.0\.0|\[::\]):\d+`)
	reHostInText    = regexp.MustCompile(`(?i)(?:getaddrinfo (?:ENOTFOUND|EAI_AGAIN) |resolve host:? '?|lookup |Blocked: |"host"\s*:\s*"|https?://|connect to host |dial tcp |CONNECT |tunnel to )([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)`)
	reEPERM         = regexp.MustCompile(`Operation not permitted|\bEPERM\b|os error 1\b`)
)

// internalHost reports whether host is a sandbox's own address (AWF's
// Squid, API proxy and gateway, a loopback): never one to allowlist.
func internalHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	switch h {
	case "localhost", "squid-proxy", "api-proxy", "awmg-mcpg", "host.docker.internal":
		return true
	}
	return strings.HasPrefix(h, "172.30.") || strings.HasPrefix(h, "127.")
}

// failingHost returns the first host the text names as a target (not a
// sandbox's own address), or "".
func failingHost(text string) string {
	for _, m := range reHostInText.FindAllStringSubmatch(text, 16) {
		if h := m[1]; !internalHost(h) && h != hardenRunnerSinkhole {
			return h
		}
	}
	return ""
}

// hostPart says "HOST" for a remedy, or "the host" when unknown.
func hostPart(host string) string {
	if host == "" {
		return "the host"
	}
	return host
}

func awfRemedy(host string) string {
	entry := `"HOST"`
	if host != "" {
		entry = `"` + host + `"`
	}
	return "GitHub Agentic Workflows' firewall (AWF) allows only the workflow's listed domains: add " + entry + " (or its ecosystem identifier, such as node or python) to network: allowed: in the workflow's frontmatter (.github/workflows/<workflow>.md), then run gh aw compile; retrying cannot succeed"
}

func hardenRunnerRemedy(host string) string {
	return "harden-runner (egress-policy: block) sinkholes hosts not listed: add " + hostPart(host) + ":443 to its allowed-endpoints; retrying cannot succeed"
}

var sandboxMatchers = []Matcher{
	{
		Gates: []string{"blocked-by-"},
		RE:    reProxyErrorHdr,
		Build: func(c *ScanCtx, _ string, m []string) (Hit, bool) {
			return proxyErrorHit(c.Text, m[1], c.run), true
		},
	},
	{
		Gates: []string{"CODEX_NETWORK_POLICY_DECISION", "Codex blocked this request"},
		Build: func(c *ScanCtx, line string, _ []string) (Hit, bool) {
			host := ""
			if m := reJSONHost.FindStringSubmatch(line); m != nil {
				host = m[1]
			}
			return Hit{Class: Policy, Code: CodeSandboxDenied, Rank: rankSandbox, Trace: trProxy,
				Reason: "Codex's network proxy blocked " + hostPart(host), Remedy: remedyCodexProxy}, true
		},
	},
	{
		Gates: []string{"Connection blocked by network allowlist"},
		Build: func(c *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Policy, Code: CodeSandboxDenied, Rank: rankSandbox, Trace: trProxy,
				Reason: "the sandbox's proxy (srt) blocked " + hostPart(failingHost(c.Text)) + ": connection blocked by network allowlist", Remedy: remedySrt}, true
		},
	},
	{
		Gates: []string{"host_not_allowed", "Host not in allowlist"},
		Build: func(c *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Policy, Code: CodeSandboxDenied, Rank: rankSandbox, Trace: trProxy,
				Reason: "the agent environment's proxy blocked " + hostPart(failingHost(c.Text)) + " (host not in allowlist)",
				Remedy: "the agent environment allows only listed hosts: add the host to the environment's network access allowlist (a new session picks it up); retrying cannot succeed"}, true
		},
	},
	{
		Gates: []string{"_limit_exceeded", "max_runs_exceeded", "max_cache_misses_exceeded", "_cap_exceeded", "Maximum AI credits exceeded"},
		RE:    reAWFBudget,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Policy, Code: CodeAWFBudget, Rank: rankSandbox, Reason: "the run's model budget is spent (" + Clip(m[0]) + ")", Remedy: remedyAWFBudget}, true
		},
	},
	{
		Gates: []string{"Blocked: ", "Firewall blocked domains", "Firewall blocked access to"},
		RE:    reAWFBlocked,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			host := m[1] + m[4]
			if m[1] != "" && !strings.Contains(m[3], "allowlist") && !strings.Contains(m[3], "not allowed") {
				return Hit{}, false
			}
			if internalHost(host) {
				return Hit{Class: Policy, Code: CodeAWFDenied, Rank: rankSandbox - 1, Trace: trProxy,
					Reason: "AWF reports a blocked internal address (" + Clip(host) + ")",
					Remedy: "an AWF-internal address is not a host to allow (its gateway or proxy); look for another blocked domain, or the tool's own error"}, true
			}
			if host == "" {
				host = failingHost(c.Text)
			}
			return Hit{Class: Policy, Code: CodeAWFDenied, Rank: rankSandbox, Trace: trProxy,
				Reason: "GitHub Agentic Workflows' firewall blocked " + hostPart(host), Remedy: awfRemedy(host)}, true
		},
	},
	{
		Gates: []string{"blocked by firewall rules", "Firewall rules blocked me"},
		RE:    reCopilotWarn,
		Build: func(c *ScanCtx, _ string, _ []string) (Hit, bool) {
			host := ""
			for _, l := range FollowingLines(c.Text, min(c.LineEnd, len(c.Text)), 4) {
				if f := strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "-")), "`"); f != "" && !strings.ContainsAny(f, " :") && strings.Contains(f, ".") {
					host = strings.TrimSuffix(f, ".")
					break
				}
			}
			return Hit{Class: Policy, Code: CodeCopilotFirewall, Rank: rankSandbox,
				Reason: "the Copilot coding agent's firewall blocked " + hostPart(host), Remedy: remedyCopilotFW}, true
		},
	},
	{
		Gates: []string{hardenRunnerSinkhole},
		Build: func(c *ScanCtx, _ string, _ []string) (Hit, bool) {
			host := failingHost(c.Text)
			return Hit{Class: Policy, Code: CodeHardenRunner, Rank: rankSandbox,
				Reason: "harden-runner sinkholed " + hostPart(host) + " (a connection to " + hardenRunnerSinkhole + ")", Remedy: hardenRunnerRemedy(host)}, true
		},
	},
	{
		// a remote host name that resolved to 0.0.0.0: a DNS filter's
		// sinkhole (Pi-hole, a corporate resolver, a sandbox's DNS)
		Gates: []string{" 0.0.0.0:", "tcp 0.0.0.0:", "[::]:"},
		RE:    reSinkholeAddr,
		Build: func(c *ScanCtx, line string, _ []string) (Hit, bool) {
			host := failingHost(c.Text)
			if host == "" || host == "0.0.0.0" || !strings.Contains(host, ".") || strings.HasSuffix(host, ".local") || strings.HasSuffix(host, ".internal") {
				return Hit{}, false
			}
			return Hit{Class: Policy, Code: CodeDNSSinkhole, Rank: rankSandbox - 2,
				Reason: hostPart(host) + " resolved to 0.0.0.0: a DNS filter sinkholes it",
				Remedy: "the network's DNS filter (a sandbox, a corporate resolver, Pi-hole) blocks " + hostPart(host) + ": allow it there, or use a network that resolves it; retrying cannot succeed"}, true
		},
	},
	{
		Gates: []string{"Action: Deny"},
		RE:    reAzureDeny,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Policy, Code: CodeAzureFirewall, Rank: rankSandbox, Trace: trProxy, Reason: "Azure Firewall denied the request (Action: Deny)", Remedy: remedyAzure}, true
		},
	},
}

// proxyErrorHit is the verdict on an X-Proxy-Error: blocked-by-* answer,
// srt's or Codex's (the same header): the body or the environment tells
// which.
func proxyErrorHit(text, value string, ro runOpts) Hit {
	h := Hit{Class: Policy, Code: CodeSandboxDenied, Rank: rankSandbox, Trace: trProxy}
	host := failingHost(text)
	if m := reJSONHost.FindStringSubmatch(text); m != nil {
		host = m[1]
	}
	switch {
	case strings.Contains(text, "CODEX_NETWORK_POLICY_DECISION") || strings.Contains(text, "Codex blocked") || ro.env["CODEX_SANDBOX"] != "" || ro.env["CODEX_SANDBOX_NETWORK_DISABLED"] != "":
		h.Reason, h.Remedy = "Codex's network proxy refused "+hostPart(host)+" ("+value+")", remedyCodexProxy
	case strings.Contains(text, "network allowlist") || ro.env["SANDBOX_RUNTIME"] == "1":
		h.Reason, h.Remedy = "the sandbox's proxy (srt) refused "+hostPart(host)+" ("+value+")", remedySrt
	default:
		h.Reason = "the sandbox's proxy refused " + hostPart(host) + " (" + value + ")"
		h.Remedy = "the agent sandbox's proxy allows only listed hosts: add the host to its allowlist (Claude Code: sandbox.network.allowedDomains; Codex: allowed_domains under [network_proxy.policy]); retrying cannot succeed"
	}
	if value == "blocked-by-method-policy" {
		h.Reason += ": the method is not allowed in this mode"
	}
	return h
}

// sandboxHeader classifies an HTTP answer a sandbox's proxy gave (its
// X-Proxy-Error header); nil when none did. (An x-deny-reason answer is
// the HTTP classifier's proxy-denied.)
func sandboxHeader(h http.Header, body string, ro runOpts) *Failure {
	if v := strings.ToLower(strings.TrimSpace(headerGet(h, "X-Proxy-Error"))); strings.HasPrefix(v, "blocked-by-") {
		x := proxyErrorHit(body, v, ro)
		f := New(x.Class, x.Code, x.Reason, x.Remedy, headerEvidence("X-Proxy-Error", v))
		f.Trace.Proxy = true
		return f
	}
	return nil
}

// networkCodes are the transient verdicts a firewall's silent refusal reads as.
var networkCodes = map[Code]bool{
	CodeDNS: true, CodeRefused: true, CodeReset: true, CodeConnectFailed: true, CodeUnreachable: true, CodeTransferCut: true, CodeEmptyReply: true,
}

// sandboxVerdict refines a verdict with the step's environment: a network
// failure under Copilot's agent firewall for a host it does not allow, any
// network failure in Codex's network-less sandbox, a proxy denial under
// AWF or srt (named with its own remedy).
func (c *ScanCtx) sandboxVerdict(f *Failure) *Failure {
	return envVerdict(f, c.Text, c.run)
}

func envVerdict(f *Failure, text string, ro runOpts) *Failure {
	if len(ro.env) == 0 {
		return f
	}
	env := ro.env
	switch {
	case env["CODEX_SANDBOX_NETWORK_DISABLED"] == "1" && (f.Class == Transient && networkCodes[f.Code] || f.Code == CodeEgressBlocked || f.Class == Unknown && reEPERM.MatchString(text)):
		g := New(Policy, CodeCodexNoNetwork, "Codex's sandbox has no network for this command ("+f.Reason+")", remedyCodexSandbox, f.Evidence...)
		g.Trace = f.Trace
		return g
	case strings.EqualFold(env["COPILOT_AGENT_FIREWALL_ENABLED"], "true") && f.Class == Transient && (networkCodes[f.Code] || f.Code == CodeTimeout && strings.Contains(text, "lookup ")):
		host := failingHost(text)
		if host != "" && copilotAllows(env, host) {
			return f
		}
		g := New(Policy, CodeCopilotFirewall, "the Copilot coding agent's firewall blocks "+hostPart(host)+" ("+f.Reason+")", remedyCopilotFW, f.Evidence...)
		g.Trace = f.Trace
		return g
	case isAWF(env) && f.Class == Transient && (f.Code == CodeTimeout || f.Code == CodeConnectFailed || f.Code == CodeRefused || f.Code == CodeUnreachable) && otherPort(text):
		// AWF lets only 80 and 443 out, through its proxy; other ports are
		// dropped, which reads as a timeout (an SSH remote hangs)
		g := New(Policy, CodeAWFDenied, "GitHub Agentic Workflows' firewall drops ports other than 80 and 443 ("+f.Reason+")",
			"AWF lets only HTTP(S) on ports 80 and 443 out, through its proxy: use an HTTPS remote or URL (git over SSH on port 22 cannot pass); retrying cannot succeed", f.Evidence...)
		g.Trace = f.Trace
		return g
	case f.Code == CodeProxyDenied && isAWF(env):
		host := failingHost(text)
		f.Reason += " (GitHub Agentic Workflows' firewall)"
		f.Remedy = awfRemedy(host)
	case f.Code == CodeProxyDenied && env["SANDBOX_RUNTIME"] == "1":
		f.Reason += " (Claude Code's sandbox runtime)"
		f.Remedy = remedySrt
	case f.Code == CodeProxyDenied && (env["CODEX_SANDBOX"] != "" || env["CODEX_SANDBOX_NETWORK_DISABLED"] != "" || env["CODEX_HOME"] != ""):
		f.Reason += " (Codex's network proxy)"
		f.Remedy = remedyCodexProxy
	}
	return f
}

var rePortInText = regexp.MustCompile(`(?i)\bport (\d{1,5})\b|[\w\].-]:(\d{1,5})\b`)

// otherPort reports whether the text's failing connection names a port
// other than 80 and 443.
func otherPort(text string) bool {
	for _, m := range rePortInText.FindAllStringSubmatch(text, 8) {
		p := m[1] + m[2]
		if p != "" && p != "80" && p != "443" {
			return true
		}
	}
	return false
}

// isAWF reports whether the environment is AWF's agent container.
func isAWF(env map[string]string) bool {
	if env["SQUID_PROXY_HOST"] != "" || strings.EqualFold(env["GITHUB_AW"], "true") {
		return true
	}
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		if v := env[k]; strings.Contains(v, "172.30.0.10") || strings.Contains(v, "squid-proxy") {
			return true
		}
	}
	return false
}

// copilotRecommended is a part of the Copilot coding agent's recommended
// allowlist (package registries and GitHub), used when only that list is on.
var copilotRecommended = []string{
	"github.com", "githubusercontent.com", "registry.npmjs.org", "npmjs.com", "npmjs.org", "yarnpkg.com", "pypi.org", "pythonhosted.org",
	"proxy.golang.org", "sum.golang.org", "golang.org", "crates.io", "rubygems.org", "nuget.org", "maven.org", "gradle.org", "docker.io", "docker.com", "ghcr.io",
}

// copilotAllows reports whether the agent firewall's allowlists hold host:
// COPILOT_AGENT_FIREWALL_ALLOW_LIST (comma-separated domains or URLs), the
// gzip+base64 COPILOT_AGENT_FIREWALL_RULESET_ALLOW_LIST (its domain-like
// words), and the recommended list when only that is on.
func copilotAllows(env map[string]string, host string) bool {
	var entries []string
	for _, k := range []string{"COPILOT_AGENT_FIREWALL_ALLOW_LIST", "COPILOT_AGENT_FIREWALL_ALLOW_LIST_ADDITIONS"} {
		entries = append(entries, strings.FieldsFunc(env[k], func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == ';' })...)
	}
	if rs := env["COPILOT_AGENT_FIREWALL_RULESET_ALLOW_LIST"]; rs != "" {
		entries = append(entries, decodeRuleset(rs)...)
	}
	if len(entries) == 0 || strings.EqualFold(env["COPILOT_AGENT_FIREWALL_ENABLE_RULESET_ALLOW_LIST"], "true") && env["COPILOT_AGENT_FIREWALL_RULESET_ALLOW_LIST"] == "" {
		entries = append(entries, copilotRecommended...)
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if i := strings.Index(e, "://"); i >= 0 {
			e = e[i+3:]
		}
		if i := strings.IndexAny(e, "/:"); i >= 0 {
			e = e[:i]
		}
		e = strings.TrimPrefix(strings.TrimPrefix(e, "*"), ".")
		if e != "" && (host == e || strings.HasSuffix(host, "."+e)) {
			return true
		}
	}
	return false
}

var reDomainWord = regexp.MustCompile(`(?i)[a-z0-9*](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+`)

// decodeRuleset returns the domain-like words of a gzip+base64 ruleset;
// none when it does not decode (its format is not documented).
func decodeRuleset(s string) []string {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(zr, 1<<20))
	if err != nil && len(b) == 0 {
		return nil
	}
	return reDomainWord.FindAllString(string(b), -1)
}
