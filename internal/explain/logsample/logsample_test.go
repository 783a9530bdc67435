package logsample

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/retrywise/retrywise/internal/explain"
	"github.com/retrywise/retrywise/internal/failure"
	_ "github.com/retrywise/retrywise/internal/failure/tools"
)

const root = "../../.."

// TestWholeLogsAreTheirSteps: each job's whole log in the sample is its
// steps' logs in their order, as the run's page serves them (one byte
// order mark at each file's start), so the archive and a job's .txt tell
// the same story.
func TestWholeLogsAreTheirSteps(t *testing.T) {
	dir := filepath.Join(root, Dir)
	tops, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(tops) != 2 {
		t.Fatalf("want the whole logs of two jobs: %v %v", tops, err)
	}
	bom := "\ufeff"
	for _, top := range tops {
		m := regexp.MustCompile(`^\d+_(.+)\.txt$`).FindStringSubmatch(filepath.Base(top))
		steps, _ := filepath.Glob(filepath.Join(dir, m[1], "*.txt"))
		sort.Slice(steps, func(i, j int) bool { return stepNumber(steps[i]) < stepNumber(steps[j]) })
		want := bom
		for _, s := range steps {
			b, err := os.ReadFile(s)
			if err != nil || !strings.HasPrefix(string(b), bom) {
				t.Fatalf("%s: %v, or no byte order mark", s, err)
			}
			want += strings.TrimPrefix(string(b), bom)
		}
		if got, _ := os.ReadFile(top); string(got) != want || len(steps) < 3 {
			t.Errorf("%s is not its %d steps' logs in order", top, len(steps))
		}
	}
}

func stepNumber(p string) int {
	n := 0
	for _, c := range filepath.Base(p) {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestSampleExplained: the sample explains as the docs show: a transient
// failed step in one job, a policy one in the other, exit 77; and each
// job's .txt alone gives its step the same class.
func TestSampleExplained(t *testing.T) {
	b, err := Archive(filepath.Join(root, Dir))
	if err != nil {
		t.Fatal(err)
	}
	res, err := explain.ExplainLog(context.Background(), explain.LogFile{Name: "logs_sample.zip", ReaderAt: bytes.NewReader(b), Size: int64(len(b))}, explain.LogOptions{})
	if err != nil || res.ExitCode != 77 || len(res.Report.Steps) != 2 {
		t.Fatalf("%v %+v", err, res)
	}
	want := map[string]failure.Class{"publish / Publish the package": failure.Transient, "deploy site / Push the site": failure.Policy}
	for _, s := range res.Report.Steps {
		if want[s.ID] != s.Class {
			t.Errorf("%s: %s", s.ID, s.Class)
		}
	}
	for file, class := range map[string]failure.Class{"0_publish.txt": failure.Transient, "1_deploy site.txt": failure.Policy} {
		b, err := os.ReadFile(filepath.Join(root, Dir, file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := explain.ExplainLog(context.Background(), explain.LogFile{Name: file, ReaderAt: bytes.NewReader(b), Size: int64(len(b))}, explain.LogOptions{})
		if err != nil || len(res.Report.Steps) != 1 || res.Report.Steps[0].Class != class {
			t.Errorf("%s: %v %+v", file, err, res)
		}
	}
}
