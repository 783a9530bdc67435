package failure

import "path/filepath"

// ToolOf returns the tool a program is by its file name: ToolGit, ToolCurl, a tool family's tool (npm, docker, ...), or ToolAuto for anything else.
func ToolOf(program string) Tool {
	name := filepath.Base(program)
	switch name {
	case "git":
		return ToolGit
	case "curl":
		return ToolCurl
	}
	for _, f := range registered() {
		for _, n := range f.Names {
			if n == name {
				return f.Tool
			}
		}
	}
	return ToolAuto
}
