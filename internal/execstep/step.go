// Package execstep runs a command as one retry step: the child's output is
// relayed live, its failure is classified, and it is stopped on timeout or
// cancellation together with its whole process group.
//
// # Processes
//
// Every attempt runs in a process group of its own, led by the command.
// An attempt is stopped when its bound comes near, or when retrywise is
// signalled, or when ctx is cancelled; the signal goes to the whole group,
// and SIGKILL to the whole group follows, whether or not the command itself
// has exited by then, so a shell's background job that ignores SIGINT or
// SIGTERM dies too. Attempt returns only when the group is empty or has
// been sent SIGKILL.
//
// Every bound includes the kill grace. An attempt's bound is the nearer of
// its Timeout and ctx's bound (clock.Remaining: --max-elapsed, a job's
// timeout:); the group gets SIGTERM the grace before it and SIGKILL at it.
// The grace is KillGrace (at most MaxKillGrace), shortened to half the
// time from the attempt's start to the bound when it is longer: a 2 s
// timeout with a 30 s grace sends SIGTERM at 1 s and SIGKILL at 2 s. An
// attempt stopped for ctx's bound returns at that bound, when ctx has ended.
//
// A signal retrywise receives (interrupt.Received, or ctx cancelled with an
// interrupt.Signal) is forwarded to the group at once, also during a grace
// begun for a bound or a cancellation, which it cuts: SIGKILL follows within
// cancelGrace (500 ms), so retrywise exits within a second. Every wait
// (the bound, the grace, the group's checks) is on Options.Clock.
//
// An attempt that ends on its own (its command exited, nothing stopped it)
// leaves its group alone: a process it started in the background on purpose
// (nohup server &) is the command's business, and output pipes it holds
// delay the attempt's end by at most 300 ms. Processes that leave the group
// (setsid, a daemon's double fork, setpgid) are out of reach in every case:
// retrywise does not become their subreaper (PR_SET_CHILD_SUBREAPER) nor
// use cgroups; run such commands in a container or a cgroup to bound them.
//
// # Step outputs
//
// With Options.OutputDir set, a step's outputs are what its command writes
// to the file named by $RETRYWISE_OUTPUT, in the GITHUB_OUTPUT format
// (internal/outputfile). Before each attempt n the step creates a fresh,
// empty OutputFile(OutputDir, n) and sets RETRYWISE_OUTPUT to its absolute
// path in the child's environment, replacing any inherited value. Only the
// attempt that succeeds counts: its file is parsed into Outputs and kept; a
// failed attempt's file is removed and its writes never show, so a retried
// step has no stale or duplicate outputs. "Succeeds" is the final verdict,
// Options.Classify's answer when it is set. A file the command removed holds
// no outputs. A file that cannot be parsed (a line in neither form, a
// heredoc never closed, more than outputfile.MaxSize bytes) fails an
// otherwise successful attempt as structural (failure.OutputFileInvalid),
// with a reason naming the line and never quoting the file. The file names
// depend only on the attempt number, so each step needs its own directory.
//
// # Scripts
//
// A job-file exec step (and later the GitHub Action) takes either a command,
// an argv list run as it is, or a script (run:). WriteScript writes the
// script to a file verbatim and ScriptCommand builds the argv that runs it,
// the way a workflow's run: step runs:
//
//	shell unset   bash --noprofile --norc -eo pipefail FILE, or sh -e FILE when
//	              there is no bash (GitHub's own unset default is bash -e FILE,
//	              without pipefail; its shell: bash is the line above)
//	shell: bash   bash --noprofile --norc -eo pipefail FILE
//	shell: sh     sh -e FILE
//	shell: TMPL   TMPL split on white space, every "{0}" replaced by FILE:
//	              "python3 {0}", "bash -x {0}"; no quoting, no shell parsing
//
// retrywise never expands ${VAR}, $$ or anything else in a script's text:
// every $ is the shell's. The interpreter (a template's first word) is
// resolved through PATH when the argv is built, so a missing one is an
// error before anything runs.
package execstep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/failure/teamrules"
	"github.com/retrywise/retrywise/internal/interrupt"
)

// Defaults for Options.
const (
	// DefaultKillGrace is how long a child has between SIGTERM and SIGKILL.
	DefaultKillGrace = 10 * time.Second
	// MaxKillGrace is the longest kill grace (--kill-grace) allowed: a grace
	// is a wait retrywise may have to sit through when its own bound comes.
	MaxKillGrace = 5 * time.Minute
	// DefaultMaxStdin is the most standard input kept for replay on retries (8 MiB).
	DefaultMaxStdin = 8 << 20
	// TailSize is how much of the child's output is kept for classification (64 KiB).
	TailSize = 64 << 10
	// cancelGrace is the kill grace when retrywise itself received SIGINT/SIGTERM.
	cancelGrace = 500 * time.Millisecond
	// pipeGrace bounds how long output pipes held open by a grandchild delay an attempt's end.
	pipeGrace = 300 * time.Millisecond
	// groupPoll is how often a stopped attempt's group is checked for survivors once its direct child exited.
	groupPoll = 20 * time.Millisecond
)

// Options configures a Step.
type Options struct {
	// Args is the command and its arguments; Args[0] is looked up in PATH.
	Args []string
	// Env is the child's environment; nil means retrywise's own.
	Env []string
	// Dir is the working directory; "" means the current one.
	Dir string
	// Stdin is given to the first attempt and replayed to later ones; nil means none.
	Stdin io.Reader
	// Stdout and Stderr receive the child's output live (the caller masks secrets).
	Stdout, Stderr io.Writer
	// LearnMask, when set, is given the VALUE of every ::add-mask::VALUE
	// line the child writes on stdout or stderr, as it arrives and before
	// the line is relayed or spooled (the caller registers it as a secret).
	LearnMask func(value string)
	// Timeout bounds each attempt; 0 means none.
	Timeout time.Duration
	// KillGrace is the wait between SIGTERM and SIGKILL to the group; 0 means
	// DefaultKillGrace, more than MaxKillGrace is an error (the field table of
	// internal/step bounds --kill-grace; New holds the cap again).
	// A bound's grace fits inside it: see stopPlan.
	KillGrace time.Duration
	// Clock times the stops (the Timeout, the kill grace, the group's
	// checks); nil means clock.Real.
	Clock clock.Clock
	// Tool says whose output this is for the recognisers; "" means auto.
	Tool failure.Tool
	// Rules are the user's --retry-on/--stop-on rules.
	Rules failure.Rules
	// Team are a team's rules (--rules), which decide before the built-in
	// recognisers; nil means none.
	Team *teamrules.Rules
	// MaxElapsed is the run's bound on the retry loop (--max-elapsed), for
	// the classifier: a stated wait longer than it is not transient; 0 means
	// failure.DefaultMaxElapsed.
	MaxElapsed time.Duration
	// MaxStdin is the replay buffer's size; 0 means DefaultMaxStdin.
	MaxStdin int
	// Classify, when set, is called after every attempt whose process ran;
	// its answer is the attempt's verdict (nil means success). Result.Err
	// holds the built-in verdict only for an attempt that did not exit on
	// its own (a bound or a signal stopped it, or it was killed): an exit
	// status is left to Classify, so that the output is scanned once.
	Classify ClassifyFunc
	// OutputDir, when set, is where each attempt gets a fresh $RETRYWISE_OUTPUT
	// file; give each step its own directory (see the package documentation).
	OutputDir string
	// AttemptFiles, when set, gives each attempt file commands of its own
	// (GITHUB_OUTPUT, GITHUB_ENV, ...), in a new folder per attempt, so that
	// after the loop AttemptFiles.Final holds the final attempt's writes
	// alone, whether it succeeded or not, and a process an earlier attempt
	// left behind cannot write into them.
	AttemptFiles *AttemptFiles
	// StdoutMode is live ("" too) or final: see StdoutFinal and WriteStdout.
	StdoutMode StdoutMode
	// StdoutMax bounds an attempt's spooled stdout in final mode; 0 means DefaultStdoutMax.
	StdoutMax int64
	// SpoolDir holds final mode's spool files; "" means the system's temporary folder.
	SpoolDir string
	// OnRetry is a clean-up run with sh -c before every retry (BeforeRetry); "" means none.
	OnRetry string
	// ContinueWith is run with sh -c instead of Args from the second attempt
	// on: a continuation, not a restart; "" means Args every time.
	ContinueWith string
	// ContextFrom, with one capture group, finds the context a continuation
	// needs in every line of stdout and stderr; the last match is given to
	// it as $RETRYWISE_CONTEXT. Without a match, CanRetry refuses the retry.
	ContextFrom *regexp.Regexp
}

// Step runs the command once per attempt; it implements retry.Step.
type Step struct {
	opts  Options
	stdin *replay
	out   *tail
	// Output is the tail of the last attempt's combined output.
	lastOutput string
	// lastExit is the last attempt's exit status; failure.NoExitCode when it did not exit.
	lastExit int
	// outputs are the last attempt's outputs; nil unless it succeeded with OutputDir set.
	outputs map[string]string
	// ctx holds the context pattern's last match across attempts; nil without ContextFrom.
	ctx *capture
	// kept is the last attempt's spooled stdout (final mode).
	kept *spool
	// stdoutWritten is what the last attempt wrote to stdout (live mode).
	stdoutWritten int64
	// notes are facts for the report (an incomplete stdout, a clean-up's failure).
	notes []string
}

// New validates opts and returns a Step; a missing executable is reported here,
// before anything runs.
func New(opts Options) (*Step, error) {
	if len(opts.Args) == 0 {
		return nil, errors.New("no command given: use retrywise exec [flags] -- CMD [ARGS...]")
	}
	if _, err := exec.LookPath(opts.Args[0]); err != nil {
		return nil, fmt.Errorf("cannot run %q: %w", opts.Args[0], err)
	}
	if opts.OutputDir != "" {
		dir, err := filepath.Abs(opts.OutputDir)
		if err != nil {
			return nil, fmt.Errorf("output directory: %w", err)
		}
		if st, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("output directory: %w", err)
		} else if !st.IsDir() {
			return nil, fmt.Errorf("output directory %s is not a directory", dir)
		}
		opts.OutputDir = dir
	}
	if opts.KillGrace <= 0 {
		opts.KillGrace = DefaultKillGrace
	}
	if opts.KillGrace > MaxKillGrace {
		return nil, fmt.Errorf("kill grace %s is above its cap of %s", opts.KillGrace, shortDur(MaxKillGrace))
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	switch opts.StdoutMode {
	case "":
		opts.StdoutMode = StdoutLive
	case StdoutLive, StdoutFinal:
	default:
		return nil, fmt.Errorf("invalid stdout mode %q: want live or final", opts.StdoutMode)
	}
	if opts.StdoutMax <= 0 {
		opts.StdoutMax = DefaultStdoutMax
	}
	if opts.ContextFrom != nil && opts.ContextFrom.NumSubexp() != 1 {
		return nil, fmt.Errorf("--context-from %q must have exactly one capture group, e.g. session id: (\\S+)", opts.ContextFrom)
	}
	if opts.MaxStdin <= 0 {
		opts.MaxStdin = DefaultMaxStdin
	}
	if opts.Tool == "" {
		opts.Tool = failure.ToolAuto
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	s := &Step{opts: opts, out: newTail(TailSize), lastExit: failure.NoExitCode}
	if opts.ContextFrom != nil {
		s.ctx = &capture{re: opts.ContextFrom}
	}
	if opts.Stdin != nil && !isTerminal(opts.Stdin) {
		s.stdin = newReplay(opts.Stdin, opts.MaxStdin)
	}
	return s, nil
}

// shortDur writes d without zero units: 5m, not 5m0s.
func shortDur(d time.Duration) string {
	s := d.String()
	if len(s) > 4 && s[len(s)-4:] == "m0s" {
		s = s[:len(s)-2]
	}
	if len(s) > 4 && s[len(s)-4:] == "h0m" {
		s = s[:len(s)-2]
	}
	return s
}

// isTerminal reports whether r is a character device (a terminal or /dev/null),
// which is handed to the child as it is: nothing to buffer, nothing to replay.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// LastOutput returns the kept tail of the last attempt's output.
func (s *Step) LastOutput() string { return s.lastOutput }

// LastExitCode returns the last attempt's exit status; failure.NoExitCode when
// it was killed by a signal or did not run.
func (s *Step) LastExitCode() int { return s.lastExit }

// CanRetry refuses a retry when standard input outgrew the replay buffer,
// and a continuation whose context pattern has found nothing.
func (s *Step) CanRetry(*failure.Failure) (bool, string) {
	if s.stdin != nil && s.stdin.Overflowed() {
		return false, fmt.Sprintf("standard input is larger than the %d MiB replay buffer, so a retry could not send the same input", s.opts.MaxStdin>>20)
	}
	if why := s.contextMissing(); why != "" {
		return false, why
	}
	return true, ""
}

// Notes are facts about the attempts worth a line in the report.
func (s *Step) Notes() []string { return slices.Clone(s.notes) }

// WriteStdout writes, in final mode, the last attempt's spooled stdout (the
// succeeding one's, or the last failed one's) to the Stdout option, once;
// in live mode it does nothing, the output having gone out as it came.
func (s *Step) WriteStdout() error {
	if s.kept == nil {
		return nil
	}
	defer func() { s.kept.close(); s.kept = nil }()
	_, err := s.kept.WriteTo(s.opts.Stdout)
	return err
}

// Close releases a spool WriteStdout did not write.
func (s *Step) Close() {
	if s.kept != nil {
		s.kept.close()
		s.kept = nil
	}
}

// Outputs returns what the last attempt wrote to $RETRYWISE_OUTPUT, by name
// (a later line wins); nil unless that attempt succeeded with OutputDir set.
func (s *Step) Outputs() map[string]string { return maps.Clone(s.outputs) }

// Attempt runs the command once and classifies a failure. With OutputDir
// set, the attempt's $RETRYWISE_OUTPUT file is read after a success and
// removed after a failure.
func (s *Step) Attempt(ctx context.Context, n int) error {
	s.outputs = nil
	env := s.opts.Env
	if n > 1 && s.opts.ContinueWith != "" && s.ctx != nil {
		if env == nil {
			env = os.Environ()
		}
		v, _ := s.ctx.get()
		env = setEnv(env, ContextVar, v)
	}
	if n > 1 && s.opts.StdoutMode == StdoutLive && s.stdoutWritten > 0 {
		fmt.Fprintf(s.opts.Stderr, "--- attempt %d (stdout of attempt %d above is incomplete) ---\n", n, n-1)
		s.notes = append(s.notes, fmt.Sprintf("stdout of attempt %d was relayed before it failed, so stdout holds its incomplete output before attempt %d's (--stdout live); use --stdout final to keep only the succeeding attempt's", n-1, n))
	}
	if s.opts.AttemptFiles != nil {
		if env == nil {
			env = os.Environ()
		}
		files, err := s.opts.AttemptFiles.fresh(n)
		if err != nil {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			env = setEnv(env, name, files[name])
		}
	}
	if s.opts.OutputDir == "" {
		return s.run(ctx, n, env)
	}
	path, err := freshOutputFile(s.opts.OutputDir, n)
	if err != nil {
		return err
	}
	if env == nil {
		env = os.Environ()
	}
	err = s.run(ctx, n, setEnv(env, OutputVar, path))
	if err == nil {
		s.outputs, err = s.readOutputs(ctx, path)
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// run starts attempt n's command with env once, waits for it and returns
// its verdict.
func (s *Step) run(ctx context.Context, n int, env []string) error {
	s.out.Reset()
	s.lastExit = failure.NoExitCode
	argv := s.opts.Args
	if n > 1 && s.opts.ContinueWith != "" {
		argv = []string{"sh", "-c", s.opts.ContinueWith}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, s.opts.Dir
	var stdout io.Writer
	var sp *spool
	var live *counter
	if s.opts.StdoutMode == StdoutFinal {
		sp = newSpool(s.opts.SpoolDir, s.opts.StdoutMax)
		stdout = sp
	} else {
		live = &counter{w: s.opts.Stdout}
		stdout = live
	}
	outW, errW := []io.Writer{stdout, s.out}, []io.Writer{s.opts.Stderr, s.out}
	if learn := s.opts.LearnMask; learn != nil {
		lOut, lErr := &maskLearner{learn: learn}, &maskLearner{learn: learn}
		outW, errW = append([]io.Writer{lOut}, outW...), append([]io.Writer{lErr}, errW...)
		defer lOut.flush()
		defer lErr.flush()
	}
	var mOut, mErr *lineMatcher
	if s.ctx != nil {
		mOut, mErr = &lineMatcher{c: s.ctx}, &lineMatcher{c: s.ctx}
		outW, errW = append(outW, mOut), append(errW, mErr)
	}
	cmd.Stdout = io.MultiWriter(outW...)
	cmd.Stderr = io.MultiWriter(errW...)
	defer func() {
		if mOut != nil {
			mOut.flush()
			mErr.flush()
		}
		if live != nil {
			s.stdoutWritten = live.written()
		}
		if sp != nil {
			if s.kept != nil {
				s.kept.close()
			}
			s.kept = sp
		}
	}()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = pipeGrace

	var feed *replayReader
	var stdinW *os.File
	switch {
	case s.stdin != nil:
		r, w, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("stdin pipe: %w", err)
		}
		cmd.Stdin, stdinW, feed = r, w, s.stdin.reader()
		defer r.Close()
	case s.opts.Stdin != nil:
		cmd.Stdin = s.opts.Stdin
	}

	if err := cmd.Start(); err != nil {
		if stdinW != nil {
			stdinW.Close()
		}
		return failure.CannotStart(s.opts.Args[0], err)
	}
	if feed != nil {
		go func() {
			io.Copy(stdinW, feed)
			stdinW.Close()
		}()
	}

	stop := s.plan(ctx)
	waited := make(chan struct{})
	watched := make(chan stopped, 1)
	go func() { watched <- s.watch(ctx, stop, cmd.Process.Pid, waited) }()
	werr := cmd.Wait()
	close(waited)
	st := <-watched
	if st.outer {
		// An outer bound (--max-elapsed, a job's timeout:) is reached at
		// stop.hard: the caller learns it from ctx, as it did before the grace
		// was taken inside the bound; the group is dead by then.
		s.waitBound(ctx, stop.hard)
	}
	if feed != nil {
		feed.close()
	}
	s.lastOutput = s.out.String()
	s.lastExit = failure.NoExitCode
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		s.lastExit = cmd.ProcessState.ExitCode()
	}

	var verdict error
	if s.opts.Classify == nil || !exitedOnItsOwn(ctx, cmd.ProcessState, st) {
		// With Classify set, an exit status is the caller's to read: the
		// output is scanned once, by the caller's recogniser.
		verdict = s.classify(ctx, cmd.ProcessState, werr, st)
	}
	if sp != nil && sp.overflowed {
		verdict = failure.StdoutTooLarge(s.opts.Args[0], s.opts.StdoutMax)
	} else if sp != nil && sp.err != nil {
		verdict = failure.OutputWrite("the command's stdout", sp.err, "free space in the temporary folder, or use --stdout live")
	}
	if s.opts.Classify != nil && cmd.ProcessState != nil {
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		return s.opts.Classify(ctx, s.result(ws, st, verdict))
	}
	return verdict
}

// stopPlan is when an attempt is stopped if nothing else stops it first.
type stopPlan struct {
	// hard is when the group is killed at the latest, on the Step's clock:
	// the nearer of the attempt's Timeout and ctx's bound (clock.Remaining);
	// zero when neither is set.
	hard time.Time
	// grace is the kill grace that fits before hard: KillGrace, at most half
	// the time from the attempt's start to hard.
	grace time.Duration
	// outer is true when hard is ctx's bound rather than the Timeout.
	outer bool
}

// plan works out the attempt's stop plan as it starts.
func (s *Step) plan(ctx context.Context) stopPlan {
	now := s.opts.Clock.Now()
	var p stopPlan
	if s.opts.Timeout > 0 {
		p.hard = now.Add(s.opts.Timeout)
	}
	if d, ok := clock.Remaining(ctx); ok && (p.hard.IsZero() || now.Add(d).Before(p.hard)) {
		p.hard, p.outer = now.Add(d), true
	}
	if !p.hard.IsZero() {
		p.grace = min(s.opts.KillGrace, p.hard.Sub(now)/2)
	}
	return p
}

// stopped is how watch stopped an attempt.
type stopped struct {
	// sent is the first signal sent to the group; 0 when nothing stopped it.
	sent syscall.Signal
	// timedOut is true when the Timeout stopped it.
	timedOut bool
	// outer is true when ctx's bound stopped it.
	outer bool
}

// watch stops the attempt's process group pgid when its bound comes near,
// when retrywise is signalled or when ctx is cancelled, and returns once the
// group is dealt with; it returns at once when the attempt ended on its own
// (waited closed first). Every wait is on the Step's clock.
//
// A bound (p.hard) is kept with the grace inside it: SIGTERM p.grace before
// it, SIGKILL at it. A signal retrywise receives (interrupt.Received, or a
// ctx cancelled with an interrupt.Signal) is forwarded to the group at once,
// also during a grace begun for another reason, and SIGKILL follows within
// cancelGrace. Any other cancellation of ctx sends SIGTERM, and SIGKILL
// after KillGrace or at the bound, whichever is first. The grace ends early
// when the group is empty.
func (s *Step) watch(ctx context.Context, p stopPlan, pgid int, waited <-chan struct{}) stopped {
	clk := s.opts.Clock
	signalled, sigOf := interrupt.Received(ctx)
	var term <-chan time.Time
	if !p.hard.IsZero() {
		t := clk.NewTimer(p.hard.Add(-p.grace).Sub(clk.Now()))
		defer t.Stop()
		term = t.C()
	}
	var st stopped
	var killAt time.Time
	forwarded := false
	done := ctx.Done()
	select {
	case <-waited:
		return st
	case <-term:
		st.sent, st.outer, st.timedOut = syscall.SIGTERM, p.outer, !p.outer
		killAt = p.hard
	case <-signalled:
		st.sent, forwarded = sigOf(), true
		killAt = clk.Now().Add(min(s.opts.KillGrace, cancelGrace))
	case <-done:
		done = nil
		now := clk.Now()
		if fwd, ok := interrupt.FromContext(ctx); ok {
			st.sent, forwarded = fwd, true
			killAt = now.Add(min(s.opts.KillGrace, cancelGrace))
			break
		}
		st.sent, killAt = syscall.SIGTERM, now.Add(s.opts.KillGrace)
		if !p.hard.IsZero() && p.hard.Before(killAt) {
			killAt = p.hard
		}
	}
	syscall.Kill(-pgid, st.sent)
	kill := clk.NewTimer(killAt.Sub(clk.Now()))
	var pollT clock.Timer
	defer func() {
		kill.Stop()
		if pollT != nil {
			pollT.Stop()
		}
	}()
	var poll <-chan time.Time
	for {
		select {
		case <-waited:
			// The direct child is gone; its group may live on without it.
			waited = nil
			if !groupAlive(pgid) {
				return st
			}
			pollT = clk.NewTimer(groupPoll)
			poll = pollT.C()
		case <-poll:
			if !groupAlive(pgid) {
				return st
			}
			pollT = clk.NewTimer(groupPoll)
			poll = pollT.C()
		case <-signalled:
			signalled = nil
			if !forwarded {
				forwarded = true
				killAt = s.cut(pgid, sigOf(), killAt, &kill)
			}
		case <-done:
			done = nil
			if fwd, ok := interrupt.FromContext(ctx); ok && !forwarded {
				forwarded = true
				killAt = s.cut(pgid, fwd, killAt, &kill)
			}
		case <-kill.C():
			syscall.Kill(-pgid, syscall.SIGKILL)
			return st
		}
	}
}

// cut forwards retrywise's signal sig to the group pgid during a grace and
// brings its end (killAt, timed by kill) to within cancelGrace from now.
func (s *Step) cut(pgid int, sig syscall.Signal, killAt time.Time, kill *clock.Timer) time.Time {
	syscall.Kill(-pgid, sig)
	clk := s.opts.Clock
	if at := clk.Now().Add(cancelGrace); at.Before(killAt) {
		(*kill).Stop()
		*kill = clk.NewTimer(cancelGrace)
		return at
	}
	return killAt
}

// waitBound waits, after an attempt stopped for ctx's bound, until ctx ends
// or the bound (hard, on the Step's clock) has passed.
func (s *Step) waitBound(ctx context.Context, hard time.Time) {
	if ctx.Err() != nil {
		return
	}
	t := s.opts.Clock.NewTimer(hard.Sub(s.opts.Clock.Now()))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C():
	}
}

// groupAlive reports whether process group pgid still has a member (one
// retrywise may not signal counts: it exists).
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) != syscall.ESRCH
}

// classify hands how the process ended to failure.FromProcess; ctx ends
// the matching of the team rules (a signal, --max-elapsed).
func (s *Step) classify(ctx context.Context, ps *os.ProcessState, werr error, st stopped) error {
	name := s.opts.Args[0]
	if ps == nil {
		return failure.NotRun(name, werr)
	}
	ws, _ := ps.Sys().(syscall.WaitStatus)
	if ps.Success() && !ws.Signaled() {
		// Success, even when a grandchild kept the output open past pipeGrace (exec.ErrWaitDelay).
		return nil
	}
	p := failure.Process{
		Name: name, Tool: s.opts.Tool, Text: s.lastOutput, ExitCode: failure.NoExitCode, Rules: s.opts.Rules, Team: s.opts.Team,
		Env: s.classifyEnv(), MaxElapsed: s.opts.MaxElapsed, Now: s.opts.Clock.Now(),
		TimedOut: st.timedOut, Timeout: s.opts.Timeout, Ctx: ctx,
	}
	switch {
	case ws.Exited():
		p.ExitCode = ws.ExitStatus()
	case ws.Signaled():
		p.Signal = sigName(ws.Signal())
	}
	return failure.FromProcess(p)
}

// exitedOnItsOwn reports whether the attempt's process exited with a
// status, neither stopped by a bound or a signal nor killed.
func exitedOnItsOwn(ctx context.Context, ps *os.ProcessState, st stopped) bool {
	if ps == nil || st.timedOut || ctx.Err() != nil {
		return false
	}
	ws, _ := ps.Sys().(syscall.WaitStatus)
	return ws.Exited()
}

// classifyEnv is the environment the child ran with, for the classifier
// (the sandbox or firewall it runs behind): Options.Env, else retrywise's own.
func (s *Step) classifyEnv() []string {
	if s.opts.Env != nil {
		return s.opts.Env
	}
	return os.Environ()
}

func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	}
	return s.String()
}
