package gittest

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// PushWrapperSource is the smallest Go program that runs git push the way
// retrywise does (its own process, pipes for the output, a wait): the floor
// any wrapper written in Go pays, built by the push benchmarks to compare
// retrywise push with.
const PushWrapperSource = `package main

import (
	"os"
	"os/exec"
)

func main() {
	cmd := exec.Command("git", append([]string{"push", "--porcelain"}, os.Args[1:]...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Exit(1)
	}
}
`

// PushFloorSource is PushWrapperSource with a blank import of every package
// in imports: the floor of a Go wrapper of git push that links those
// libraries (their package inits run and their code is mapped at every
// start), however little of them it calls.
func PushFloorSource(imports []string) string {
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"os\"\n\t\"os/exec\"\n")
	for _, p := range imports {
		fmt.Fprintf(&b, "\t_ %q\n", p)
	}
	_, body, _ := strings.Cut(PushWrapperSource, "\n)\n")
	b.WriteString(")\n" + body)
	return b.String()
}

// Libraries returns the packages outside the standard library and outside
// module that the packages pkgs link, as go list -deps run in dir sees them,
// leaving out those a program cannot import (internal and vendored ones,
// which the rest pull in anyway).
func Libraries(dir, module string, pkgs ...string) ([]string, error) {
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, pkgs...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w", strings.Join(pkgs, " "), err)
	}
	var libs []string
	for _, p := range strings.Fields(string(out)) {
		if p == module || strings.HasPrefix(p, module+"/") || strings.Contains("/"+p+"/", "/internal/") || strings.HasPrefix(p, "vendor/") {
			continue
		}
		libs = append(libs, p)
	}
	return libs, nil
}

// FloorLibraries returns the libraries of the two push floors, as go list
// run in dir sees them: every library cmd/retrywise links, and the same
// without client_golang and what only it brings.
func FloorLibraries(dir string) (all, noProm []string, err error) {
	const module = "github.com/retrywise/retrywise"
	if all, err = Libraries(dir, module, module+"/cmd/retrywise"); err != nil {
		return nil, nil, err
	}
	metricsOnly, err := Libraries(dir, module, "github.com/prometheus/client_golang/prometheus/promhttp", "github.com/prometheus/client_golang/prometheus/collectors")
	if err != nil {
		return nil, nil, err
	}
	for _, l := range all {
		if !slices.Contains(metricsOnly, l) {
			noProm = append(noProm, l)
		}
	}
	return all, noProm, nil
}
