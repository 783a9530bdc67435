package jobs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad loads any bytes: the loader returns a file or errors with
// positions, never panics, and stays within its limits (a file over them
// is one error). A loaded file's if: conditions are evaluated too.
//
//	go test -run x -fuzz FuzzLoad -parallel 1 -fuzztime 10m ./internal/jobs
func FuzzLoad(f *testing.F) {
	for _, p := range []string{"../../examples/devto-publish.yml", "../../examples/offline.yml"} {
		if b, err := os.ReadFile(filepath.FromSlash(p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(example))
	f.Add([]byte(head + quotaStep + "      - id: post\n        if: steps.quota.outputs.count < 10 && contains(format('{0}', env.X), 'a') || !failure()\n        http: {url: \"https://y\"}\n"))
	f.Add([]byte("version: 1\nx: &a {<<: *a, x: 1}\njobs:\n  j:\n    <<: *a\n    steps:\n" + validStep))
	f.Add([]byte(mergeBomb(3, 3) + "jobs:\n  j:\n    <<: *a3\n    steps:\n" + validStep))
	f.Add([]byte(head + validStep + "        env: " + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n"))
	f.Add([]byte(head + validStep + "        env:\n          - - - - x\n"))
	f.Add([]byte("version: 1\n---\njobs: {}\n...\n%YAML 1.2\n---\n? a\n: b\n"))
	f.Add([]byte("version: 1\ndefaults: &d\n  retry: {schedule: [1s]}\njobs:\n  j:\n    steps:\n      - <<: {id: a}\n        exec: !!map {run: x}\n"))
	cat := fakeCatalog(nil)
	f.Fuzz(func(t *testing.T, src []byte) {
		file, errs := Load("job.yml", src, cat)
		if (file == nil) == (len(errs) == 0) {
			t.Fatalf("file %v with errors %v", file != nil, errs)
		}
		for _, e := range errs {
			if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Msg == "" {
				t.Fatalf("error without a position or a message: %+v", e)
			}
		}
		if len(src) > MaxFileBytes && (len(errs) != 1 || !strings.Contains(errs[0].Msg, "limit")) {
			t.Fatalf("a file of %d bytes: %v", len(src), errs)
		}
		if file == nil {
			return
		}
		for _, j := range file.Jobs {
			for _, s := range j.Steps {
				for _, st := range []State{{}, {Failed: true}, {Steps: map[string]StepState{"a": {Outcome: "success", Outputs: map[string]any{"x": "1"}}}}} {
					s.ShouldRun(st)
				}
			}
		}
	})
}
