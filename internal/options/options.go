// Package options are the field tables (internal/step's Field, each bound
// to a variable that gives its type) of the commands that are not step
// kinds (run, validate, schedule, classify, explain, demo) and of the
// action's own inputs (the mode inputs and the common ones). The step
// kinds' tables are internal/step's; these are the one definition of every
// other flag and input, from which the flags, the docs and action.yml are
// generated.
package options

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/explain"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/hindsight"
	"github.com/retrywise/retrywise/internal/schedule"
	"github.com/retrywise/retrywise/internal/step"
)

// Docs of run's flags (the action's config mode takes --dry-run and
// --preflight as inputs, from run's table).
const (
	// dryRunDoc is the doc of run's --dry-run.
	dryRunDoc = "validate, resolve every policy and setting known before the run, print the plan, and send nothing"
	// preflightDoc is the doc of run's --preflight.
	preflightDoc = "before the first step, probe every host the job will touch (in parallel, through the egress proxy)\nand run nothing when one is denied: one report lists every denied host and the allowlist lines to add"
	configDoc    = "the job `FILE`; empty means .github/retrywise.yml, then retrywise.yml"
)

// Run are `retrywise run`'s settings.
type Run struct {
	Config, Job       string
	DryRun, Preflight bool
	Report, Summary   string
	History           string
	Persist           hindsight.Rule
}

// Fields is run's field table.
func (o *Run) Fields() []*step.Field {
	t := step.NewTable()
	step.Bind(t, step.Field{Name: "config", Doc: configDoc}, &o.Config)
	step.Bind(t, step.Field{Name: "job", Doc: "the job to run (`NAME`); empty means the file's only job"}, &o.Job)
	step.Bind(t, step.Field{Name: "dry-run", Doc: dryRunDoc}, &o.DryRun)
	step.Bind(t, step.Field{Name: "preflight", Doc: preflightDoc}, &o.Preflight)
	reportFields(t, &o.Report, &o.Summary)
	step.Bind(t, step.Field{Name: "history", NoInput: true, Doc: "keep the job's failures across runs (hindsight) in this history `DIR`, as schedule does; empty means run keeps no memory"}, &o.History)
	persistFields(t, &o.Persist)
	return t.Fields()
}

// persistFields are the hindsight flags of run and schedule.
func persistFields(t *step.Table, r *hindsight.Rule) {
	step.Bind(t, step.Field{Name: "persist-after", NoInput: true, Default: fmt.Sprint(hindsight.DefaultAfter), Min: "0", Max: fmt.Sprint(hindsight.MaxAfter),
		Doc: "after `K` runs (this one included) whose step failed the same transient-looking way, make one attempt and no retries; 0 turns it off; a job's persist-after: overrides it"}, &r.After)
	step.Bind(t, step.Field{Name: "persist-span", NoInput: true, Default: "0s", Min: "0s", Max: hindsight.MaxSpan.String(),
		Doc: "the least time the --persist-after failures must span, so a job every five minutes does not call a short outage persistent; a job's persist-span: overrides it"}, &r.Span)
}

// reportFields are the --report and --summary of run and demo.
func reportFields(t *step.Table, report, summary *string) {
	step.Bind(t, step.Field{Name: "report", Doc: "also write the run's report as JSON to `FILE` (docs/report.schema.json)"}, report)
	step.Bind(t, step.Field{Name: "summary", Doc: "also write the run's report as Markdown to `FILE`"}, summary)
}

// Validate are `retrywise validate`'s settings.
type Validate struct {
	Config, Format, Workflow string
}

// Fields is validate's field table.
func (o *Validate) Fields() []*step.Field {
	t := step.NewTable()
	step.Bind(t, step.Field{Name: "config", Doc: configDoc}, &o.Config)
	step.Bind(t, step.Field{Name: "format", Default: "text", Doc: "how errors are printed: text (FILE:LINE:COL: message) or json (one JSON array on stdout)"}, &o.Format)
	step.Bind(t, step.Field{Name: "workflow", Doc: "check the steps of this workflow `FILE` that use the retrywise action instead: input names, one mode, the config: job file"}, &o.Workflow)
	return t.Fields()
}

// Schedule are `retrywise schedule`'s settings.
type Schedule struct {
	Config, History, Listen, Job string
	Keep                         int
	Grace, LockWait              time.Duration
	Once                         bool
	Persist                      hindsight.Rule
}

// Fields is schedule's field table.
func (o *Schedule) Fields() []*step.Field {
	t := step.NewTable()
	step.Bind(t, step.Field{Name: "config", Doc: configDoc}, &o.Config)
	step.Bind(t, step.Field{Name: "history", Doc: "the history `DIR` of run reports (and the lock); empty means $XDG_STATE_HOME/retrywise, else ~/.local/state/retrywise"}, &o.History)
	step.Bind(t, step.Field{Name: "keep", Default: fmt.Sprint(schedule.DefaultKeep), Doc: "the reports kept per job in the history; older ones are removed"}, &o.Keep)
	step.Bind(t, step.Field{Name: "grace", Default: schedule.DefaultGrace.String(), Doc: "on SIGTERM, how long a running job may go on before it is cancelled (below Kubernetes' 30s termination grace)"}, &o.Grace)
	step.Bind(t, step.Field{Name: "listen", Doc: "serve /healthz and /metrics (Prometheus) on `ADDR`; a bare :PORT is 127.0.0.1:PORT; empty means off"}, &o.Listen)
	step.Bind(t, step.Field{Name: "once", Doc: "run the jobs that fell due since their last recorded run, once, and exit"}, &o.Once)
	step.Bind(t, step.Field{Name: "job", Doc: "with --once, run this job (`NAME`) now, whatever its cron"}, &o.Job)
	step.Bind(t, step.Field{Name: "lock-wait", Default: schedule.DefaultLockWait.String(), Doc: fmt.Sprintf("with --once --job, how long to wait for the history's lock another scheduler holds, then exit 75; 0 means do not wait; at most %s", schedule.MaxLockWait)}, &o.LockWait)
	persistFields(t, &o.Persist)
	return t.Fields()
}

// Classify are `retrywise classify`'s settings.
type Classify struct {
	Tool, Method, Rules, Command string
	ExitCode, Status             int
	Headers                      []string
	JSON                         bool
}

// Fields is classify's field table.
func (o *Classify) Fields() []*step.Field {
	t := step.NewTable()
	step.Bind(t, step.Field{Name: "tool", Default: string(failure.ToolAuto), Doc: "who printed the text: auto (from the text), http (an HTTP body), exec, or a tool:\n" + tools()}, &o.Tool)
	step.Bind(t, step.Field{Name: "exit-code", Default: fmt.Sprint(failure.NoExitCode), Doc: "the process's exit status; -1 means not known"}, &o.ExitCode)
	step.Bind(t, step.Field{Name: "status", Default: "0", Doc: "HTTP status of the response; 0 means not known"}, &o.Status)
	step.BindList(t, step.Field{Name: "header", Doc: "an HTTP response header as `'Name: value'` (repeatable)"}, &o.Headers)
	step.Bind(t, step.Field{Name: "method", Doc: "the HTTP request's method; empty means a lookup (GET)"}, &o.Method)
	step.Bind(t, step.Field{Name: "json", Doc: "print one JSON object instead of the explanation"}, &o.JSON)
	step.Bind(t, step.Field{Name: "rules", Doc: "a YAML `FILE` of team rules; the first that matches decides, before the built-in recognisers"}, &o.Rules)
	step.Bind(t, step.Field{Name: "command", Doc: "the `NAME` of the command that printed the text, which a team rule's tool: may name"}, &o.Command)
	return t.Fields()
}

// tools are the tools a text may come from, but auto, exec and http.
func tools() string {
	var names []string
	for _, n := range failure.ToolNames() {
		if !slices.Contains([]failure.Tool{failure.ToolAuto, failure.ToolExec, failure.ToolHTTP}, failure.Tool(n)) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// Explain are `retrywise explain`'s settings.
type Explain struct {
	Repo, Token     string
	Run             int64
	Attempt         int
	Rerun           bool
	MaxReruns       int
	Report, Summary string
	// Log is a run's log file read offline (--log): its archive or a job's .txt log.
	Log string
	// Workflow, Since, MaxRuns and MaxCalls explain the failed runs of a
	// window (--repo with --since) instead of one run.
	Workflow, Since   string
	MaxRuns, MaxCalls int
	// URL is the run's URL, the positional argument.
	URL []string
}

// Fields is explain's field table.
func (o *Explain) Fields() []*step.Field {
	t := step.NewTable()
	step.Bind(t, step.Field{Name: "repo", Doc: "the run's repository as `OWNER/REPO` (with --run, instead of a URL)"}, &o.Repo)
	step.Bind(t, step.Field{Name: "run", Default: "0", Doc: "the run's `ID` (with --repo)"}, &o.Run)
	step.Bind(t, step.Field{Name: "attempt", Default: "0", Doc: "the run's attempt `N` to explain; 0 means the latest"}, &o.Attempt)
	step.Bind(t, step.Field{Name: "token", Secret: true, Doc: "GitHub `TOKEN`; empty means $GITHUB_TOKEN, else $GH_TOKEN"}, &o.Token)
	step.Bind(t, step.Field{Name: "rerun", Doc: "re-run the failed jobs once when every failed step is transient"}, &o.Rerun)
	step.Bind(t, step.Field{Name: "max-reruns", Default: fmt.Sprint(explain.DefaultMaxReruns), Doc: "re-run only while the run's latest attempt is at most `N`"}, &o.MaxReruns)
	step.Bind(t, step.Field{Name: "report", Doc: "also write the report as JSON to `FILE` (docs/report.schema.json, kind explain; with --since, the table)"}, &o.Report)
	step.Bind(t, step.Field{Name: "summary", Doc: "also write the report as Markdown to `FILE` (with --since, the table and its chart)"}, &o.Summary)
	step.Bind(t, step.Field{Name: "log", Doc: "explain the run's log `FILE` offline, without a token or a network: the log archive downloaded from the run's page (.zip) or one job's .txt log"}, &o.Log)
	step.Bind(t, step.Field{Name: "since", Doc: "explain the failed runs of --repo created in the last `D` (7d, 36h; at most 90d) in one table, instead of one run"}, &o.Since)
	step.Bind(t, step.Field{Name: "workflow", Doc: "with --since: only the runs of the workflow `FILE` (ci.yml)"}, &o.Workflow)
	step.Bind(t, step.Field{Name: "max-runs", Default: fmt.Sprint(explain.DefaultMaxRuns), Doc: fmt.Sprintf("with --since: explain at most `N` runs, the newest (at most %d)", explain.MaxMaxRuns)}, &o.MaxRuns)
	step.Bind(t, step.Field{Name: "max-calls", Default: fmt.Sprint(explain.DefaultMaxCalls), Doc: fmt.Sprintf("with --since: make at most `N` API calls (at most %d)", explain.MaxMaxCalls)}, &o.MaxCalls)
	step.BindList(t, step.Field{Name: "url", Positional: true, Doc: "the failed run's URL: https://HOST/OWNER/REPO/actions/runs/ID[/attempts/N]"}, &o.URL)
	return t.Fields()
}

// Demo are `retrywise demo`'s settings.
type Demo struct {
	PrintConfig     bool
	Report, Summary string
}

// Fields is demo's field table.
func (o *Demo) Fields() []*step.Field {
	t := step.NewTable()
	step.Bind(t, step.Field{Name: "print-config", Doc: "print the embedded job file and exit"}, &o.PrintConfig)
	reportFields(t, &o.Report, &o.Summary)
	return t.Fields()
}

// Command returns a fresh field table of the command name (run, validate,
// schedule, classify, explain, demo), every field at its default; nil for
// another name.
func Command(name string) []*step.Field {
	var fields []*step.Field
	switch name {
	case "run":
		fields = (&Run{}).Fields()
	case "validate":
		fields = (&Validate{}).Fields()
	case "schedule":
		fields = (&Schedule{}).Fields()
	case "classify":
		fields = (&Classify{}).Fields()
	case "explain":
		fields = (&Explain{}).Fields()
	case "demo":
		fields = (&Demo{}).Fields()
	default:
		return nil
	}
	step.SetDefaults(fields)
	return fields
}

// Commands are the names Command knows.
var Commands = []string{"run", "validate", "schedule", "classify", "explain", "demo"}

// Action are the action's inputs that are not a step kind's or run's flags:
// the inputs that choose a mode or feed its arguments, and the common ones
// every mode takes.
type Action struct {
	Run, Shell, WorkingDirectory string
	Push                         bool
	PushArgs                     string
	URL                          string
	Config, Job                  string
	Explain                      string
	Rerun                        bool
	MaxReruns                    int
	Token                        string
	ReportIssue                  string
	StepSummary                  bool
	GitUserName, GitUserEmail    string
	PersistAfter, PersistSpan    string
	Matrix                       string
}

// ModeFields are the inputs that choose a mode or feed it, by mode name
// (run, push, url, config, explain).
func (o *Action) ModeFields() map[string][]*step.Field {
	t := step.NewTable()
	by := map[string][]*step.Field{}
	n := len(t.Fields())
	step.Bind(t, step.Field{Name: "run", Doc: "Mode run: a script, run as a workflow's run: is (bash --noprofile --norc -eo pipefail on a temporary file, so a failing line fails the attempt). What it writes to $GITHUB_OUTPUT, $GITHUB_ENV, $GITHUB_PATH and $GITHUB_STEP_SUMMARY reaches the workflow from the final attempt only."}, &o.Run)
	step.Bind(t, step.Field{Name: "shell", Doc: "Mode run: the script's shell: bash (default), sh, or a command template with {0} for the script's path."}, &o.Shell)
	step.Bind(t, step.Field{Name: "working-directory", Doc: "Mode run: the folder the script runs in; empty means the workspace."}, &o.WorkingDirectory)
	by["run"] = t.Fields()[n:]
	n = len(t.Fields())
	step.Bind(t, step.Field{Name: "push", Doc: "Mode push: true runs git push with push-args, retrying only network failures."}, &o.Push)
	step.Bind(t, step.Field{Name: "push-args", Doc: "Mode push: git push's arguments (remote, refspecs, options), separated by white space, e.g. origin HEAD:main."}, &o.PushArgs)
	by["push"] = t.Fields()[n:]
	n = len(t.Fields())
	step.Bind(t, step.Field{Name: "url", Doc: "Mode url: send an HTTP request to this URL, retrying only transient failures. The body is saved under $RUNNER_TEMP and named by the output body-file."}, &o.URL)
	by["url"] = t.Fields()[n:]
	n = len(t.Fields())
	step.Bind(t, step.Field{Name: "config", Doc: "Mode config: the job file to run (a job of many steps, one report)."}, &o.Config)
	step.Bind(t, step.Field{Name: "job", Doc: "Mode config: the job to run; empty means the file's only job."}, &o.Job)
	by["config"] = t.Fields()[n:]
	n = len(t.Fields())
	step.Bind(t, step.Field{Name: "explain", Doc: "Mode explain: a failed workflow run to explain (https://HOST/OWNER/REPO/actions/runs/ID[/attempts/N]), or event for the run of the workflow_run event that triggered this workflow. Each failed step is classified from its log; the token needs actions: read."}, &o.Explain)
	step.Bind(t, step.Field{Name: "rerun", Doc: "Mode explain: true re-runs the run's failed jobs once when every failed step is transient (needs actions: write); the run handed back exits 0. Not when each failed step failed the same way in the attempt before, or retrywise marked it persistent."}, &o.Rerun)
	step.Bind(t, step.Field{Name: "max-reruns", Doc: "Mode explain: re-run only while the run's latest attempt is at most this number. Empty means 2."}, &o.MaxReruns)
	by["explain"] = t.Fields()[n:]
	return by
}

// CommonFields are the inputs every mode takes that are not flags.
func (o *Action) CommonFields() []*step.Field {
	t := step.NewTable()
	step.Bind(t, step.Field{Name: "token", Default: "${{ github.token }}", Secret: true, Doc: "The token for the failure issue (report-issue) and for reading the branch rules that refused a push. Masked in every output."}, &o.Token)
	step.Bind(t, step.Field{Name: "report-issue", Default: "false", Doc: "On a final failure open (or comment on) one issue labelled retrywise, and close it on the next success: false, true, or force (also under act). Needs permissions: issues: write."}, &o.ReportIssue)
	step.Bind(t, step.Field{Name: "persist-after", Default: fmt.Sprint(hindsight.DefaultAfter), Doc: fmt.Sprintf("Hindsight, with report-issue: after K runs (this one included) whose step failed the same transient-looking way, make one attempt and no retries; 0 turns it off (2 to %d otherwise). The record lives in the failure issue, as a hidden marker of the issue's own author.", hindsight.MaxAfter)}, &o.PersistAfter)
	step.Bind(t, step.Field{Name: "persist-span", Default: "0s", Doc: "Hindsight: the least time the persist-after failures must span (a duration such as 6h)."}, &o.PersistSpan)
	step.Bind(t, step.Field{Name: "matrix", Default: "${{ toJSON(matrix) }}", Doc: "The job's matrix values, so that hindsight keeps one record per matrix leg; leave the default."}, &o.Matrix)
	step.Bind(t, step.Field{Name: "step-summary", Default: "true", Doc: "Append the Markdown report to the step summary ($GITHUB_STEP_SUMMARY): true or false."}, &o.StepSummary)
	step.Bind(t, step.Field{Name: "git-user-name", Doc: "The name of the commits a run: script or a job makes (GIT_AUTHOR_NAME, GIT_COMMITTER_NAME); empty means the repository's git config, else github-actions[bot]."}, &o.GitUserName)
	step.Bind(t, step.Field{Name: "git-user-email", Doc: "The email of the commits a run: script or a job makes (GIT_AUTHOR_EMAIL, GIT_COMMITTER_EMAIL); empty means the repository's git config, else 41898282+github-actions[bot]@users.noreply.github.com."}, &o.GitUserEmail)
	return t.Fields()
}
