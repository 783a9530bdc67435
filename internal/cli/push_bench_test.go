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
// medians and retrywise's ratio to git (the target is at most 1.05), and the
// same for the smallest Go wrapper (wrapper-ratio), which is the floor for
// the cost of starting any Go program, and for git push --porcelain
// (porcelain-ratio), which shows what the flag itself costs. scripts/bench-push
// runs it.
func BenchmarkPushVersusGit(b *testing.B) {
	const pairs = 20
	dir := b.TempDir()
	bin := filepath.Join(dir, "retrywise")
	// Built as released (README: Install): static, so no dynamic loader runs at start.
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/retrywise/retrywise/cmd/retrywise")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	wrapper := filepath.Join(dir, "wrapper")
	src := filepath.Join(dir, "wrapper.go")
	if err := os.WriteFile(src, []byte(gittest.PushWrapperSource), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("go", "build", "-o", wrapper, src).CombinedOutput(); err != nil {
		b.Fatalf("go build wrapper: %v\n%s", err, out)
	}
	env := gittest.Env(b)
	srv := gittest.NewServer(b, env)
	url, _ := srv.NewRepo(b, "bench.git")
	work := gittest.NewWork(b, env, url)
	gittest.Git(b, env, work, "push", "--quiet", "origin", "main")

	push := func(tool string, commit string) time.Duration {
		var cmd *exec.Cmd
		refspec := commit + ":refs/heads/main"
		switch tool {
		case "git":
			cmd = exec.Command("git", "push", "origin", refspec)
		case "git-porcelain":
			cmd = exec.Command("git", "push", "--porcelain", "origin", refspec)
		case "wrapper":
			cmd = exec.Command(wrapper, "origin", refspec)
		default:
			cmd = exec.Command(bin, "push", "--", "origin", refspec)
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
	tools := []string{"git", "retrywise", "wrapper", "git-porcelain"}
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
	g, r, w := median(times["git"]), median(times["retrywise"]), median(times["wrapper"])
	b.ReportMetric(float64(g.Microseconds())/1000, "git-ms")
	b.ReportMetric(float64(r.Microseconds())/1000, "retrywise-ms")
	b.ReportMetric(float64(w.Microseconds())/1000, "wrapper-ms")
	b.ReportMetric(float64(r)/float64(g), "ratio")
	b.ReportMetric(float64(w)/float64(g), "wrapper-ratio")
	b.ReportMetric(float64(median(times["git-porcelain"]))/float64(g), "porcelain-ratio")
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
