// Package execstep runs a command as one retry step: the child's output is
// relayed live, its failure is classified, and it is stopped on timeout or
// cancellation together with its whole process group.
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
	// Timeout bounds each attempt; 0 means none.
	Timeout time.Duration
	// KillGrace is the wait between SIGTERM and SIGKILL; 0 means DefaultKillGrace.
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

// CanRetry refuses a retry when standard input outgrew the replay buffer.
func (s *Step) CanRetry(*failure.Failure) (bool, string) {
	if s.stdin != nil && s.stdin.Overflowed() {
		return false, fmt.Sprintf("standard input is larger than the %d MiB replay buffer, so a retry could not send the same input", s.opts.MaxStdin>>20)
	}
	return true, ""
}

// Outputs returns what the last attempt wrote to $RETRYWISE_OUTPUT, by name
// (a later line wins); nil unless that attempt succeeded with OutputDir set.
func (s *Step) Outputs() map[string]string { return maps.Clone(s.outputs) }

// Attempt runs the command once and classifies a failure. With OutputDir
// set, the attempt's $RETRYWISE_OUTPUT file is read after a success and
// removed after a failure.
func (s *Step) Attempt(ctx context.Context, n int) error {
	s.outputs = nil
	if s.opts.OutputDir == "" {
		return s.run(ctx, s.opts.Env)
	}
	path, err := freshOutputFile(s.opts.OutputDir, n)
	if err != nil {
		return err
	}
	env := s.opts.Env
	if env == nil {
		env = os.Environ()
	}
	err = s.run(ctx, setEnv(env, OutputVar, path))
	if err == nil {
		s.outputs, err = s.readOutputs(path)
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// run starts the command with env once, waits for it and returns its verdict.
func (s *Step) run(ctx context.Context, env []string) error {
	s.out.Reset()
	s.lastExit = failure.NoExitCode
	cmd := exec.Command(s.opts.Args[0], s.opts.Args[1:]...)
	cmd.Env, cmd.Dir = env, s.opts.Dir
	cmd.Stdout = io.MultiWriter(s.opts.Stdout, s.out)
	cmd.Stderr = io.MultiWriter(s.opts.Stderr, s.out)
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
	go s.watch(attemptCtx, cmd.Process.Pid, waited, killed)
	werr := cmd.Wait()
	close(waited)
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
	if s.opts.Classify != nil && cmd.ProcessState != nil {
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		return s.opts.Classify(ctx, s.result(attemptCtx, ws, sent, verdict))
	}
	return verdict
}

// watch stops the process group when ctx ends: it forwards the signal that
// cancelled the run (SIGTERM on a timeout), then sends SIGKILL after the grace.
func (s *Step) watch(ctx context.Context, pid int, waited <-chan struct{}, killed chan<- syscall.Signal) {
	select {
	case <-waited:
		return
	case <-ctx.Done():
	}
	sig, grace := syscall.SIGTERM, s.opts.KillGrace
	if fwd, ok := interrupt.FromContext(ctx); ok {
		// retrywise itself is stopping: forward the signal, and keep the promise
		// to exit within a second even if the child ignores it.
		sig, grace = fwd, min(grace, cancelGrace)
	}
	killed <- sig
	syscall.Kill(-pid, sig)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-waited:
	case <-t.C:
		syscall.Kill(-pid, syscall.SIGKILL)
	}
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
