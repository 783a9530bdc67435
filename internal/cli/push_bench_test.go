package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/retrywise/retrywise/internal/gittest"
)

// BenchmarkPushVersusGit compares `retrywise push` with plain `git push` to a
// local http-backend: per iteration, 20 pushes with each tool, alternating in
// the same run (each push fast-forwards main by one commit). It reports the
// medians and these ratios:
//   - x-wrapper: retrywise over the smallest Go wrapper of git push
//     (gittest.PushWrapperSource), the floor any Go program that runs git
//     pays; the target is at most 1.05;
//   - floor-x-wrapper: the same wrapper linking every library retrywise
//     links (gittest.PushFloorSource), over the wrapper: what the libraries
//     cost at start (their package inits, their size) before retrywise's
//     own code runs;
//   - noprom-x-wrapper: that floor without client_golang and what only it
//     brings (protobuf, procfs), over the wrapper: what the libraries other
//     than the metrics' cost;
//   - x-floor: retrywise over the floor, what retrywise's own code costs;
//   - ratio, wrapper-ratio and porcelain-ratio: retrywise, the wrapper and
//     git push --porcelain over git push;
//   - with RETRYWISE_PUSH_BASELINE naming another retrywise binary (an
//     earlier build), baseline-x-wrapper and x-baseline: that binary over
//     the wrapper, and retrywise over it, pushed in the same rotation.
//
// scripts/bench-push runs it.
func BenchmarkPushVersusGit(b *testing.B) {
	const pairs = 20
	dir := b.TempDir()
	// Every Go program is built as retrywise is released (docs/container-image.md, .github/workflows/release.yml):
	// static, so no dynamic loader runs at start, and -trimpath.
	build := func(out string, args ...string) {
		cmd := exec.Command("go", append([]string{"build", "-trimpath", "-o", out}, args...)...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if o, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", out, err, o)
		}
	}
	const module = "github.com/retrywise/retrywise"
	bin := filepath.Join(dir, "retrywise")
	build(bin, module+"/cmd/retrywise")
	libs, noprom, err := gittest.FloorLibraries(".")
	if err != nil {
		b.Fatal(err)
	}
	programs := map[string]string{"wrapper": gittest.PushWrapperSource, "floor": gittest.PushFloorSource(libs), "floor-noprom": gittest.PushFloorSource(noprom)}
	for name, src := range programs {
		path := filepath.Join(dir, name+".go")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		build(filepath.Join(dir, name), path)
	}
	env := gittest.Env(b)
	srv := gittest.NewServer(b, env)
	url, _ := srv.NewRepo(b, "bench.git")
	work := gittest.NewWork(b, env, url)
	gittest.Git(b, env, work, "push", "--quiet", "origin", "main")

	baseline := os.Getenv("RETRYWISE_PUSH_BASELINE")
	push := func(tool string, commit string) time.Duration {
		var cmd *exec.Cmd
		refspec := commit + ":refs/heads/main"
		switch tool {
		case "git":
			cmd = exec.Command("git", "push", "origin", refspec)
		case "git-porcelain":
			cmd = exec.Command("git", "push", "--porcelain", "origin", refspec)
		case "retrywise":
			cmd = exec.Command(bin, "push", "--", "origin", refspec)
		case "baseline":
			cmd = exec.Command(baseline, "push", "--", "origin", refspec)
		default:
			cmd = exec.Command(filepath.Join(dir, tool), "origin", refspec)
		}
		cmd.Dir, cmd.Env = work, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if err != nil {
			b.Fatalf("%s push: %v\n%s", tool, err, out)
		}
		return took
	}
	tools := []string{"git", "retrywise", "wrapper", "floor", "git-porcelain", "floor-noprom"}
	if baseline != "" {
		tools = append(tools, "baseline")
	}
	times := map[string][]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		commits := make([]string, len(tools)*(pairs+1))
		for j := range commits {
			commits[j] = gittest.Commit(b, env, work, "n.txt", strconv.Itoa(i)+"."+strconv.Itoa(j)+"\n", "bench")
		}
		b.StartTimer()
		next := 0
		for j := 0; j <= pairs; j++ {
			// rotate the order, so that no tool always runs first
			for k := range tools {
				tool := tools[(j+k)%len(tools)]
				d := push(tool, commits[next])
				next++
				if j > 0 { // the first round warms caches
					times[tool] = append(times[tool], d)
				}
			}
		}
	}
	m := map[string]float64{}
	for _, tool := range tools {
		m[tool] = float64(median(times[tool]))
	}
	b.ReportMetric(m["git"]/1e6, "git-ms")
	b.ReportMetric(m["retrywise"]/1e6, "retrywise-ms")
	b.ReportMetric(m["wrapper"]/1e6, "wrapper-ms")
	b.ReportMetric(m["floor"]/1e6, "floor-ms")
	b.ReportMetric(m["retrywise"]/m["wrapper"], "x-wrapper")
	b.ReportMetric(m["floor"]/m["wrapper"], "floor-x-wrapper")
	b.ReportMetric(m["floor-noprom"]/m["wrapper"], "noprom-x-wrapper")
	b.ReportMetric(m["retrywise"]/m["floor"], "x-floor")
	b.ReportMetric(m["retrywise"]/m["git"], "ratio")
	b.ReportMetric(m["wrapper"]/m["git"], "wrapper-ratio")
	b.ReportMetric(m["git-porcelain"]/m["git"], "porcelain-ratio")
	if baseline != "" {
		b.ReportMetric(m["baseline"]/m["wrapper"], "baseline-x-wrapper")
		b.ReportMetric(m["retrywise"]/m["baseline"], "x-baseline")
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
