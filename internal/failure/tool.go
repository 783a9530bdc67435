package failure

import "path/filepath"

// ToolOf returns the tool a program runs by its name: ToolGit for git,
// ToolCurl for curl (any directory), ToolAuto for anything else.
func ToolOf(program string) Tool {
	switch filepath.Base(program) {
	case "git":
		return ToolGit
	case "curl":
		return ToolCurl
	}
	return ToolAuto
}
