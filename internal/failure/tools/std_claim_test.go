package tools

import (
	"testing"

	"github.com/retrywise/retrywise/internal/failure"
)

// TestRegistryReaderLeavesOtherToolsLabels checks that the registry
// reader's "unauthorized" does not claim another tool's labelled field
// (certbot's "Type:   unauthorized" problem block): the ACME standard reads
// it.
func TestRegistryReaderLeavesOtherToolsLabels(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "certbot problem block", tool: failure.ToolAuto, exit: 1,
			text:  "Certbot failed to authenticate some domains (authenticator: webroot). The Certificate Authority reported these problems:\n  Domain: example.org\n  Type:   unauthorized\n  Detail: 203.0.113.7: Invalid response from http://example.org/.well-known/acme-challenge/abc: 404\n",
			class: failure.Structural, code: failure.CodeACMEChallenge},
		{name: "certbot dns block", tool: failure.ToolAuto, exit: 1,
			text:  "Certbot failed to authenticate some domains (authenticator: manual). The Certificate Authority reported these problems:\n  Domain: example.org\n  Type:   unauthorized\n  Detail: Incorrect TXT record \"x\" found at _acme-challenge.example.org\n",
			class: failure.Structural, code: failure.CodeACMEChallenge},
		{name: "registry still read", tool: failure.ToolAuto, text: "Error response from daemon: Get \"https://registry-1.docker.io/v2/\": unauthorized: incorrect username or password",
			class: failure.Policy, code: CodeDockerUnauthorized},
	})
}
