package explain

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrywise/retrywise/internal/clock"
	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/redact"
	"github.com/retrywise/retrywise/internal/report"
)

// The bounds of a log file read offline (explain --log), checked while it
// is read: the archive's declared sizes are never trusted.
const (
	// MaxLogEntries bounds an archive's entries, counted in its central
	// directory before anything is inflated: past it, the archive is refused.
	MaxLogEntries = 10000
	// MaxLogInflated bounds what is inflated of an archive in all: past
	// it, the entries not read yet are not read, and the report says so.
	MaxLogInflated = 256 << 20
	// MaxLogEntry bounds what is inflated of one entry: past it, the rest
	// of that entry is not read, and its row says so.
	MaxLogEntry = 64 << 20
	// MaxLogText bounds a job's .txt log given alone: past it, the file is refused.
	MaxLogText = 256 << 20
	// MaxLogFailed bounds the failed steps explained: past it, the others
	// are counted, not classified, and the headline says so.
	MaxLogFailed = 1000
)

// LogLimits are the bounds of ExplainLog; a zero field means its default
// (MaxLogEntries, MaxLogInflated, MaxLogEntry, MaxLogText, MaxLogFailed).
type LogLimits struct {
	Entries      int
	Inflated     int64
	Entry        int64
	Text         int64
	FailedSteps  int
	maxGroups    int
	maxNameBytes int
}

func (l LogLimits) withDefaults() LogLimits {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.Inflated, MaxLogInflated)
	def(&l.Entry, MaxLogEntry)
	def(&l.Text, MaxLogText)
	if l.Entries <= 0 {
		l.Entries = MaxLogEntries
	}
	if l.FailedSteps <= 0 {
		l.FailedSteps = MaxLogFailed
	}
	l.maxGroups, l.maxNameBytes = 16, 256
	return l
}

// LogOptions configures ExplainLog.
type LogOptions struct {
	// Clock stamps the report; nil means the wall clock.
	Clock clock.Clock
	// Tail is how many bytes of each failed step's output are classified; 0 means DefaultTail.
	Tail int
	// Limits bound what is read.
	Limits LogLimits
}

// LogFile is the log file ExplainLog reads: a regular file (ReaderAt and
// Size), which may be a run's log archive or a job's log, or a stream (a
// FIFO, a pipe), which can only be a job's log.
type LogFile struct {
	// Name is the file's name as the user gave it.
	Name     string
	ReaderAt io.ReaderAt
	Size     int64
	// Stream is read once when ReaderAt is nil.
	Stream io.Reader
}

// LogError is a log file ExplainLog cannot read: its exit code (65 for a
// file that is not a log or is past a bound, the signal's when one
// stopped it) and why.
type LogError struct {
	Code int
	Msg  string
}

func (e *LogError) Error() string { return e.Msg }

// The runner's lines that ExplainLog reads.
var (
	errorMarker = []byte("##[error]")
	bom         = []byte("\xef\xbb\xbf")
	runMarker   = "Run "
	// jobEntry is a job's whole log in a run's archive: "N_job.txt" at
	// its top (N an ordinal, or a negative ID in older archives).
	jobEntry = regexp.MustCompile(`^(-?\d+)_(.+)\.txt$`)
	// stepEntry is one step's log: "job/N_step.txt" (N the step's number).
	stepEntry = regexp.MustCompile(`^([^/]+)/(\d+)_(.+)\.txt$`)
)

// firstStep names the lines of a job's log before its first "##[group]Run"
// marker: the runner's own step.
const firstStep = "Set up job"

// ExplainLog explains a failed run from its log file, offline: the log
// archive downloaded from the run's page (a zip of one "N_job.txt" whole
// log per job and a folder "job/" of "N_step.txt" logs per step) or one
// job's .txt log. A step failed when its log holds a line of the runner's
// "##[error]" (the runner's "##[error]Process completed with exit code N"
// for a run: step); its lines are its per-step file in an archive, else
// those from its "##[group]Run …" marker to the next one. Each failed step
// is classified as Explain does (the same rows, exit code and headline).
// A file that cannot be read as a log is a *LogError.
func ExplainLog(ctx context.Context, f LogFile, o LogOptions) (*Result, error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Tail <= 0 {
		o.Tail = DefaultTail
	}
	l := &logReader{ctx: ctx, o: o, lim: o.Limits.withDefaults(), raw: f.Name, name: failure.Printable(f.Name)}
	start := o.Clock.Now()
	var err error
	if f.ReaderAt != nil {
		err = l.file(f.ReaderAt, f.Size)
	} else {
		err = l.stream(f.Stream)
	}
	if err != nil && ctx.Err() == nil {
		var le *LogError
		if errors.As(err, &le) {
			return nil, le
		}
		return nil, &LogError{Code: exitcode.Structural, Msg: fmt.Sprintf("explain --log %s: %v", l.name, err)}
	}
	return l.result(start), nil
}

// logReader is one ExplainLog call.
type logReader struct {
	ctx context.Context
	o   LogOptions
	lim LogLimits
	// raw is the file's name as given; name is it printable.
	raw, name string
	rows      []*report.Step
	// failed counts the failed steps, those past FailedSteps included.
	failed int
	// inflated is what was inflated of the archive so far.
	inflated int64
	// unread are the archive's logs not read past the Inflated bound.
	unread, logs int
}

// refuse is a *LogError of exit 65 about the file.
func (l *logReader) refuse(format string, a ...any) error {
	return &LogError{Code: exitcode.Structural, Msg: fmt.Sprintf("explain --log %s: ", l.name) + fmt.Sprintf(format, a...)}
}

// file reads a regular file: an archive, or a job's log.
func (l *logReader) file(ra io.ReaderAt, size int64) error {
	head := make([]byte, min(size, 8<<10))
	if _, err := ra.ReadAt(head, 0); err != nil && err != io.EOF {
		return err
	}
	if isZip(head) {
		return l.archive(ra, size)
	}
	if err := l.isText(head); err != nil {
		return err
	}
	if size > l.lim.Text {
		return l.refuse("the job's log is %d bytes, over the bound of %s (a job's log given alone)", size, mib(l.lim.Text))
	}
	return l.text(&ctxReader{l.ctx, io.NewSectionReader(ra, 0, size)})
}

// stream reads a FIFO or a pipe: a job's log only.
func (l *logReader) stream(r io.Reader) error {
	br := bufio.NewReaderSize(&ctxReader{l.ctx, r}, maxLine)
	head, err := br.Peek(8 << 10)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return err
	}
	if isZip(head) {
		return l.refuse("a log archive is read from a regular file, not a pipe or FIFO: save it to a file first")
	}
	if err := l.isText(head); err != nil {
		return err
	}
	lr := &limitReader{r: br, max: l.lim.Text}
	if err := l.text(lr); err != nil {
		return err
	}
	if lr.over {
		return l.refuse("the job's log is over the bound of %s (a job's log given alone)", mib(l.lim.Text))
	}
	return nil
}

// isZip reports whether head starts as a zip archive does.
func isZip(head []byte) bool {
	for _, m := range []string{"PK\x03\x04", "PK\x05\x06", "PK\x07\x08"} {
		if bytes.HasPrefix(head, []byte(m)) {
			return true
		}
	}
	return false
}

// isText refuses a file that is neither an archive nor a text: empty, or
// with a NUL byte in its first 8 KiB (a gzip, an image, a binary).
func (l *logReader) isText(head []byte) error {
	switch {
	case len(head) == 0:
		return l.refuse("the file is empty: want the log archive of a run (a .zip) or a job's .txt log")
	case bytes.IndexByte(head, 0) >= 0:
		return l.refuse("neither a zip archive nor a text log (it holds NUL bytes): want the log archive of a run (a .zip) or a job's .txt log")
	}
	return nil
}

// text reads one job's log given alone, named for the file (its
// "N_" prefix and ".txt" taken off, as in an archive).
func (l *logReader) text(r io.Reader) error {
	base := filepath.Base(l.raw)
	job := strings.TrimSuffix(base, ".txt")
	if m := jobEntry.FindStringSubmatch(base); m != nil {
		job = m[2]
	}
	return l.jobLog(r, l.printable(job), l.name, nil)
}

// jobLog reads a job's whole log: its steps are split at the runner's
// "##[group]Run …" markers.
func (l *logReader) jobLog(r io.Reader, job, where string, entryCut func() string) error {
	return readSegments(r, firstStep, true, l.o.Tail, l.lim, func(s *segment) {
		l.segmentRow(job, s.name, where, s, entryCut)
	})
}

// segmentRow adds the row of a failed step's segment.
func (l *logReader) segmentRow(job, step, where string, s *segment, entryCut func() string) {
	if !s.failed {
		return
	}
	l.failed++
	if l.failed > l.lim.FailedSteps {
		return
	}
	r := stepRow(failedJob{Name: job, Target: fmt.Sprintf("%s (%s)", job, where),
		Outputs: map[string]any{"job": job, "step": step, "log": where}}, step, s.text(), s.groups)
	// Offline there is no run to re-run: --rerun is explain RUN_URL's.
	r.Remedy = strings.Replace(r.Remedy, "(--rerun does", "(explain RUN_URL --rerun does", 1)
	if s.upTo.total > int64(l.o.Tail) {
		r.Notes = append(r.Notes, fmt.Sprintf("the step's log was %d bytes; its last %d up to its last ##[error] line were classified", s.size(), l.o.Tail))
	}
	if entryCut != nil {
		if c := entryCut(); c != "" {
			r.Notes = append(r.Notes, c)
		}
	}
	l.rows = append(l.rows, r)
}

// archiveJob is one job of an archive: its whole log and its steps' logs.
type archiveJob struct {
	name  string
	order int64
	whole *zip.File
	steps []archiveStep
}

type archiveStep struct {
	n    int
	name string
	f    *zip.File
}

// archive reads a run's log archive.
func (l *logReader) archive(ra io.ReaderAt, size int64) error {
	if n, err := countEntries(ra, size, l.lim.Entries); err != nil {
		return err
	} else if n > l.lim.Entries {
		return l.refuse("the archive has more than %d entries (the bound): not a run's log archive, or one too large to explain", l.lim.Entries)
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return l.refuse("not a valid zip archive (%v): truncated or damaged? Download the run's logs again", err)
	}
	if len(zr.File) > l.lim.Entries {
		return l.refuse("the archive has %d entries, over the bound of %d", len(zr.File), l.lim.Entries)
	}
	jobs := map[string]*archiveJob{}
	get := func(name string) *archiveJob {
		j := jobs[name]
		if j == nil {
			j = &archiveJob{name: name, order: -1}
			jobs[name] = j
		}
		return j
	}
	for _, f := range zr.File {
		if m := stepEntry.FindStringSubmatch(f.Name); m != nil {
			n, _ := strconv.Atoi(m[2])
			j := get(m[1])
			j.steps = append(j.steps, archiveStep{n: n, name: m[3], f: f})
		} else if m := jobEntry.FindStringSubmatch(f.Name); m != nil {
			j := get(m[2])
			if j.whole == nil {
				j.whole = f
				if n, err := strconv.ParseInt(m[1], 10, 64); err == nil && n >= 0 {
					j.order = n
				}
			}
		}
	}
	order := make([]*archiveJob, 0, len(jobs))
	for _, j := range jobs {
		order = append(order, j)
		if len(j.steps) > 0 {
			l.logs += len(j.steps)
		} else {
			l.logs++
		}
	}
	if len(order) == 0 {
		return l.refuse("a zip archive, but not a run's log archive: no \"N_job.txt\" or \"job/N_step.txt\" entry")
	}
	slices.SortFunc(order, func(a, b *archiveJob) int {
		// Jobs in the archive's order (their whole log's ordinal), then
		// those with none by name.
		if (a.order < 0) != (b.order < 0) {
			if a.order < 0 {
				return 1
			}
			return -1
		}
		if a.order != b.order {
			return compare(a.order, b.order)
		}
		return strings.Compare(a.name, b.name)
	})
	for _, j := range order {
		job := l.printable(j.name)
		if len(j.steps) == 0 {
			if err := l.entry(j.whole, func(r io.Reader, cut func() string) error {
				return l.jobLog(r, job, l.where(j.whole), cut)
			}); err != nil {
				return err
			}
			continue
		}
		slices.SortStableFunc(j.steps, func(a, b archiveStep) int { return a.n - b.n })
		for _, st := range j.steps {
			step := l.printable(st.name)
			if err := l.entry(st.f, func(r io.Reader, cut func() string) error {
				return readSegments(r, step, false, l.o.Tail, l.lim, func(s *segment) {
					l.segmentRow(job, step, l.where(st.f), s, cut)
				})
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

func compare(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// printable is a name of the archive as data: printable, at most 256 bytes.
func (l *logReader) printable(s string) string {
	return redact.Clip(failure.Printable(s), l.lim.maxNameBytes)
}

// where names an entry of the archive in a row.
func (l *logReader) where(f *zip.File) string {
	return l.printable(f.Name) + " in " + l.name
}

// entry inflates one entry within the bounds (Entry, and what is left of
// Inflated), counted as it is read; an entry past the bound of the
// archive is not read, and counted in unread.
func (l *logReader) entry(f *zip.File, read func(r io.Reader, cut func() string) error) error {
	if l.inflated >= l.lim.Inflated {
		l.unread++
		return nil
	}
	rc, err := f.Open()
	if err != nil {
		return l.refuse("%s: %v", l.printable(f.Name), err)
	}
	defer rc.Close()
	lr := &limitReader{r: &ctxReader{l.ctx, rc}, max: min(l.lim.Entry, l.lim.Inflated-l.inflated)}
	cut := func() string {
		if !lr.over {
			return ""
		}
		if lr.max == l.lim.Entry {
			return fmt.Sprintf("its log (%s) was cut at %s, the bound of one entry inflated: what followed was not read", l.printable(f.Name), mib(l.lim.Entry))
		}
		return fmt.Sprintf("its log (%s) was cut at the bound of the archive inflated (%s): what followed was not read", l.printable(f.Name), mib(l.lim.Inflated))
	}
	err = read(lr, cut)
	l.inflated += lr.n
	if err != nil {
		return l.refuse("%s: %v", l.printable(f.Name), err)
	}
	return nil
}

// result is the explained log: its rows, exit code and headline, as Explain's.
func (l *logReader) result(start time.Time) *Result {
	rep := report.NewRun(Kind, start)
	rep.Steps = append(rep.Steps, l.rows...)
	res := &Result{Report: rep}
	var cuts []string
	if l.failed > l.lim.FailedSteps {
		cuts = append(cuts, fmt.Sprintf("%d failed steps were found; the first %d (the bound) were classified", l.failed, l.lim.FailedSteps))
	}
	if l.unread > 0 {
		cuts = append(cuts, fmt.Sprintf("the archive was cut at %s inflated (the bound): %d of its %d logs were not read", mib(l.lim.Inflated), l.unread, l.logs))
	}
	res.LogCut = strings.Join(cuts, "; ")
	code, headline := exitcode.OK, ""
	switch {
	case l.ctx.Err() != nil:
		// A signal stopped the reading: the record says cancelled, as
		// every command's does, with the rows read so far.
		code, headline = exitcode.ForCause(l.ctx), fmt.Sprintf("explain of %s cancelled (%v)", l.name, context.Cause(l.ctx))
	case len(rep.Steps) == 0 && l.unread > 0:
		code, headline = exitcode.Unknown, fmt.Sprintf("no failed step in what was read of %s, but %s, so the failed steps were not found", l.name, res.LogCut)
	case len(rep.Steps) == 0:
		headline = fmt.Sprintf("no failed step in %s (no line of the runner's ##[error]): nothing to explain", l.name)
	default:
		res.Worst, code, headline = summarise(rep.Steps)
		if res.LogCut != "" {
			headline += "; " + res.LogCut
		}
	}
	res.ExitCode, res.Headline = code, headline
	rep.Finish(l.o.Clock.Now(), code, headline)
	return res
}

// mib says a bound in MiB, or in bytes under one.
func mib(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// segment is one step's lines: an archive's per-step log, or the part of
// a job's log from one "##[group]Run" marker to the next.
type segment struct {
	name   string
	groups []string
	// failed is true when a line is the runner's ##[error].
	failed bool
	// upTo is the tail of the lines up to the last ##[error] line, since
	// the tail of those after it; both are kept within their limit.
	upTo, since *Tail
}

// text is the step's tail up to its last ##[error] line: what a later
// step (a post step's cleanup) printed is not its output.
func (s *segment) text() string { return s.upTo.String() }

// size is how many bytes the step's lines held.
func (s *segment) size() int64 { return s.upTo.total + s.since.total }

// readSegments reads a log's lines (the runner's timestamps taken off),
// keeping a tail of limit bytes of each segment, and calls emit with each
// segment at its end; with split, a "##[group]Run …" line starts a new
// segment named for its title (the name GitHub gives an unnamed run:
// step), the first one being named first. It never holds more than one
// tail and one line.
func readSegments(r io.Reader, first string, split bool, limit int, lim LogLimits, emit func(*segment)) error {
	cur := &segment{name: first, upTo: NewTail(limit), since: NewTail(limit)}
	br := bufio.NewReaderSize(r, maxLine)
	lineStart, inError := true, false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			body := chunk
			if lineStart {
				// The runner's log starts with a UTF-8 byte order mark
				// (each step's file, and a line here and there).
				chunk = bytes.TrimPrefix(chunk, bom)
				_, rest, _ := stamp(chunk)
				body = rest
				inError = bytes.HasPrefix(body, errorMarker)
				if title, ok := groupTitle(body); ok && strings.HasPrefix(title, runMarker) {
					if split {
						emit(cur)
						cur = &segment{name: redact.Clip(failure.Printable(title), lim.maxNameBytes), upTo: cur.upTo, since: cur.since}
						cur.upTo.Reset()
						cur.since.Reset()
					}
					if len(cur.groups) < lim.maxGroups {
						cur.groups = append(cur.groups, title)
					}
				}
			}
			cur.since.Write(body)
			if inError {
				cur.failed = true
				cur.upTo.Append(cur.since)
				cur.since.Reset()
			}
		}
		lineStart = err == nil
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			emit(cur)
			return nil
		default:
			return err
		}
	}
}

// ctxReader is a reader abandoned when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

// limitReader reads at most max bytes, counted as they are read; over is
// set when there was more.
type limitReader struct {
	r    io.Reader
	max  int64
	n    int64
	over bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n >= l.max {
		var one [1]byte
		if n, _ := io.ReadFull(l.r, one[:]); n > 0 {
			l.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.max-l.n {
		p = p[:l.max-l.n]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

// countEntries counts an archive's entries in its central directory, up
// to limit+1, before archive/zip reads them all: its count of entries is
// only checked modulo 65,536, so an archive could otherwise declare 10
// and hold millions. Both places archive/zip may start the directory at
// are counted; 0 when no end of directory is found (zip.NewReader then
// says the archive is not valid).
func countEntries(ra io.ReaderAt, size int64, limit int) (int, error) {
	const endLen, end64LocLen, end64Len, headerLen = 22, 20, 56, 46
	n := min(size, endLen+65535)
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return 0, err
	}
	at := -1
	for i := len(buf) - endLen; i >= 0; i-- {
		if string(buf[i:i+4]) == "PK\x05\x06" && i+endLen+int(le16(buf[i+20:])) <= len(buf) {
			at = i
			break
		}
	}
	if at < 0 {
		return 0, nil
	}
	e := buf[at:]
	records, dirSize, dirOff := uint64(le16(e[10:])), uint64(le32(e[12:])), uint64(le32(e[16:]))
	endOff := size - n + int64(at)
	if records == 0xffff || dirSize == 0xffffffff || dirOff == 0xffffffff {
		loc := make([]byte, end64LocLen)
		if endOff >= end64LocLen {
			if _, err := ra.ReadAt(loc, endOff-end64LocLen); err == nil && string(loc[:4]) == "PK\x06\x07" {
				p := int64(le64(loc[8:]))
				e64 := make([]byte, end64Len)
				if p >= 0 && p < size {
					if _, err := ra.ReadAt(e64, p); err == nil && string(e64[:4]) == "PK\x06\x06" {
						dirSize, dirOff, endOff = le64(e64[40:]), le64(e64[48:]), p
					}
				}
			}
		}
	}
	most := 0
	for _, start := range []int64{endOff - int64(dirSize), int64(dirOff)} {
		if start < 0 || start >= size {
			continue
		}
		br := bufio.NewReader(io.NewSectionReader(ra, start, size-start))
		h := make([]byte, headerLen)
		count := 0
		for count <= limit {
			if _, err := io.ReadFull(br, h); err != nil || string(h[:4]) != "PK\x01\x02" {
				break
			}
			count++
			if _, err := br.Discard(int(le16(h[28:])) + int(le16(h[30:])) + int(le16(h[32:]))); err != nil {
				break
			}
		}
		most = max(most, count)
	}
	return most, nil
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func le32(b []byte) uint32 { return uint32(le16(b)) | uint32(le16(b[2:]))<<16 }
func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }
