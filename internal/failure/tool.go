package failure

import "path/filepath"

// ToolOf returns the tool a program is by its file name: ToolGit, ToolCurl, or ToolAuto for anything else.
func ToolOf(program string) Tool {
	switch filepath.Base(program) {
	case "git":
		return ToolGit
	case "curl":
		return ToolCurl
	}
	return ToolAuto
}
