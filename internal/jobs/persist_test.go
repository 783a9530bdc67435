package jobs

import (
	"strings"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/hindsight"
)

// TestLoadPersistKeys: persist-after and persist-span on a job and under
// defaults:; the job's win over defaults', which win over the command
// line's; a bad value is an error at its position.
func TestLoadPersistKeys(t *testing.T) {
	base := hindsight.Rule{After: 3}
	for _, tc := range []struct {
		name, src string
		want      hindsight.Rule
	}{
		{"none: the command line's", head + quotaStep, base},
		{"job", jobWith("persist-after: 5\n    persist-span: 6h"), hindsight.Rule{After: 5, Span: 6 * time.Hour}},
		{"job off", jobWith("persist-after: 0"), hindsight.Rule{}},
		{"defaults", "version: 1\ndefaults:\n  persist-after: 4\n  persist-span: 1h\njobs:\n  publish:\n    steps:\n" + quotaStep, hindsight.Rule{After: 4, Span: time.Hour}},
		{"job over defaults", "version: 1\ndefaults:\n  persist-after: 4\n  persist-span: 1h\njobs:\n  publish:\n    persist-after: 2\n    steps:\n" + quotaStep, hindsight.Rule{After: 2, Span: time.Hour}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, errs := Load("job.yml", []byte(tc.src), fakeCatalog(nil))
			if errs != nil {
				t.Fatalf("errors:\n%s", errs.Error())
			}
			if got := f.PersistRule(f.Jobs[0], base); got != tc.want {
				t.Errorf("rule = %+v, want %+v", got, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, src, pos, msg string }{
		{"K of 1", jobWith("persist-after: 1"), "4:20", "persist-after must be 0 (off) or between 2 and 50; got 1"},
		{"K too large", jobWith("persist-after: 99"), "4:20", "between 2 and 50"},
		{"K a word", jobWith("persist-after: three"), "4:20", "persist-after"},
		{"span negative", jobWith("persist-span: -1h"), "4:19", "persist-span must be between 0 and"},
		{"span in defaults too long", "version: 1\ndefaults:\n  persist-span: 9000h\njobs:\n  publish:\n    steps:\n" + quotaStep, "3:17", "persist-span must be between 0 and"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Load("job.yml", []byte(tc.src), fakeCatalog(nil))
			if errs == nil || !strings.Contains(errs.Error(), tc.pos) || !strings.Contains(errs.Error(), tc.msg) {
				t.Fatalf("want %s %q, got:\n%v", tc.pos, tc.msg, errs)
			}
		})
	}
}
