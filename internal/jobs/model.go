package jobs

import (
	"fmt"
	"time"

	"github.com/retrywise/retrywise/internal/failure/teamrules"
	"github.com/retrywise/retrywise/internal/hindsight"
)

// MaxTimeout is the longest timeout: a job may have (24h).
const MaxTimeout = 24 * time.Hour

// Pos is a position in the job file, 1-based.
type Pos struct {
	Line, Col int
}

// String renders "LINE:COL".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// File is a loaded, valid job file.
type File struct {
	// Path is the file's path as given.
	Path string
	// Version is the file's version (1).
	Version int
	// Defaults apply to every job and step.
	Defaults Defaults
	// Jobs are the file's jobs in file order.
	Jobs []*Job
	// Warnings are what may be wrong but cannot be known before the run
	// (a reference to the outputs of a script without outputs:), sorted
	// by position; each has Warning set.
	Warnings Errors
}

// Job returns the job named name, or nil.
func (f *File) Job(name string) *Job {
	for _, j := range f.Jobs {
		if j.Name == name {
			return j
		}
	}
	return nil
}

// Defaults are the file's run-wide settings.
type Defaults struct {
	// Retry are the retry keys every step starts from (schedule,
	// max-attempts, max-elapsed, retry-after-cap, on-unknown).
	Retry Settings
	// Run are the run-wide keys: the egress flags (one prober per run) and
	// the breaker flags, which steps of kinds that have them inherit.
	Run Settings
	// Secrets name environment variables whose values are masked everywhere.
	Secrets []string
	// Rules are the team rules written inline (defaults.rules as a list):
	// they decide before a step's own rules file and the built-in
	// recognisers; nil means none.
	Rules *teamrules.Rules
	// Persist is defaults' persist-after and persist-span (hindsight).
	Persist PersistKeys
}

// PersistKeys are the hindsight keys a job or defaults: may set:
// persist-after (K) and persist-span; nil means not set there.
type PersistKeys struct {
	After *int
	Span  *time.Duration
}

// PersistRule is job's hindsight rule: its persist-after and persist-span,
// else defaults', else base (the command line's, --persist-after and
// --persist-span).
func (f *File) PersistRule(job *Job, base hindsight.Rule) hindsight.Rule {
	r := base
	for _, k := range []PersistKeys{f.Defaults.Persist, job.Persist} {
		if k.After != nil {
			r.After = *k.After
		}
		if k.Span != nil {
			r.Span = *k.Span
		}
	}
	return r
}

// EnvVar is one entry of an env: map, in file order.
type EnvVar struct {
	// Name is the variable's name.
	Name string
	// Value is the value as written; ${...} expands when the step starts.
	Value string
	// Pos is where the value is written.
	Pos Pos
}

// Job is one job: steps run in order.
type Job struct {
	// Name is the job's key under jobs:.
	Name string
	// Pos is where the job's key is written.
	Pos Pos
	// Timeout bounds the whole job, at most MaxTimeout; 0 means none.
	Timeout time.Duration
	// Env is the job's env:, given to every step.
	Env []EnvVar
	// Steps run in order.
	Steps []*Step
	// Cron are the job's cron: expressions (five fields or a descriptor),
	// valid for the scheduler; none means the job is not scheduled.
	Cron []string
	// Location is the zone of timezone: the expressions are read in; UTC by default.
	Location *time.Location
	// StartJitter is start-jitter:, the most a scheduled start is delayed by at random.
	StartJitter time.Duration
	// CatchUp is catch-up:: run once at the scheduler's start when a due run was missed.
	CatchUp bool
	// Preflight is preflight:: before the first step, probe every host the
	// job will touch, and run nothing when one is denied.
	Preflight bool
	// Persist is the job's persist-after and persist-span (hindsight).
	Persist PersistKeys
}

// Step is one step of a job.
type Step struct {
	// ID is the step's unique id.
	ID string
	// Pos is where the step starts (its "- " item).
	Pos Pos
	// Kind is the step's kind.
	Kind Kind
	// KindPos is where the kind's key is written.
	KindPos Pos
	// Prepared is the step prepared once, when the file was loaded: the
	// plan and the run use it.
	Prepared Prepared
	// Settings are the kind's keys as written, then the retry keys
	// (defaults.retry overridden key by key by the step's retry:), then
	// the defaults.Run keys the kind has and the step does not set.
	Settings Settings
	// If decides whether the step runs; nil means success().
	If *Condition
	// ContinueOnError lets the job go on, and not fail, when the step fails.
	ContinueOnError bool
	// Env is the step's env:, after the job's.
	Env []EnvVar
}

// Condition is a step's compiled if: expression.
type Condition struct {
	// Source is the expression as written.
	Source string
	// Pos is where it is written.
	Pos Pos
	// eval evaluates the compiled program against a state.
	eval func(State) (bool, error)
	// status is true when the expression calls a status function
	// (success, failure, always, cancelled); otherwise success() is implied.
	status bool
}

// Eval evaluates the condition in s.
func (c *Condition) Eval(s State) (bool, error) { return c.eval(s) }
