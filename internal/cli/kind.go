package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/retrywise/retrywise/internal/egress"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/jobs"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
)

// A step kind is defined once, by its command's flags: `retrywise KIND
// --flag` and a job file's `KIND: {flag: ...}` are parsed by the same flag
// set and resolved by the same function, so their names, defaults and
// validation cannot drift. The keys that are not flags are the command's
// positional arguments (kindDef.positional).

// The flags every step command shares that are not a kind's own keys in a
// job file: the retry flags live under retry:, the egress flags under
// defaults (one prober per run), and a run has one report.
var (
	retryFlagNames  = []string{"schedule", "max-attempts", "max-attempts-force", "max-elapsed", "retry-after-cap", "on-unknown"}
	egressFlagNames = []string{"egress-status-url", "egress-canary"}
	// runOnlyFlags are the command flags a job file does not take at all:
	// the run's report is `retrywise run --report`.
	runOnlyFlags = []string{"report"}
)

// csvFlags are the flags whose value is a comma-separated list: a job file
// takes the flag's syntax as a string or a YAML list.
var csvFlags = []string{"schedule", "expect", "retry-on-exit", "stop-on-exit"}

// kindDef is one step kind: its command's flags, positional arguments,
// outputs and how a resolved step runs.
type kindDef struct {
	// name is the command's name and the job file's kind key.
	name string
	// synopsis is the command's usage text.
	synopsis string
	// define registers the command's flags on fs (step flags included) and
	// returns what resolves them.
	define func(fs *flag.FlagSet) kindFlags
	// positional are the keys that stand for the command's positional
	// arguments, in the job file.
	positional []jobs.Key
	// args names the positional key whose values are the command's
	// arguments (http: url, push: args, probe: targets, exec: command); the
	// other positional keys are read by the resolved step (positionalSetter).
	args string
	// outputs are the kind's outputs; fixed is false when a step may have any.
	outputs []string
	fixed   bool
	// expands is true when ${...} expands in the kind's settings.
	expands bool
	// interspersed lets flags follow the positional arguments (http).
	interspersed bool
}

// kindFlags are a kind's parsed flags.
type kindFlags interface {
	// resolve validates the flags and the positional arguments into a step
	// ready to run; given reports whether a flag was set. Its errors name
	// the flag (--name) or are *jobs.SettingError naming a positional key.
	resolve(f *factory, pos []string, given func(name string) bool) (runnable, error)
}

// runnable is a resolved step.
type runnable interface {
	// options are the settings every step shares.
	options() *stepOptions
	// target names what the step runs or requests, for the plan and the report.
	target() string
	// run runs the step's retry loop with io; a *stepError means the step
	// could not start (a setting, a file): nothing was attempted.
	run(ctx context.Context, io *stepIO) (*report.Step, *stepError)
}

// stepError is a step that could not start: the exit code and the one-line reason.
type stepError struct {
	code int
	msg  string
}

// stepIO is what a running step writes to and reads from: a step command's
// own output, or the job run's.
type stepIO struct {
	stdin          io.Reader
	stdout, stderr *redact.Writer
	red            *redact.Redactor
	// env is the step's environment.
	env []string
	// progress prints one failed attempt that will be retried.
	progress func(a retry.Attempt, maxAttempts int)
	// attempting, when set, is called as each attempt starts, and what it
	// returns as the attempt ends (an action's log groups).
	attempting func(n, maxAttempts int) (ended func())
	// tempDir holds the step's files (scripts, output files); "" means the
	// system's temporary folder.
	tempDir string
	// expanded is true when the job runner already expanded ${...} in the
	// settings: they are used as they are.
	expanded bool
	// stdoutTerminal is true when the process's stdout is a terminal.
	stdoutTerminal bool
	// outputsOnly is true when the step's outputs are an action's outputs:
	// the step does not print them (http's fields).
	outputsOnly bool
}

// kinds returns the step kinds by name.
func kinds() []*kindDef {
	return []*kindDef{execKind(), pushKind(), httpKind(), probeKind(), githubQuotaKind()}
}

// parseKind parses a step command's flags and positional arguments with
// the kind's definition; a usage error is printed and exits 64.
func parseKind(f *factory, k *kindDef, args []string) (runnable, int, bool) {
	fs := newFlagSet(k.name, k.synopsis)
	kf := k.define(fs)
	var pos []string
	if k.interspersed {
		var code int
		var done bool
		if pos, code, done = f.parseInterspersed(fs, args); done {
			return nil, code, true
		}
	} else {
		if code, done := f.parse(fs, args); done {
			return nil, code, true
		}
		pos = fs.Args()
	}
	r, err := kf.resolve(f, pos, func(name string) bool { return flagSet(fs, name) })
	if err != nil {
		var se *jobs.SettingError
		if errors.As(err, &se) {
			return nil, f.fail(exitcode.Usage, se.Msg), true
		}
		return nil, f.fail(exitcode.Usage, f.redactor().String(err.Error())), true
	}
	return r, 0, false
}

// runKind runs a step command's resolved step with its own masked output
// and JSON report, and returns the exit code.
func runKind(ctx context.Context, f *factory, r runnable) int {
	so := r.options()
	o, err := f.output(so.masks, so.report)
	if err != nil {
		return f.fail(exitcode.Config, err.Error())
	}
	defer o.close()
	rep, serr := r.run(ctx, o.stepIO(f))
	if serr != nil {
		return o.fail(serr.code, serr.msg)
	}
	return o.finish(rep, f.clock.Now())
}

// stepCommand is a kind's subcommand: parse with the kind's flags, run.
func stepCommand(k *kindDef) func(context.Context, *factory, []string) int {
	return func(ctx context.Context, f *factory, args []string) int {
		r, code, done := parseKind(f, k, args)
		if done {
			return code
		}
		return runKind(ctx, f, r)
	}
}

// fileKey is one flag of a kind as the job file sees it.
type fileKey struct {
	jobs.Key
	// place says where the key goes: "step", "retry" or "defaults".
	place string
}

// fileKeys returns every flag of k's command with its place in a job
// file, and the flags a job file does not take (short aliases such as -X,
// and runOnlyFlags).
func (k *kindDef) fileKeys() (keys []fileKey, excluded []string) {
	fs := newFlagSet(k.name, k.synopsis)
	k.define(fs)
	fs.VisitAll(func(fl *flag.Flag) {
		switch {
		case len(fl.Name) == 1, contains(runOnlyFlags, fl.Name):
			excluded = append(excluded, fl.Name)
			return
		}
		key := jobs.Key{Name: fl.Name, Type: flagKeyType(fl), Usage: strings.ReplaceAll(fl.Usage, "\n", " "), Default: fl.DefValue}
		place := "step"
		switch {
		case contains(retryFlagNames, fl.Name):
			place = "retry"
		case contains(egressFlagNames, fl.Name):
			place = "defaults"
		}
		keys = append(keys, fileKey{key, place})
	})
	return keys, excluded
}

// flagKeyType is how a flag's value is written in a job file.
func flagKeyType(fl *flag.Flag) jobs.KeyType {
	if contains(csvFlags, fl.Name) {
		return jobs.KeyCSV
	}
	switch v := fl.Value.(type) {
	case *stringList:
		return jobs.KeyList
	case interface{ IsBoolFlag() bool }:
		if v.IsBoolFlag() {
			return jobs.KeyBool
		}
	}
	if g, ok := fl.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			return jobs.KeyInt
		case interface{ Seconds() float64 }:
			return jobs.KeyDuration
		}
	}
	return jobs.KeyString
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// catalog returns the job file's catalog: every kind, built over the run's
// factory and prober (one prober, one breaker registry per run), the keys
// of a retry: block and the run-wide keys of defaults.
func (f *factory) catalog(run *runServices) jobs.Catalog {
	var cat jobs.Catalog
	seen := map[string]bool{}
	for _, k := range kinds() {
		cat.Kinds = append(cat.Kinds, &fileKind{def: k, f: f, run: run})
		keys, _ := k.fileKeys()
		for _, fk := range keys {
			if seen[fk.place+"/"+fk.Name] {
				continue
			}
			seen[fk.place+"/"+fk.Name] = true
			switch {
			case fk.place == "retry":
				if fk.Name == "schedule" {
					fk.Default = "" // each kind has its own default schedule
				}
				cat.Retry = append(cat.Retry, fk.Key)
			case fk.place == "defaults", fk.Name == "breaker-threshold":
				cat.Run = append(cat.Run, fk.Key)
			}
		}
	}
	sort.Slice(cat.Retry, func(i, j int) bool { return cat.Retry[i].Name < cat.Retry[j].Name })
	sort.Slice(cat.Run, func(i, j int) bool { return cat.Run[i].Name < cat.Run[j].Name })
	return cat
}

// runServices are what every step of one job run shares.
type runServices struct {
	// prober is the run's one egress prober, with its per-host cache.
	prober *egress.Prober
}

// fileKind is a kind as the job file sees it (jobs.Kind).
type fileKind struct {
	def *kindDef
	f   *factory
	run *runServices
	// keys caches Keys: the loader asks for them for every step.
	keysOnce sync.Once
	keys     []jobs.Key
}

var _ jobs.Kind = (*fileKind)(nil)

// Name is the kind's key.
func (k *fileKind) Name() string { return k.def.name }

// Keys are the kind's flags that a step takes, then its positional keys.
func (k *fileKind) Keys() []jobs.Key {
	k.keysOnce.Do(func() {
		keys, _ := k.def.fileKeys()
		for _, fk := range keys {
			if fk.place == "step" {
				k.keys = append(k.keys, fk.Key)
			}
		}
		k.keys = append(k.keys, k.def.positional...)
	})
	return k.keys
}

// Outputs are the kind's outputs.
func (k *fileKind) Outputs() ([]string, bool) { return k.def.outputs, k.def.fixed }

// Expands reports whether ${...} expands in the kind's settings.
func (k *fileKind) Expands() bool { return k.def.expands }

// Prepare sets every setting on a fresh flag set of the kind's command and
// resolves it as the command does.
func (k *fileKind) Prepare(s jobs.Settings) (jobs.Prepared, error) {
	fs := newFlagSet(k.def.name, k.def.synopsis)
	fs.SetOutput(io.Discard)
	kf := k.def.define(fs)
	var pos []string
	for _, st := range s {
		if pk := k.positional(st.Key); pk != nil {
			if st.Key == k.def.args {
				pos = append(pos, st.Values...)
			}
			continue
		}
		if fs.Lookup(st.Key) == nil && contains(retryFlagNames, st.Key) {
			continue // a kind without retries (probe) ignores defaults.retry
		}
		for _, v := range st.Values {
			if err := fs.Set(st.Key, v); err != nil {
				return nil, &jobs.SettingError{Key: st.Key, Msg: flagSetMessage(err)}
			}
		}
	}
	given := func(name string) bool {
		_, ok := s.Get(name)
		return ok
	}
	r, err := kf.resolve(k.f, pos, given)
	if err != nil {
		return nil, settingError(err, fs)
	}
	if ps, ok := r.(positionalSetter); ok {
		if err := ps.setPositional(s); err != nil {
			return nil, err
		}
	}
	if k.run != nil && k.run.prober != nil {
		r.options().prober = k.run.prober
	}
	return &prepared{r: r, f: k.f}, nil
}

// positionalSetter is a resolved step that reads positional keys beyond its
// argument list (exec: run and shell).
type positionalSetter interface {
	setPositional(s jobs.Settings) error
}

func (k *fileKind) positional(key string) *jobs.Key {
	for i := range k.def.positional {
		if k.def.positional[i].Name == key {
			return &k.def.positional[i]
		}
	}
	return nil
}

// flagSetMessage is fs.Set's error without the flag package's wording.
func flagSetMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "parse error") {
		msg = msg[i+2:]
	}
	return msg
}

// flagNameInMessage finds the flags an error message names; it is compiled
// on first use, so that starting retrywise does not pay for it.
var flagNameInMessage = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--([a-z][a-z0-9-]*)`) })

// settingError turns a resolve error into a *jobs.SettingError naming the
// first flag its message names.
func settingError(err error, fs *flag.FlagSet) error {
	var se *jobs.SettingError
	if errors.As(err, &se) {
		return se
	}
	msg := err.Error()
	for _, m := range flagNameInMessage().FindAllStringSubmatch(msg, -1) {
		if fs.Lookup(m[1]) != nil {
			return &jobs.SettingError{Key: m[1], Msg: msg}
		}
	}
	return &jobs.SettingError{Msg: msg}
}

// prepared is a resolved step of a job (jobs.Prepared).
type prepared struct {
	r runnable
	f *factory
}

// Policy is the step's policy snapshot.
func (p *prepared) Policy() retry.Policy { return p.r.options().policy }

// Target names what the step runs.
func (p *prepared) Target() string { return p.r.target() }

// Run runs the step with the run's streams; a step that could not start is
// a failure with its exit code and reason, and no attempt.
func (p *prepared) Run(ctx context.Context, rt *jobs.Runtime) *report.Step {
	rt.Redactor.Add(p.r.options().masks...)
	io := &stepIO{stdin: rt.Stdin, stdout: rt.Stdout, stderr: rt.Stderr, red: rt.Redactor, env: rt.Env, progress: rt.Progress, attempting: rt.Attempting, tempDir: rt.TempDir, expanded: true,
		stdoutTerminal: p.f.stdoutTerminal()}
	rep, serr := p.r.run(ctx, io)
	if serr != nil {
		return report.NotRun(p.kind(), p.r.target(), serr.code, serr.msg, p.Policy())
	}
	return rep
}

func (p *prepared) kind() string {
	switch p.r.(type) {
	case *execOptions:
		return "exec"
	case *pushOptions:
		return "push"
	case *httpOptions:
		return "http"
	case *probeOptions:
		return "probe"
	case *quotaOptions:
		return "github-quota"
	}
	return fmt.Sprintf("%T", p.r)
}
