package schedule

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/cronexpr"
	"github.com/retrywise/retrywise/internal/jobs"
)

func TestDue(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(7*time.Minute + 30*time.Second) // 10:07:30 UTC
	tests := []struct {
		name    string
		cron    []string
		loc     *time.Location
		last    time.Duration // before now
		hasLast bool
		want    bool
	}{
		{name: "a slot since the last run", cron: []string{"*/5 * * * *"}, last: 3 * time.Minute, hasLast: true, want: true},
		{name: "no slot since the last run", cron: []string{"*/5 * * * *"}, last: 2 * time.Minute, hasLast: true},
		{name: "the slot is the last run", cron: []string{"*/5 * * * *"}, last: 150 * time.Second, hasLast: true},
		{name: "slots missed long ago count", cron: []string{"0 3 * * *"}, last: 48 * time.Hour, hasLast: true, want: true},
		{name: "one line of two is due", cron: []string{"0 3 * * *", "7 10 * * *"}, last: 10 * time.Minute, hasLast: true, want: true},
		{name: "no history, due within the minute", cron: []string{"7 10 * * *"}, want: true},
		{name: "no history, due an hour ago", cron: []string{"7 9 * * *"}},
		{name: "no history, due in a minute", cron: []string{"8 10 * * *"}},
		{name: "in the trigger's zone", cron: []string{"7 11 * * *"}, loc: paris, want: true},
		{name: "not in UTC", cron: []string{"7 11 * * *"}},
		{name: "every, no history", cron: []string{"@every 1h"}, want: true},
		{name: "every, run less than its interval ago", cron: []string{"@every 1h"}, last: 59 * time.Minute, hasLast: true},
		{name: "every, run its interval ago", cron: []string{"@every 1h"}, last: time.Hour, hasLast: true, want: true},
		{name: "a bad line is ignored", cron: []string{"nope", "*/5 * * * *"}, last: 3 * time.Minute, hasLast: true, want: true},
	}
	for _, tt := range tests {
		tr := Trigger{Job: "j", Cron: tt.cron, Location: tt.loc}
		if got := Due(tr, now.Add(-tt.last), tt.hasLast, now); got != tt.want {
			t.Errorf("%s: Due = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNext(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		tr   Trigger
		want time.Time
	}{
		{name: "the earliest line", tr: Trigger{Cron: []string{"@daily", "*/5 * * * *"}}, want: t0.Add(5 * time.Minute)},
		{name: "in a zone", tr: Trigger{Cron: []string{"0 6 * * *"}, Location: ny}, want: t0.Add(time.Hour)}, // 06:00 EST is 11:00 UTC
		{name: "every", tr: Trigger{Cron: []string{"@every 90s"}}, want: t0.Add(90 * time.Second)},
		{name: "none", tr: Trigger{Cron: []string{"bad"}}},
	}
	for _, tt := range tests {
		if got := Next(tt.tr, t0); !got.Equal(tt.want) {
			t.Errorf("%s: Next = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTriggerCheck(t *testing.T) {
	tests := []struct {
		name string
		tr   Trigger
		cron bool // a *cronexpr.Error inside
		ok   bool
	}{
		{name: "valid", tr: Trigger{Job: "j", Cron: []string{"@hourly", "0 9 * * 1-5"}}, ok: true},
		{name: "no line", tr: Trigger{Job: "j"}},
		{name: "bad line", tr: Trigger{Job: "j", Cron: []string{"@hourly", "61 * * * *"}}, cron: true},
		{name: "negative jitter", tr: Trigger{Job: "j", Cron: []string{"@hourly"}, StartJitter: -time.Second}},
	}
	for _, tt := range tests {
		err := tt.tr.Check()
		var te *TriggerError
		var ce *cronexpr.Error
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case !tt.ok && (!errors.As(err, &te) || te.Job != "j"):
			t.Errorf("%s: %v, want a *TriggerError of job j", tt.name, err)
		case tt.cron && !errors.As(err, &ce):
			t.Errorf("%s: %v, want a *cronexpr.Error inside", tt.name, err)
		}
	}
}

func TestTriggersOf(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	f := &jobs.File{Jobs: []*jobs.Job{
		{Name: "manual", Location: time.UTC},
		{Name: "nightly", Cron: []string{"0 3 * * *"}, Location: paris, StartJitter: time.Minute, CatchUp: true},
		{Name: "often", Cron: []string{"*/5 * * * *", "@every 1h"}, Location: time.UTC},
	}}
	want := []Trigger{
		{Job: "nightly", Cron: []string{"0 3 * * *"}, Location: paris, StartJitter: time.Minute, CatchUp: true},
		{Job: "often", Cron: []string{"*/5 * * * *", "@every 1h"}, Location: time.UTC},
	}
	if got := TriggersOf(f); !reflect.DeepEqual(got, want) {
		t.Errorf("TriggersOf = %+v, want %+v", got, want)
	}
}
