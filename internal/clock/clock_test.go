package clock

import (
	"slices"
	"testing"
	"time"
)

var start = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func TestFakeAdvanceFiresDueTimers(t *testing.T) {
	f := NewFake(start, false)
	a, b := f.NewTimer(2*time.Second), f.NewTimer(5*time.Second)
	f.Advance(2 * time.Second)
	select {
	case got := <-a.C():
		if !got.Equal(start.Add(2 * time.Second)) {
			t.Errorf("fired at %v", got)
		}
	default:
		t.Fatal("due timer did not fire")
	}
	select {
	case <-b.C():
		t.Fatal("timer fired early")
	default:
	}
	if !b.Stop() || b.Stop() {
		t.Error("Stop should report true once, then false")
	}
	f.Advance(time.Hour)
	select {
	case <-b.C():
		t.Fatal("stopped timer fired")
	default:
	}
	if f.Pending() != 0 || !slices.Equal(f.Waits(), []time.Duration{2 * time.Second, 5 * time.Second}) {
		t.Errorf("pending %d waits %v", f.Pending(), f.Waits())
	}
}

func TestFakeAutoAdvance(t *testing.T) {
	f := NewFake(start, true)
	tm := f.NewTimer(30 * time.Second)
	<-tm.C()
	if got := f.Now(); !got.Equal(start.Add(30 * time.Second)) {
		t.Errorf("now = %v, want start+30s", got)
	}
	select {
	case <-f.TimerCreated():
	default:
		t.Error("TimerCreated did not signal")
	}
}
