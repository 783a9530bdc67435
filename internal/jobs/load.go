package jobs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/step"

	"github.com/goccy/go-yaml/ast"

	"github.com/retrywise/retrywise/internal/cronexpr"
	"github.com/retrywise/retrywise/internal/expand"
	"github.com/retrywise/retrywise/internal/hindsight"
)

// The job file's version this loader reads.
const fileVersion = 1

// The default job file paths, relative to the repository, in the order
// Find tries them.
const (
	defaultPath  = ".github/retrywise.yml"
	fallbackPath = "retrywise.yml"
)

// FindError reports that none of the default job file paths exists.
type FindError struct {
	// Dir is the folder searched.
	Dir string
	// Tried are the paths tried, in order.
	Tried []string
}

// Error names the paths tried.
func (e *FindError) Error() string {
	return fmt.Sprintf("no job file: neither %s exists (write one, or name it)", strings.Join(e.Tried, " nor "))
}

// Find returns the default job file under dir: .github/retrywise.yml, then
// retrywise.yml; a *FindError naming both when neither exists.
func Find(dir string) (string, error) {
	var tried []string
	for _, p := range []string{defaultPath, fallbackPath} {
		path := filepath.Join(dir, filepath.FromSlash(p))
		tried = append(tried, path)
		fi, err := os.Stat(path)
		switch {
		case err == nil && !fi.IsDir():
			return path, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
	}
	return "", &FindError{Dir: dir, Tried: tried}
}

// loader builds a File from the AST, collecting every error.
type loader struct {
	ctx  context.Context
	path string
	cat  Catalog
	errs Errors
	// warns are the file's warnings, given with a valid file.
	warns   Errors
	anchors anchors
	// fatal is the error that stops the loader (a limit crossed, the
	// context done): it is then the file's only error.
	fatal *Error
	// aliasNodes counts the nodes aliases stood for, against
	// MaxAliasNodes; sizes are the anchored nodes' sizes.
	aliasNodes int
	sizes      map[ast.Node]int
	// expanding are the mappings being read, to find merge cycles.
	expanding map[ast.Node]bool
}

// errorf records an error at p.
func (l *loader) errorf(p Pos, fix, format string, args ...any) {
	l.errs = append(l.errs, &Error{Path: l.path, Pos: p, Msg: fmt.Sprintf(format, args...), Fix: fix})
}

// warnf records a warning at p: what may be wrong but cannot be known
// before the run.
func (l *loader) warnf(p Pos, fix, format string, args ...any) {
	l.warns = append(l.warns, &Error{Path: l.path, Pos: p, Msg: fmt.Sprintf(format, args...), Fix: fix, Warning: true})
}

// Load parses and validates the job file src (read from path, which names
// it in errors) against cat. It returns the file, with its warnings
// (File.Warnings), or nil and every error sorted by position.
//
// The file is checked against the limits (MaxFileBytes, MaxDepth,
// MaxMappingKeys, MaxAliasNodes, MaxExprBytes, MaxExprDepth) before the
// work each bounds; past one, its error is the only one.
func Load(path string, src []byte, cat Catalog) (*File, Errors) {
	return load(context.Background(), path, src, cat)
}

// load is Load, which stops early when ctx is done.
func load(ctx context.Context, path string, src []byte, cat Catalog) (*File, Errors) {
	if len(src) > MaxFileBytes {
		return nil, Errors{sizeError(path, src)}
	}
	l := &loader{ctx: ctx, path: path, cat: cat, anchors: anchors{}, sizes: map[ast.Node]int{}, expanding: map[ast.Node]bool{}}
	docs, perr := parseYAML(path, src)
	if perr != nil {
		return nil, Errors{perr}
	}
	if len(docs) == 0 {
		l.errorf(Pos{1, 1}, "start the file with version: 1 and a jobs: mapping", "the file is empty")
		return nil, l.errs
	}
	for _, d := range docs[1:] {
		l.errorf(nodePos(d), "remove the extra document or move its jobs into the first", "a job file is one YAML document; this is another")
	}
	ast.Walk(l.anchors, docs[0])
	f := l.file(l.resolve(docs[0]), nodePos(docs[0]))
	if l.fatal != nil {
		return nil, Errors{l.fatal}
	}
	if len(l.errs) > 0 {
		return nil, l.finish()
	}
	f.Warnings = dedupe(l.warns)
	return f, nil
}

// finish sorts the errors and drops repeats of the same message at the
// same position.
func (l *loader) finish() Errors { return dedupe(l.errs) }

// dedupe sorts es and drops repeats of the same message at the same
// position.
func dedupe(es Errors) Errors {
	es.Sort()
	out := es[:0]
	for i, e := range es {
		if i > 0 && e.Pos == es[i-1].Pos && e.Msg == es[i-1].Msg {
			continue
		}
		out = append(out, e)
	}
	return out
}

// field is one key of a mapping in the file and how its value is read
// into T.
type field[T any] struct {
	name string
	read func(l *loader, e entry, into T)
}

// fieldNames are the fields' names in order.
func fieldNames[T any](fs []field[T]) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// readFields reads entries into into with the table fs, reporting unknown
// keys with unknown; it returns the keys seen.
func readFields[T any](l *loader, entries []entry, fs []field[T], into T, unknown func(e entry)) map[string]entry {
	seen := make(map[string]entry, len(entries))
	for _, e := range entries {
		found := false
		for _, f := range fs {
			if f.name == e.key {
				seen[e.key] = e
				f.read(l, e, into)
				found = true
				break
			}
		}
		if !found {
			unknown(e)
		}
	}
	return seen
}

// unknownKey reports an unknown key of where, naming the allowed keys.
func (l *loader) unknownKey(e entry, where string, allowed []string) {
	fix := didYouMean(e.key, allowed)
	if fix == "" {
		fix = "remove it, or use one of: " + strings.Join(allowed, ", ")
	}
	l.errorf(e.keyPos, fix, "unknown key %q in %s; allowed: %s", e.key, where, strings.Join(allowed, ", "))
}

// fileBuild is the top level being read.
type fileBuild struct {
	f        *File
	defaults defaultsBuild
}

// topFields are the keys of the file's top level.
func topFields() []field[*fileBuild] {
	return []field[*fileBuild]{
		{"version", (*loader).readVersion},
		{"defaults", (*loader).readDefaults},
		{"jobs", (*loader).readJobs},
	}
}

// file reads the top level.
func (l *loader) file(n ast.Node, pos Pos) *File {
	b := &fileBuild{f: &File{Path: l.path}}
	if _, ok := n.(ast.MapNode); !ok {
		l.errorf(pos, "start the file with version: 1 and a jobs: mapping", "a job file is a mapping with version: and jobs:, not %s", what(n))
		return nil
	}
	entries, _ := l.mapping(n, pos, "the top level")
	fs := topFields()
	// defaults are read before jobs, wherever they are written, since
	// steps inherit them.
	ordered := make([]entry, 0, len(entries))
	for _, e := range entries {
		if e.key == "defaults" {
			ordered = append(ordered, e)
		}
	}
	for _, e := range entries {
		if e.key != "defaults" {
			ordered = append(ordered, e)
		}
	}
	seen := readFields(l, ordered, fs, b, func(e entry) { l.unknownKey(e, "the top level", fieldNames(fs)) })
	if _, ok := seen["version"]; !ok {
		l.errorf(pos, "add version: 1 at the top", "missing version: (the file's format version, 1)")
	}
	if _, ok := seen["jobs"]; !ok {
		l.errorf(pos, "add a jobs: mapping of job names to their steps", "missing jobs:")
	}
	return b.f
}

// readVersion reads version:.
func (l *loader) readVersion(e entry, b *fileBuild) {
	sc, ok := l.scalar(e.val)
	if !ok || !sc.number {
		l.errorf(e.valPos, "write version: 1", "version: want the number 1, not %s", what(e.val))
		return
	}
	v, err := strconv.Atoi(sc.text)
	if err != nil || v != fileVersion {
		l.errorf(e.valPos, "write version: 1", "version %s is not supported; this retrywise reads version %d", sc.text, fileVersion)
		return
	}
	b.f.Version = v
}

// readJobs reads jobs:.
func (l *loader) readJobs(e entry, b *fileBuild) {
	entries, ok := l.mapping(e.val, e.valPos, "jobs")
	if !ok {
		return
	}
	if len(entries) == 0 {
		l.errorf(e.keyPos, "add a job: jobs: {NAME: {steps: [...]}}", "jobs: has no jobs")
		return
	}
	for _, je := range entries {
		if j := l.job(je, &b.defaults); j != nil {
			b.f.Jobs = append(b.f.Jobs, j)
		}
	}
}

// validID reports whether s is a step id or job name: a letter or _
// followed by letters, digits, _ and -.
func validID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && (c == '-' || '0' <= c && c <= '9'):
		default:
			return false
		}
	}
	return true
}

// jobBuild is a job being read.
type jobBuild struct {
	job      *Job
	defaults *defaultsBuild
	steps    []*stepBuild
}

// jobFields are the keys of a job. Adding a job key is one line here (and
// its reader and model field).
func jobFields() []field[*jobBuild] {
	return []field[*jobBuild]{
		{"steps", (*loader).readSteps},
		{"timeout", (*loader).readTimeout},
		{"env", (*loader).readJobEnv},
		{"cron", (*loader).readCron},
		{"timezone", (*loader).readTimezone},
		{"start-jitter", (*loader).readStartJitter},
		{"catch-up", (*loader).readCatchUp},
		{"preflight", (*loader).readPreflight},
		{"persist-after", func(l *loader, e entry, b *jobBuild) { l.readPersistAfter(e, &b.job.Persist) }},
		{"persist-span", func(l *loader, e entry, b *jobBuild) { l.readPersistSpan(e, &b.job.Persist) }},
	}
}

// scheduleFix tells a job's schedule: from the retry key of that name.
const scheduleFix = "the trigger is cron; retry waits are retry.schedule"

// job reads one job.
func (l *loader) job(e entry, d *defaultsBuild) *Job {
	b := &jobBuild{job: &Job{Name: e.key, Pos: e.keyPos, Location: time.UTC}, defaults: d}
	if !validID(e.key) {
		l.errorf(e.keyPos, "use letters, digits, _ and -, starting with a letter or _", "job name %q is not a name", e.key)
	}
	where := fmt.Sprintf("job %q", e.key)
	entries, ok := l.mapping(e.val, e.valPos, where)
	if !ok {
		return nil
	}
	fs := jobFields()
	seen := readFields(l, entries, fs, b, func(e entry) {
		if e.key == "schedule" {
			l.errorf(e.keyPos, scheduleFix, "unknown key %q in %s; allowed: %s", e.key, where, strings.Join(fieldNames(fs), ", "))
			return
		}
		l.unknownKey(e, where, fieldNames(fs))
	})
	if _, ok := seen["steps"]; !ok {
		l.errorf(e.keyPos, "add steps: a list of steps, each with an id and a kind", "job %q has no steps:", e.key)
	}
	if _, ok := seen["cron"]; !ok {
		for _, k := range []string{"timezone", "start-jitter", "catch-up"} { // meaningful with cron: only
			if ke, ok := seen[k]; ok {
				l.errorf(ke.keyPos, "add cron: with when the job runs, or remove "+k+":", "%s: applies to a scheduled job; job %q has no cron:", k, e.key)
			}
		}
	}
	l.checkSteps(b)
	return b.job
}

// readTimeout reads a job's timeout:.
func (l *loader) readTimeout(e entry, b *jobBuild) {
	sc, ok := l.scalar(e.val)
	if !ok || sc.null {
		l.errorf(e.valPos, "write a duration such as 20m", "timeout: want a duration, not %s", what(e.val))
		return
	}
	d, err := time.ParseDuration(sc.text)
	switch {
	case strings.Contains(sc.text, "${"):
		l.errorf(sc.pos, "write the duration itself, such as 20m", "timeout: ${...} does not expand in a duration; write the value")
	case err != nil:
		l.errorf(sc.pos, "write a duration such as 20m or 1h30m", "timeout: %q is not a duration", sc.text)
	case d <= 0:
		l.errorf(sc.pos, "write a positive duration such as 20m, or remove timeout: for none", "timeout: must be positive, got %s", sc.text)
	case d > MaxTimeout:
		l.errorf(sc.pos, "write a duration of at most 24h", "timeout: %s is over the limit of 24h", sc.text)
	default:
		b.job.Timeout = d
	}
}

// readCron reads a job's cron:, a list of expressions (a string is a list
// of one), each read by the scheduler's parser in the job's zone.
func (l *loader) readCron(e entry, b *jobBuild) {
	r := l.convert(&step.Field{Name: "cron", Type: step.List}, e)
	if r.bad {
		return
	}
	if len(r.items) == 0 {
		l.errorf(e.valPos, cronexpr.Fix, "cron: has no expressions")
		return
	}
	var out []string
	for _, sc := range r.items {
		if _, err := cronexpr.Parse(sc.text, time.UTC); err != nil {
			var ce *cronexpr.Error
			if errors.As(err, &ce) {
				l.errorf(sc.pos, ce.Fix, "cron: %q: %s", sc.text, ce.Msg)
			} else {
				l.errorf(sc.pos, cronexpr.Fix, "cron: %q: %v", sc.text, err)
			}
			continue
		}
		out = append(out, strings.TrimSpace(sc.text))
	}
	b.job.Cron = out
}

// readTimezone reads a job's timezone:, an IANA zone name.
func (l *loader) readTimezone(e entry, b *jobBuild) {
	r := l.convert(&step.Field{Name: "timezone", Type: step.String}, e)
	if r.bad {
		return
	}
	sc := r.items[0]
	const fix = "write an IANA zone name such as UTC, Europe/Paris or America/New_York"
	switch {
	case sc.text == "" || sc.text == "Local":
		l.errorf(sc.pos, fix, "timezone: %q is not a zone name (the machine's zone would decide)", sc.text)
		return
	case strings.Contains(sc.text, "${"):
		l.errorf(sc.pos, "write the zone itself", "timezone: ${...} does not expand in a zone; write the value")
		return
	}
	loc, err := time.LoadLocation(sc.text)
	if err != nil {
		l.errorf(sc.pos, fix, "timezone: %q is not a time zone: %v", sc.text, err)
		return
	}
	b.job.Location = loc
}

// readStartJitter reads a job's start-jitter:, a duration of 0 or more.
func (l *loader) readStartJitter(e entry, b *jobBuild) {
	r := l.convert(&step.Field{Name: "start-jitter", Type: step.Duration}, e)
	if r.bad {
		return
	}
	d, _ := time.ParseDuration(r.Values[0])
	if d < 0 {
		l.errorf(r.items[0].pos, "write a duration of 0 or more such as 30s", "start-jitter: must not be negative, got %s", r.Values[0])
		return
	}
	b.job.StartJitter = d
}

// readCatchUp reads a job's catch-up:.
func (l *loader) readCatchUp(e entry, b *jobBuild) {
	r := l.convert(&step.Field{Name: "catch-up", Type: step.Bool}, e)
	if !r.bad {
		b.job.CatchUp = r.Values[0] == "true"
	}
}

// readPersistAfter reads persist-after: (a job's or defaults'): 0 turns
// hindsight off, else 2 to hindsight.MaxAfter.
func (l *loader) readPersistAfter(e entry, k *PersistKeys) {
	r := l.convert(&step.Field{Name: "persist-after", Type: step.Int}, e)
	if r.bad {
		return
	}
	n, _ := strconv.Atoi(r.Values[0])
	if err := (hindsight.Rule{After: n}).Check("persist-after", "persist-span"); err != nil {
		l.errorf(r.items[0].pos, fmt.Sprintf("write 0 to turn hindsight off, or the runs (2 to %d) that must fail the same way", hindsight.MaxAfter), "%v", err)
		return
	}
	k.After = &n
}

// readPersistSpan reads persist-span: (a job's or defaults'), a duration
// of 0 to hindsight.MaxSpan.
func (l *loader) readPersistSpan(e entry, k *PersistKeys) {
	r := l.convert(&step.Field{Name: "persist-span", Type: step.Duration}, e)
	if r.bad {
		return
	}
	d, _ := time.ParseDuration(r.Values[0])
	if err := (hindsight.Rule{Span: d}).Check("persist-after", "persist-span"); err != nil {
		l.errorf(r.items[0].pos, "write a duration such as 6h", "%v", err)
		return
	}
	k.Span = &d
}

// readPreflight reads a job's preflight:.
func (l *loader) readPreflight(e entry, b *jobBuild) {
	r := l.convert(&step.Field{Name: "preflight", Type: step.Bool}, e)
	if !r.bad {
		b.job.Preflight = r.Values[0] == "true"
	}
}

// readJobEnv reads a job's env:.
func (l *loader) readJobEnv(e entry, b *jobBuild) {
	b.job.Env = l.env(e, fmt.Sprintf("job %q env", b.job.Name))
}

// env reads an env: mapping of NAME: scalar.
func (l *loader) env(e entry, where string) []EnvVar {
	entries, ok := l.mapping(e.val, e.valPos, where)
	if !ok {
		return nil
	}
	var out []EnvVar
	for _, ve := range entries {
		if !expand.ValidName(ve.key) {
			l.errorf(ve.keyPos, "use letters, digits and _, not starting with a digit", "%s: %q is not a variable name", where, ve.key)
			continue
		}
		sc, ok := l.scalar(ve.val)
		switch {
		case !ok:
			l.errorf(ve.valPos, "write the value as a string; quote it if needed", "%s: %s: want a string, not %s", where, ve.key, what(ve.val))
			continue
		case sc.null:
			l.errorf(ve.valPos, `write a value, or "" for an empty one`, "%s: %s: no value", where, ve.key)
			continue
		}
		out = append(out, EnvVar{Name: ve.key, Value: sc.text, Pos: sc.pos})
	}
	return out
}
