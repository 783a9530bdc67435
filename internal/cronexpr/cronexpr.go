// Package cronexpr reads the cron expressions of job files with the parser
// gocron schedules them with (robfig/cron v3's standard parser), so that an
// expression the loader accepts is one the scheduler runs.
package cronexpr

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Fix is the fix of an expression the parser rejects.
const Fix = `write five fields (minute hour day-of-month month day-of-week) such as "*/15 * * * *", ` +
	"or a descriptor: @hourly, @daily, @weekly, @monthly, @yearly, @every 10m"

// Error is an expression that cannot be scheduled, with how to fix it.
type Error struct {
	// Expr is the expression as written.
	Expr string
	// Msg says what is wrong (the parser's message when it rejected it).
	Msg string
	// Fix says how to fix it.
	Fix string
}

// Error returns "cron "EXPR": MSG".
func (e *Error) Error() string { return fmt.Sprintf("cron %q: %s", e.Expr, e.Msg) }

// probe is the time Parse asks an expression's next run from, to find the
// ones that never fire (the parser looks five years ahead); fixed, so that
// loading a file does not depend on the day.
func probe() time.Time { return time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC) }

// Parse reads expr in loc (nil: UTC): five fields or a descriptor, never a
// TZ= prefix (the zone is loc), "@every" at least 1s, and an expression
// that fires at least once. Errors are *Error.
func Parse(expr string, loc *time.Location) (cron.Schedule, error) {
	text := strings.TrimSpace(expr)
	fail := func(fix, format string, args ...any) (cron.Schedule, error) {
		return nil, &Error{Expr: expr, Msg: fmt.Sprintf(format, args...), Fix: fix}
	}
	switch {
	case text == "":
		return fail(Fix, "no expression")
	case strings.HasPrefix(text, "TZ=") || strings.HasPrefix(text, "CRON_TZ="):
		return fail("write the zone as the job's timezone: and keep the five fields here", "the expression sets its own zone")
	case strings.Contains(text, "${"):
		return fail("write the expression itself", "${...} does not expand in a cron expression")
	}
	if every, ok := strings.CutPrefix(text, "@every "); ok {
		d, err := time.ParseDuration(strings.TrimSpace(every))
		if err == nil && d < time.Second {
			return fail("write @every with a duration of 1s or more, such as @every 10m", "@every %s is shorter than the parser's 1s", strings.TrimSpace(every))
		}
	}
	zoned, err := WithZone(text, loc)
	if err != nil {
		return nil, err
	}
	s, err := cron.ParseStandard(zoned)
	if err != nil {
		return fail(Fix, "%v", err)
	}
	if s.Next(probe()).IsZero() {
		return fail("check the day of month against the month (30 2 is February 30th)", "the expression never fires")
	}
	return s, nil
}

// WithZone returns expr prefixed with CRON_TZ= and loc's name (nil: UTC),
// the form gocron.CronJob and the parser read a zone in; a zone that
// cannot be loaded by its name is an *Error.
func WithZone(expr string, loc *time.Location) (string, error) {
	if loc == nil {
		loc = time.UTC
	}
	name := loc.String()
	if _, err := time.LoadLocation(name); err != nil || strings.ContainsAny(name, " \t") {
		return "", &Error{Expr: expr, Msg: fmt.Sprintf("zone %q cannot be loaded by its name", name), Fix: "use an IANA zone name such as Europe/Paris"}
	}
	return "CRON_TZ=" + name + " " + strings.TrimSpace(expr), nil
}

// IsInterval reports whether s is an "@every" schedule: a fixed delay from
// the last run, not times on the clock.
func IsInterval(s cron.Schedule) bool {
	_, ok := s.(cron.ConstantDelaySchedule)
	return ok
}
