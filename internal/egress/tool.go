package egress

import "github.com/retrywise/retrywise/internal/failure"

// ClientForTool returns the client whose proxy rules a tool follows: git's, curl's, or "" for any other tool.
func ClientForTool(t failure.Tool) Client {
	switch t {
	case failure.ToolGit:
		return ClientGit
	case failure.ToolCurl:
		return ClientCurl
	}
	return ""
}
