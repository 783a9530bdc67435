// Package execstep runs a command as one retry step: the child's output is
// relayed live, its failure is classified, and it is stopped on timeout or
// cancellation together with its whole process group.
//
// # Processes
//
// Every attempt runs in a process group of its own, led by the command.
// An attempt is stopped when its Timeout is reached (SIGTERM) or when ctx is
// cancelled (the signal retrywise received, else SIGTERM): the signal goes
// to the whole group, and SIGKILL to the whole group follows when KillGrace
// is over, whether or not the command itself has exited by then, so a shell's
// background job that ignores SIGINT or SIGTERM dies too. Attempt returns
// only when the group is empty or has been sent SIGKILL. When retrywise
// itself is signalled (interrupt.FromContext) the grace is at most 500 ms,
// also when the signal arrives during a timeout's grace, which it cuts
// short; either way retrywise exits within a second.
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

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/interrupt"
)

// Defaults for Options.
const (
	// DefaultKillGrace is how long a child has between SIGTERM and SIGKILL.
	DefaultKillGrace = 10 * time.Second
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
	// KillGrace is the wait between SIGTERM and SIGKILL to the group; 0 means DefaultKillGrace.
	KillGrace time.Duration
	// Tool says whose output this is for the recognisers; "" means auto.
	Tool failure.Tool
	// Rules are the user's --retry-on/--stop-on rules.
	Rules failure.Rules
	// MaxStdin is the replay buffer's size; 0 means DefaultMaxStdin.
	MaxStdin int
	// Classify, when set, is called after every attempt whose process ran,
	// with the built-in verdict in Result.Err; its answer replaces that
	// verdict (nil means success). Tool and Rules still shape Result.Err.
	Classify ClassifyFunc
	// OutputDir, when set, is where each attempt gets a fresh $RETRYWISE_OUTPUT
	// file; give each step its own directory (see the package documentation).
	OutputDir string
	// AttemptFiles maps environment variables to the files whose paths they
	// give the command (GITHUB_OUTPUT, GITHUB_ENV, ...): each attempt starts
	// with every one of them fresh and empty, so after the loop they hold
	// the final attempt's writes alone, whether it succeeded or not.
	AttemptFiles map[string]string
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
	if len(s.opts.AttemptFiles) > 0 {
		if env == nil {
			env = os.Environ()
		}
		for _, name := range slices.Sorted(maps.Keys(s.opts.AttemptFiles)) {
			path := s.opts.AttemptFiles[name]
			if err := freshFile(path); err != nil {
				return fmt.Errorf("$%s file: %w", name, err)
			}
			env = setEnv(env, name, path)
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
		s.outputs, err = s.readOutputs(path)
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

	attemptCtx := ctx
	var cancel context.CancelFunc = func() {}
	if s.opts.Timeout > 0 {
		attemptCtx, cancel = context.WithTimeout(ctx, s.opts.Timeout)
	}
	defer cancel()

	waited := make(chan struct{})
	killed := make(chan syscall.Signal, 1)
	watched := make(chan struct{})
	go func() {
		s.watch(ctx, attemptCtx, cmd.Process.Pid, waited, killed)
		close(watched)
	}()
	werr := cmd.Wait()
	close(waited)
	<-watched
	if feed != nil {
		feed.close()
	}
	s.lastOutput = s.out.String()
	s.lastExit = failure.NoExitCode
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		s.lastExit = cmd.ProcessState.ExitCode()
	}

	var sent syscall.Signal
	select {
	case sent = <-killed:
	default:
	}
	verdict := s.classify(ctx, attemptCtx, cmd.ProcessState, werr, sent)
	if sp != nil && sp.overflowed {
		verdict = failure.StdoutTooLarge(s.opts.Args[0], s.opts.StdoutMax)
	} else if sp != nil && sp.err != nil {
		verdict = failure.OutputWrite("the command's stdout", sp.err, "free space in the temporary folder, or use --stdout live")
	}
	if s.opts.Classify != nil && cmd.ProcessState != nil {
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		return s.opts.Classify(ctx, s.result(attemptCtx, ws, sent, verdict))
	}
	return verdict
}

// watch stops the attempt's process group pgid when attemptCtx ends (a
// timeout, or ctx cancelled) and returns once the group is dealt with; it
// returns at once when the attempt ended on its own (waited closed first).
//
// A stopped attempt's group gets the signal that cancelled the run (SIGTERM
// on a timeout or a cancellation without a signal), then SIGKILL when the
// grace is over, whether or not the direct child has exited by then: a
// background job that ignores the signal dies with the rest. The grace ends
// early when the group is empty. When retrywise itself is signalled during
// a timeout's grace, that signal is forwarded too and the grace is cut to
// cancelGrace from then, so the process still exits within a second.
func (s *Step) watch(ctx, attemptCtx context.Context, pgid int, waited <-chan struct{}, killed chan<- syscall.Signal) {
	select {
	case <-waited:
		return
	case <-attemptCtx.Done():
	}
	sig, grace := syscall.SIGTERM, s.opts.KillGrace
	parent := ctx.Done()
	if fwd, ok := interrupt.FromContext(attemptCtx); ok {
		// retrywise itself is stopping: forward the signal, and keep the promise
		// to exit within a second even if the child ignores it.
		sig, grace, parent = fwd, min(grace, cancelGrace), nil
	}
	killed <- sig
	syscall.Kill(-pgid, sig)
	deadline := time.Now().Add(grace)
	t := time.NewTimer(grace)
	defer t.Stop()
	var poll <-chan time.Time
	for {
		select {
		case <-waited:
			// The direct child is gone; its group may live on without it.
			waited = nil
			if !groupAlive(pgid) {
				return
			}
			tick := time.NewTicker(groupPoll)
			defer tick.Stop()
			poll = tick.C
		case <-poll:
			if !groupAlive(pgid) {
				return
			}
		case <-parent:
			parent = nil
			if fwd, ok := interrupt.FromContext(ctx); ok {
				syscall.Kill(-pgid, fwd)
				if cut := time.Now().Add(cancelGrace); cut.Before(deadline) {
					deadline = cut
					t.Reset(cancelGrace)
				}
			}
		case <-t.C:
			syscall.Kill(-pgid, syscall.SIGKILL)
			return
		}
	}
}

// groupAlive reports whether process group pgid still has a member (one
// retrywise may not signal counts: it exists).
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) != syscall.ESRCH
}

// classify hands how the process ended to failure.FromProcess.
func (s *Step) classify(ctx, attemptCtx context.Context, ps *os.ProcessState, werr error, sent syscall.Signal) error {
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
		Name: name, Tool: s.opts.Tool, Text: s.lastOutput, ExitCode: failure.NoExitCode, Rules: s.opts.Rules,
		TimedOut: sent != 0 && ctx.Err() == nil && attemptCtx.Err() == context.DeadlineExceeded, Timeout: s.opts.Timeout,
	}
	switch {
	case ws.Exited():
		p.ExitCode = ws.ExitStatus()
	case ws.Signaled():
		p.Signal = sigName(ws.Signal())
	}
	return failure.FromProcess(p)
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
