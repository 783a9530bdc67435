package gittest

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
