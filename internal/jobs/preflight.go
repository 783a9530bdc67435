package jobs

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/report"
)

// Preflight (preflight: true, run --preflight): before the first step,
// every host the job will touch is probed through the egress path, in
// parallel, and a denied one stops the run before anything is published.
// A host that depends on an earlier step's output (${steps...}) is probed
// when it becomes known, before its step.

// hostRef is one host a step will touch, with the client whose proxy
// rules reach it.
type hostRef struct {
	step   string
	kind   string
	client egress.Client
	target egress.Target
}

// hostsOf returns the hosts step st will touch, its settings expanded by
// expand; pending is true when a value names an output not known yet
// (expand leaves ${steps...} as written). Only the step's own targets are
// named: an http step's URL, a push's remote, a probe's targets, an exec
// step's hosts: or its one URL (its script's, or its argument's).
func hostsOf(ctx context.Context, st *Step, expand func(string) (string, error)) (refs []hostRef, pending bool) {
	kind := st.Kind.Name()
	values := func(key string) []string {
		s, ok := st.Settings.Get(key)
		if !ok {
			return nil
		}
		var out []string
		for _, v := range s.Values {
			x, err := expand(v)
			if err != nil || strings.Contains(x, "${") {
				// exec's command and script are not expanded: a ${f}
				// there is the shell's
				pending = pending || st.Kind.Expands()
				continue
			}
			out = append(out, x)
		}
		return out
	}
	add := func(client egress.Client, raw string) {
		t, err := egress.ParseTarget(raw)
		if err != nil {
			return
		}
		refs = append(refs, hostRef{step: st.ID, kind: kind, client: client, target: t})
	}
	switch kind {
	case "http":
		for _, u := range values("url") {
			add(egress.ClientGo, u)
		}
	case "probe":
		client := egress.ClientGo
		if c := values("client"); len(c) == 1 {
			if pc, err := egress.ParseClient(c[0]); err == nil {
				client = pc
			}
		}
		for _, t := range values("targets") {
			add(client, t)
		}
	case "push":
		dir := ""
		if d := values("dir"); len(d) == 1 {
			dir = d[0]
		}
		if u := pushRemoteURL(ctx, dir, values("args")); u != "" {
			add(egress.ClientGit, u)
		}
	case "exec":
		hosts := values("hosts")
		for _, h := range hosts {
			add(egress.ClientGo, h)
		}
		if len(hosts) > 0 {
			break
		}
		if run := values("run"); len(run) == 1 {
			if u := egress.ScriptURL(run[0]); u != "" {
				add(egress.ClientOf(strings.Fields(run[0])), u)
			}
		} else if cmd, ok := st.Settings.Get("command"); ok {
			if u := egress.URLFromArgs(cmd.Values); u != "" {
				add(egress.ClientOf(cmd.Values), u)
			}
		}
	}
	return refs, pending
}

// pushRemoteURL is the http(s) URL git push's arguments push to: the
// first argument that is not an option, a URL or a remote's name (origin
// when none is given), read with git remote get-url; "" when it is not
// http(s) or cannot be read.
func pushRemoteURL(ctx context.Context, dir string, args []string) string {
	remote := "origin"
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			remote = a
			break
		}
	}
	if strings.Contains(remote, "://") {
		return remote
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "remote", "get-url", "--push", remote)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	u := strings.TrimSpace(string(out))
	if l := strings.ToLower(u); strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
		return u
	}
	return ""
}

// denial is one denied host of a preflight.
type denial struct {
	ref    hostRef
	reason string
}

// probeHosts probes refs in parallel (ProbeAllIn per client, the clients
// at once) in env, and returns the denied ones in refs' order, each host
// once, with the number of probes sent.
func probeHosts(ctx context.Context, p *egress.Prober, env []string, refs []hostRef) (denied []denial, probes int) {
	byClient := map[egress.Client][]int{}
	seen := map[string]bool{}
	for i, r := range refs {
		key := string(r.client) + " " + r.target.Scheme + "://" + r.target.Addr()
		if seen[key] {
			continue
		}
		seen[key] = true
		byClient[r.client] = append(byClient[r.client], i)
	}
	results := make([]string, len(refs))
	denies := make([]bool, len(refs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for client, idx := range byClient {
		targets := make([]egress.Target, len(idx))
		for j, i := range idx {
			targets[j] = refs[i].target
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs := p.ProbeAllIn(ctx, env, client, targets)
			mu.Lock()
			defer mu.Unlock()
			for j, r := range rs {
				probes += r.Requests
				if r.Verdict == egress.Denied {
					denies[idx[j]], results[idx[j]] = true, r.Reason
				}
			}
		}()
	}
	wg.Wait()
	for i, r := range refs {
		if denies[i] {
			denied = append(denied, denial{ref: r, reason: results[i]})
		}
	}
	return denied, probes
}

// preflightReport is the one report of a preflight that found denied
// hosts: every denied host with the step that would touch it, then the
// allowlist lines to add.
// preflightSummary is the line of a preflight that ran: hosts, steps,
// time, requests, denials and steps probed later, each count singular when
// it is one.
func preflightSummary(hosts, steps int, took time.Duration, probes, denied, pending int) string {
	return fmt.Sprintf("preflight: %s of %s probed in %s (%s); %d denied; %s probed when they start",
		report.Count(hosts, "host"), report.Count(steps, "step"), took.Round(time.Millisecond), report.Count(probes, "request"), denied, report.Count(pending, "step"))
}

// isAre is the verb that agrees with a count of n.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func preflightReport(denied []denial, when string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "preflight: %s the job will touch %s denied by the egress proxy; %s\n", report.Count(len(denied), "host"), isAre(len(denied)), when)
	var hosts []string
	for _, d := range denied {
		fmt.Fprintf(&b, "  %s (step %s, %s): %s\n", d.ref.target.Addr(), d.ref.step, d.ref.kind, d.reason)
		if !slices.Contains(hosts, d.ref.target.Host) {
			hosts = append(hosts, d.ref.target.Host)
		}
	}
	b.WriteString("  add to the egress allowlist (one line each):\n")
	for _, h := range hosts {
		fmt.Fprintf(&b, "    %s\n", h)
	}
	return strings.TrimRight(b.String(), "\n")
}
