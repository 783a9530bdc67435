// Command generate rewrites every generated file of the repository from its
// sources (see internal/artefact). It is what `go generate ./...` runs:
//
//	go generate ./...
//
// It writes only the files that changed and names them, so a second run
// changes nothing. It needs no network: every module it imports is the
// binary's own.
package main

import (
	"fmt"
	"os"

	"github.com/retrywise/retrywise/internal/artefact"
)

func main() {
	root, err := artefact.Root(".")
	if err == nil {
		var wrote []string
		wrote, err = artefact.Write(root)
		for _, p := range wrote {
			fmt.Println("generated", p)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}
