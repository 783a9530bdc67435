package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/retrywise/retrywise/internal/execstep"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/failure/teamrules"
	"github.com/retrywise/retrywise/internal/interrupt"
	"github.com/retrywise/retrywise/internal/options"
	"github.com/retrywise/retrywise/internal/redact"
)

const classifySynopsis = `Usage: retrywise classify [flags] < failure.txt

Explains a failure without running anything. The failure text (a tool's output
or an HTTP body) comes on stdin and may be empty; as for exec, only its last
64 KiB are kept and classified (stderr says so when more came). Always exits 0
with a classification; only malformed flags exit 64.

With --json it prints exactly one JSON object:
  {"class": "transient|policy|structural|absent|unknown", "code": "KIND",
   "decision": "retry|stop", "reason": "...", "remedy": "...", "evidence": ["..."]}
"code" is the stable kind of failure (git-non-fast-forward, proxy-denied,
http-429, ...; "unknown" only when nothing recognised it).`

// Classification is the stable JSON contract of `retrywise classify --json`.
type Classification struct {
	Class    failure.Class `json:"class"`
	Code     string        `json:"code"`
	Decision string        `json:"decision"`
	Reason   string        `json:"reason"`
	Remedy   string        `json:"remedy"`
	Evidence []string      `json:"evidence"`
	// Rule is where the team rule that decided is written (FILE:LINE);
	// absent when a built-in recogniser decided.
	Rule string `json:"rule,omitempty"`
}

// classifyOptions is what `retrywise classify` explains.
type classifyOptions struct {
	f *factory
	// input is the failure without its text, which run reads from stdin.
	input failure.Input
	// json prints one JSON object instead of the explanation.
	json bool
	// rulesFile is --rules, read by run (a FIFO's wait is the signal's to end).
	rulesFile string
}

// parseClassify parses `retrywise classify`'s flags into its options.
func parseClassify(f *factory, args []string) (*classifyOptions, int, bool) {
	var opt options.Classify
	fs := fieldFlagSet("classify", classifySynopsis, opt.Fields())
	pos, code, done := f.parse(fs, args)
	if done {
		return nil, code, true
	}
	if len(pos) > 0 {
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("unexpected argument %q: the failure text comes on stdin", pos[0])), true
	}
	t, err := failure.ParseTool(opt.Tool)
	if err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	h, err := parseHeaders(opt.Headers)
	if err != nil {
		return nil, f.fail(exitcode.Usage, err.Error()), true
	}
	if opt.Status != 0 && (opt.Status < 100 || opt.Status > 999) {
		return nil, f.fail(exitcode.Usage, fmt.Sprintf("invalid --status %d: want an HTTP status such as 503", opt.Status)), true
	}
	// classify has no run: it judges a stated wait against the default
	// max elapsed, so that its decision matches a step's
	in := failure.Input{Tool: t, ExitCode: opt.ExitCode, Status: opt.Status, Header: h, Method: strings.ToUpper(opt.Method), Env: f.env, Command: opt.Command, MaxElapsed: failure.DefaultMaxElapsed}
	return &classifyOptions{f: f, input: in, json: opt.JSON, rulesFile: opt.Rules}, 0, false
}

// runClassify reads the failure text from stdin and prints its
// classification, masked; it exits 0 unless stdin cannot be read.
func runClassify(ctx context.Context, opts *classifyOptions) int {
	f := opts.f
	if opts.rulesFile != "" {
		rs, err := teamrules.Load(ctx, opts.rulesFile)
		if ctx.Err() != nil {
			return f.fail(exitcode.ForCause(ctx), "cancelled while reading --rules: "+err.Error())
		}
		if err != nil {
			return f.fail(exitcode.Usage, "invalid --rules:\n  "+strings.ReplaceAll(err.Error(), "\n", "\n  "))
		}
		opts.input.Rules = rs
	}
	var text string
	var total int64
	err := interrupt.Do(ctx, func() error {
		t, n, err := readTail(f.stdin, classifyTail)
		text, total = t, n
		return err
	})
	if ctx.Err() != nil {
		return f.fail(exitcode.ForCause(ctx), "cancelled while reading stdin: "+context.Cause(ctx).Error())
	}
	if err != nil {
		return f.fail(exitcode.Usage, "cannot read stdin: "+err.Error())
	}
	if total > int64(len(text)) {
		fmt.Fprintf(f.stderr, "retrywise: classify read %s of input and classified its last %s (from the first whole line)\n", sizeText(total), sizeText(classifyTail))
	}
	in := opts.input
	in.Text, in.Ctx = text, ctx
	fl := failure.Classify(in)
	if ctx.Err() != nil {
		return f.fail(exitcode.ForCause(ctx), "cancelled while classifying: "+context.Cause(ctx).Error())
	}
	red := f.redactor()
	out := Classification{Class: fl.Class, Code: string(fl.Code), Decision: string(fl.Class.Decision()), Reason: red.String(fl.Reason), Remedy: red.String(fl.Remedy), Evidence: []string{}, Rule: fl.Rule}
	for _, e := range fl.Evidence {
		out.Evidence = append(out.Evidence, red.String(e))
	}
	if opts.json {
		b, _ := json.Marshal(out)
		fmt.Fprintf(f.stdout, "%s\n", b)
		return exitcode.OK
	}
	// The text is for a terminal: what it would act on (ESC sequences, other
	// controls) is shown escaped, as the JSON form escapes it too.
	fmt.Fprintf(f.stdout, "class:    %s\ncode:     %s\ndecision: %s (%s)\nreason:   %s\n", out.Class, out.Code, out.Decision, decisionWhy(fl), failure.Printable(out.Reason))
	for i, e := range out.Evidence {
		label := "evidence:"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(f.stdout, "%-9s %s\n", label, failure.Printable(e))
	}
	if out.Remedy != "" {
		fmt.Fprintf(f.stdout, "remedy:   %s\n", failure.Printable(out.Remedy))
	}
	if out.Rule != "" {
		fmt.Fprintf(f.stdout, "rule:     the team rule at %s\n", failure.Printable(out.Rule))
	}
	if fl.RetryAfter > 0 {
		fmt.Fprintf(f.stdout, "wait:     the server asked to wait %s\n", fl.RetryAfter)
	}
	return exitcode.OK
}

// classifyTail is how much of its stdin classify keeps: the tail, as exec
// keeps of a child's output (execstep.TailSize, 64 KiB).
const classifyTail = execstep.TailSize

// readTail reads r to its end and returns its last limit bytes or fewer: when
// r held more, the kept text starts after the first line break in them, so
// that its first line is whole; when they hold none, inside a line, marked
// with redact.Cut so that the redactor masks what the cut left of a secret.
// total is how many bytes r held. It holds at most 2*limit bytes plus a read
// buffer, whatever r's size.
func readTail(r io.Reader, limit int) (text string, total int64, err error) {
	buf := make([]byte, 0, 2*limit)
	chunk := make([]byte, 32<<10)
	for {
		n, rerr := r.Read(chunk)
		total += int64(n)
		for p := chunk[:n]; len(p) > 0; {
			room := cap(buf) - len(buf)
			if room == 0 {
				buf = append(buf[:0], buf[len(buf)-limit:]...)
				room = cap(buf) - len(buf)
			}
			k := min(room, len(p))
			buf = append(buf, p[:k]...)
			p = p[k:]
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return "", total, rerr
		}
	}
	if total <= int64(limit) {
		return string(buf), total, nil
	}
	kept := buf[len(buf)-limit:]
	if i := bytes.IndexByte(kept, '\n'); i >= 0 && i < len(kept)-1 {
		return string(kept[i+1:]), total, nil
	}
	if len(buf) > limit && buf[len(buf)-limit-1] == '\n' {
		return string(kept), total, nil // a whole line after all
	}
	return redact.Cut + string(kept), total, nil
}

// sizeText renders n bytes for people: "200 MiB", "64 KiB", "512 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// decisionWhy says why the class decides as it does: the structural claim
// (the same request gets the same answer) only for a decided stop; an
// unknown failure stops because nothing says a retry would help.
func decisionWhy(fl *failure.Failure) string {
	switch {
	case fl.Class == failure.Transient:
		return "sending the same request again may succeed"
	case fl.Class != failure.Unknown:
		return "sending the same request again would get the same answer"
	case fl.Recognised():
		return "not known to pass on a retry, so not retried; --on-unknown retry would retry it"
	}
	return "not recognised, so not retried; --on-unknown retry would retry it"
}

// parseHeaders parses "Name: value" flags into a header.
func parseHeaders(hs []string) (http.Header, error) {
	h := http.Header{}
	for _, raw := range hs {
		name, value, ok := strings.Cut(raw, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("invalid --header %q: want 'Name: value'", raw)
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}
