package cronexpr

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2025, time.March, 3, 8, 7, 0, 0, time.UTC) // a Monday
	tests := []struct {
		name     string
		expr     string
		loc      *time.Location
		next     time.Time // the first run after from; zero when expr is bad
		interval bool
		msg      string // a substring of the *Error's message
		fix      string // a substring of its fix
	}{
		{name: "five fields", expr: "*/5 * * * *", next: from.Add(3 * time.Minute)},
		{name: "in a zone", expr: "0 9 * * *", loc: paris, next: time.Date(2025, time.March, 3, 8, 0, 0, 0, time.UTC).Add(24 * time.Hour)},
		{name: "nil zone is UTC", expr: "0 9 * * *", next: time.Date(2025, time.March, 3, 9, 0, 0, 0, time.UTC)},
		{name: "descriptor", expr: "@daily", next: time.Date(2025, time.March, 4, 0, 0, 0, 0, time.UTC)},
		{name: "every", expr: "@every 10m", next: from.Add(10 * time.Minute), interval: true},
		{name: "spaces around", expr: "  @hourly ", next: time.Date(2025, time.March, 3, 9, 0, 0, 0, time.UTC)},
		{name: "empty", expr: " ", msg: "no expression", fix: "five fields"},
		{name: "six fields", expr: "0 * * * * *", msg: "expected exactly 5 fields, found 6", fix: "five fields"},
		{name: "zone prefix", expr: "TZ=UTC 0 9 * * *", msg: "sets its own zone", fix: "timezone:"},
		{name: "reference", expr: "${WHEN}", msg: "does not expand"},
		{name: "every too short", expr: "@every 500ms", msg: "shorter than the parser's 1s", fix: "@every 10m"},
		{name: "never", expr: "0 0 31 4 *", msg: "never fires", fix: "day of month"},
		{name: "zone with no name", expr: "@daily", loc: time.FixedZone("X", 3600), msg: `zone "X" cannot be loaded`, fix: "IANA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.expr, tt.loc)
			if tt.msg != "" {
				var ce *Error
				if !errors.As(err, &ce) || !strings.Contains(ce.Msg, tt.msg) || !strings.Contains(ce.Fix, tt.fix) || ce.Expr != tt.expr {
					t.Fatalf("Parse(%q) = %v; want an *Error about %q, fix %q", tt.expr, err, tt.msg, tt.fix)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Next(from); !got.Equal(tt.next) {
				t.Errorf("Next = %v, want %v", got, tt.next)
			}
			if IsInterval(s) != tt.interval {
				t.Errorf("IsInterval = %v", !tt.interval)
			}
		})
	}
}

func TestWithZone(t *testing.T) {
	tests := []struct {
		loc  *time.Location
		want string
	}{
		{nil, "CRON_TZ=UTC @daily"},
		{time.UTC, "CRON_TZ=UTC @daily"},
		{mustZone(t, "America/New_York"), "CRON_TZ=America/New_York @daily"},
	}
	for _, tt := range tests {
		if got, err := WithZone(" @daily", tt.loc); err != nil || got != tt.want {
			t.Errorf("WithZone(%v) = %q, %v; want %q", tt.loc, got, err, tt.want)
		}
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
