package failure

import (
	"slices"
	"strings"
	"testing"
)

func ref(flag byte, from, to, summary, reason string) PushRef {
	return PushRef{Flag: flag, From: from, To: to, Summary: summary, Reason: reason}
}

func TestFromPush(t *testing.T) {
	const gh006 = "remote: error: GH006: Protected branch update failed for refs/heads/main.        \n" +
		"remote: error: Changes must be made through a pull request.        \n" +
		"To https://github.com/acme/site.git\n" +
		"!\trefs/heads/main:refs/heads/main\t[remote rejected] (protected branch hook declined)\nDone\n" +
		"error: failed to push some refs to 'https://github.com/acme/site.git'\n"
	tests := []struct {
		name     string
		in       PushInput
		ok       bool
		class    Class
		code     Code
		reason   string
		remedy   string
		evidence []string
		refs     []Class // per ref; -1 for fine
	}{
		{
			name: "all pushed",
			in:   PushInput{Refs: []PushRef{ref('*', "refs/heads/a", "refs/heads/a", "[new branch]", ""), ref(' ', "refs/heads/main", "refs/heads/main", "1a2b..3c4d", "")}},
			ok:   true, refs: []Class{-1, -1},
		},
		{
			name: "all up to date",
			in:   PushInput{Refs: []PushRef{ref('=', "refs/heads/main", "refs/heads/main", "[up to date]", "")}},
			ok:   true, refs: []Class{-1},
		},
		{
			name: "non-fast-forward names the remote and branch",
			in: PushInput{Remote: "upstream", ExitCode: 1, Text: "hint: Updates were rejected because the tip of your current branch is behind\n",
				Refs: []PushRef{ref('!', "refs/heads/release/2", "refs/heads/release/2", "[rejected]", "non-fast-forward")}},
			class: Structural, code: "git-non-fast-forward", reason: "non-fast-forward on release/2", remedy: "git pull --rebase upstream release/2",
			evidence: []string{"! refs/heads/release/2:refs/heads/release/2 [rejected] (non-fast-forward)"}, refs: []Class{Structural},
		},
		{
			name:  "stale info",
			in:    PushInput{ExitCode: 1, Refs: []PushRef{ref('!', "refs/heads/main", "refs/heads/main", "[rejected]", "stale info")}},
			class: Structural, code: "git-stale-info", reason: "stale info on main", remedy: "git fetch origin main", refs: []Class{Structural},
		},
		{
			name: "GitHub's words lead the evidence",
			in: PushInput{ExitCode: 1, Text: gh006,
				Refs: []PushRef{ref('!', "refs/heads/main", "refs/heads/main", "[remote rejected]", "protected branch hook declined")}},
			class: Structural, code: "git-protected-branch", reason: "protected branch on main (GH006)", remedy: "open a pull request",
			evidence: []string{"GH006: Protected branch update failed", "Changes must be made through a pull request", "[remote rejected] (protected branch hook declined)"},
			refs:     []Class{Structural},
		},
		{
			name: "a hook's lines are evidence",
			in: PushInput{ExitCode: 1, Text: "remote: Counting objects: 3, done.\nremote: \nremote: commit 1a2b lacks a ticket number\n",
				Refs: []PushRef{ref('!', "refs/heads/main", "refs/heads/main", "[remote rejected]", "pre-receive hook declined")}},
			class: Structural, code: "git-hook-declined", reason: "pre-receive hook declined on main", remedy: "hook",
			evidence: []string{"remote: commit 1a2b lacks a ticket number"}, refs: []Class{Structural},
		},
		{
			name: "a worse refusal in the output wins",
			in: PushInput{ExitCode: 1, Text: "remote: Permission to acme/site.git denied to deploy-bot.\n",
				Refs: []PushRef{ref('!', "refs/heads/main", "refs/heads/main", "[remote rejected]", "pre-receive hook declined")}},
			class: Policy, code: "git-permission-denied", reason: "permission to acme/site.git denied to deploy-bot", refs: []Class{Structural},
		},
		{
			name: "the worst ref decides; atomic collateral comes last",
			in: PushInput{ExitCode: 1, Refs: []PushRef{
				ref('!', "refs/heads/feature", "refs/heads/feature", "[rejected]", "atomic push failed"),
				ref('!', "refs/heads/main", "refs/heads/main", "[rejected]", "fetch first"),
				ref('!', "refs/tags/v1", "refs/tags/v1", "[remote rejected]", "permission denied"),
			}},
			class: Policy, code: "git-ref-permission-denied", reason: "v1 (and 2 more refs)", refs: []Class{Structural, Structural, Policy},
		},
		{
			name: "atomic: the rejected ref, not the collateral one",
			in: PushInput{ExitCode: 1, Refs: []PushRef{
				ref('!', "refs/heads/feature", "refs/heads/feature", "[rejected]", "atomic push failed"),
				ref('!', "refs/heads/main", "refs/heads/main", "[rejected]", "fetch first"),
			}},
			class: Structural, code: "git-fetch-first", reason: "fetch first on main (and 1 more ref)", refs: []Class{Structural, Structural},
		},
		{
			name: "partial success",
			in: PushInput{ExitCode: 1, Refs: []PushRef{
				ref('*', "refs/heads/feature", "refs/heads/feature", "[new branch]", ""),
				ref('!', "refs/heads/main", "refs/heads/main", "[rejected]", "non-fast-forward"),
			}},
			class: Structural, code: "git-non-fast-forward", reason: "non-fast-forward on main", refs: []Class{-1, Structural},
		},
		{
			name:  "network failure before any ref",
			in:    PushInput{ExitCode: 128, Text: "fatal: unable to access 'https://h/r.git/': Recv failure: Connection reset by peer\n"},
			class: Transient, code: "connection-reset", reason: "connection reset",
		},
		{
			name:  "connection broken after the pack was sent",
			in:    PushInput{ExitCode: 1, Text: "error: RPC failed; curl 52 Empty reply from server\nsend-pack: unexpected disconnect while reading sideband packet\nfatal: the remote end hung up unexpectedly\nDone\n"},
			class: Transient, code: "empty-reply", reason: "empty reply",
		},
		{
			name:  "a refused token names the permission",
			in:    PushInput{ExitCode: 128, Text: "remote: Forbidden\nfatal: unable to access 'https://h/r.git/': The requested URL returned error: 403\n"},
			class: Policy, code: "http-403", reason: "403", remedy: "permissions: contents: write",
		},
		{
			name:  "nothing recognised",
			in:    PushInput{ExitCode: 1, Text: "something odd\n"},
			class: Unknown, code: "unknown", reason: "unrecognised failure",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := FromPush(tt.in)
			if len(v.Refs) != len(tt.in.Refs) {
				t.Fatalf("%d ref verdicts for %d refs", len(v.Refs), len(tt.in.Refs))
			}
			for i, want := range tt.refs {
				switch got := v.Refs[i]; {
				case want == -1 && got != nil:
					t.Errorf("ref %d: %v, want fine", i, got)
				case want != -1 && (got == nil || got.Class != want):
					t.Errorf("ref %d: %v, want %v", i, got, want)
				}
			}
			if tt.ok {
				if v.Failure != nil {
					t.Fatalf("failure %v, want success", v.Failure)
				}
				return
			}
			checkFailure(t, v.Failure, tt.class, tt.code, tt.reason, tt.remedy, tt.evidence)
		})
	}
}

func TestRemoteLinesSkipProgressAndBlanks(t *testing.T) {
	text := "remote: Enumerating objects: 5, done.\nremote: \nremote: error: no tabs allowed   \r\nremote: Resolving deltas: 100% (2/2)\nnot remote\nremote: see CONTRIBUTING.md\nremote: third\n"
	got := RemoteLines(text, 2)
	want := []string{"remote: error: no tabs allowed", "remote: see CONTRIBUTING.md"}
	if !slices.Equal(got, want) {
		t.Errorf("RemoteLines = %q, want %q", got, want)
	}
}

func TestWorse(t *testing.T) {
	order := []Class{Policy, Structural, Unknown, Transient, Absent}
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			if !Worse(order[i], order[j]) || Worse(order[j], order[i]) {
				t.Errorf("Worse(%v, %v) is wrong", order[i], order[j])
			}
		}
	}
}

func TestPushRefStatus(t *testing.T) {
	tests := []struct {
		r    PushRef
		want string
	}{
		{ref('*', "a", "b", "[new branch]", ""), "pushed (new branch)"},
		{ref('=', "a", "b", "[up to date]", ""), "up to date"},
		{ref('!', "a", "b", "[remote rejected]", "pre-receive hook declined"), "remote rejected (pre-receive hook declined)"},
		{ref('+', "a", "b", "1a...2b", "forced update"), "force-pushed (1a...2b)"},
		{ref('-', "", "b", "[deleted]", ""), "deleted"},
	}
	for _, tt := range tests {
		if got := tt.r.Status(); got != tt.want || !strings.Contains(tt.r.Line(), tt.r.Summary) {
			t.Errorf("Status(%+v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}

func TestPushCommandLineRefusals(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "no upstream", tool: ToolGit, exit: 128,
			text:  "fatal: The current branch feature/x has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feature/x\n",
			class: Structural, code: "git-no-upstream", reason: "feature/x has no upstream branch", remedy: "git push --set-upstream origin feature/x",
		},
		{
			name: "detached HEAD", tool: ToolGit, exit: 128,
			text:  "fatal: You are not currently on a branch.\nTo push the history leading to the current (detached HEAD)\nstate now, use\n\n    git push origin HEAD:<name-of-remote-branch>\n",
			class: Structural, code: "git-detached-head", reason: "HEAD is detached", remedy: "HEAD:refs/heads/BRANCH",
		},
		{
			name: "upstream name differs", tool: ToolGit, exit: 128,
			text:  "fatal: The upstream branch of your current branch does not match\nthe name of your current branch.  To push to the upstream branch\non the remote, use\n\n    git push origin HEAD:main\n",
			class: Structural, code: "git-upstream-mismatch", reason: "upstream branch's name differs", remedy: "HEAD:UPSTREAM-BRANCH",
		},
	})
}
