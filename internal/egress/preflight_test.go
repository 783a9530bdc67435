package egress

import (
	"context"
	"fmt"
	"testing"
)

// TestProbeAll: more targets than run at once, each answered in its place.
func TestProbeAll(t *testing.T) {
	t.Parallel()
	p, err := New(Options{Env: []string{"HTTPS_PROXY=" + squid.URL, "NO_PROXY=bypass.test"}})
	if err != nil {
		t.Fatal(err)
	}
	var targets []Target
	want := map[int]Verdict{}
	for i := 0; i < 2*maxParallelProbes+3; i++ {
		s, v := fmt.Sprintf("bypass.test:%d", 1000+i), Direct
		if i%5 == 0 {
			s, v = "dev.to", Denied
		}
		tg, err := ParseTarget(s)
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, tg)
		want[i] = v
	}
	results := p.ProbeAll(context.Background(), ClientGo, targets)
	if len(results) != len(targets) {
		t.Fatalf("%d results for %d targets", len(results), len(targets))
	}
	for i, r := range results {
		if r.Target != targets[i].Addr() || r.Verdict != want[i] {
			t.Errorf("result %d: %s %s, want %s %s", i, r.Target, r.Verdict, targets[i].Addr(), want[i])
		}
	}
}
