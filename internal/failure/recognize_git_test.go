package failure

import (
	"testing"
	"time"
)

func TestGitRejections(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "fetch first", tool: ToolGit, exit: 1,
			text:  "To github.com:acme/api.git\n ! [rejected]        release/1.2 -> release/1.2 (fetch first)\nerror: failed to push some refs to 'github.com:acme/api.git'\nhint: Updates were rejected because the remote contains work that you do\nhint: not have locally.\n",
			class: Structural, code: "git-fetch-first", reason: "git push rejected: fetch first on release/1.2", remedy: "git pull --rebase origin release/1.2, then push again",
			evidence: []string{"! [rejected]        release/1.2 -> release/1.2 (fetch first)", "hint: Updates were rejected because the remote contains work"},
		},
		{
			name: "non-fast-forward to a full ref", tool: ToolGit, exit: 1,
			text:  " ! [rejected]          HEAD -> refs/heads/gh-pages (non-fast-forward)\nerror: failed to push some refs to 'https://x-access-token@github.com/o/docs'\n",
			class: Structural, code: "git-non-fast-forward", reason: "non-fast-forward on gh-pages", remedy: "git pull --rebase origin gh-pages",
		},
		{
			name: "tag already exists", tool: ToolGit, exit: 1,
			text:  "To https://github.com/o/lib.git\n ! [rejected]        v2.3.0 -> v2.3.0 (already exists)\nerror: failed to push some refs to 'https://github.com/o/lib.git'\nhint: Updates were rejected because the tag already exists in the remote.\n",
			class: Structural, code: "git-ref-exists", reason: "already exists on v2.3.0", remedy: "already exists",
		},
		{
			name: "hint without the porcelain line", tool: ToolAuto, exit: 1,
			text:  "hint: Updates were rejected because the tip of your current branch is behind\nhint: its remote counterpart.\n",
			class: Structural, code: "git-non-fast-forward", reason: "non-fast-forward",
		},
		{
			name: "GH006 with review rule", tool: ToolGit, exit: 1,
			text:  "remote: error: GH006: Protected branch update failed for refs/heads/main.\nremote: error: At least 1 approving review is required by reviewers with write access.\nTo https://github.com/o/r\n ! [remote rejected] main -> main (protected branch hook declined)\nerror: failed to push some refs to 'https://github.com/o/r'\n",
			class: Structural, code: "git-protected-branch", reason: "protected branch on main (GH006)", remedy: "open a pull request or ask an admin to change the rule",
			evidence: []string{"GH006: Protected branch update failed", "At least 1 approving review is required", "(protected branch hook declined)"},
		},
		{
			name: "GH013 with several rules", tool: ToolGit, exit: 1,
			text: "remote: error: GH013: Repository rule violations found for refs/heads/develop.\n" +
				"remote: Review all repository rules at https://github.com/acme/web/rules?ref=refs%2Fheads%2Fdevelop\n" +
				"remote: \nremote: - Changes must be made through a pull request.\nremote: \n" +
				"remote: - 2 of 2 required status checks are expected.\nremote: \n" +
				"remote: - Commits must have verified signatures.\nremote:   Found 1 violation:\nremote: \nremote:   3f2a9c1e\nremote: \n" +
				"To https://github.com/acme/web.git\n ! [remote rejected] develop -> develop (push declined due to repository rule violations)\n" +
				"error: failed to push some refs to 'https://github.com/acme/web.git'\n",
			class: Structural, code: "git-repository-rules", reason: "repository rule violations on develop (GH013)", remedy: "open a pull request or ask an admin",
			evidence: []string{"GH013: Repository rule violations found for refs/heads/develop.", "remote: - Changes must be made through a pull request.", "remote: - 2 of 2 required status checks are expected.", "remote: - Commits must have verified signatures."},
		},
		{
			name: "GH013 push protection (secrets)", tool: ToolGit, exit: 1,
			text: "remote: error: GH013: Repository rule violations found for refs/heads/feat/login.\nremote: \nremote: - GITHUB PUSH PROTECTION\n" +
				"remote:   —————————————————————————————————————————\nremote:     Resolve the following violations before pushing again\nremote: \n" +
				"remote:     - Push cannot contain secrets\nremote: \nTo github.com:me/app.git\n ! [remote rejected] feat/login -> feat/login (push declined due to repository rule violations)\n",
			class: Structural, code: "git-repository-rules", reason: "GH013", remedy: "remove the secret", evidence: []string{"- Push cannot contain secrets"},
		},
		{
			name: "GH001 large file", tool: ToolGit, exit: 1,
			text: "remote: error: Trace: 8a6c2c1e9b0d\nremote: error: See https://gh.io/lfs for more information.\n" +
				"remote: error: File data/model.bin is 512.37 MB; this exceeds GitHub's file size limit of 100.00 MB\n" +
				"remote: error: GH001: Large files detected. You may want to try Git Large File Storage - https://git-lfs.github.com.\n" +
				"To github.com:me/ml.git\n ! [remote rejected] main -> main (pre-receive hook declined)\nerror: failed to push some refs to 'github.com:me/ml.git'\n",
			class: Structural, code: "git-large-file", reason: "large files (GH001)", remedy: "Git LFS",
			evidence: []string{"GH001: Large files detected", "File data/model.bin is 512.37 MB"},
		},
		{
			name: "file size limit without GH001", tool: ToolAuto, exit: 1,
			text:  "remote: error: File assets/video.mp4 is 150.02 MB; this exceeds GitHub's file size limit of 100.00 MB\n",
			class: Structural, code: "git-large-file", reason: "assets/video.mp4 is 150.02 MB",
		},
		{
			name: "GH007 private email", tool: ToolGit, exit: 1,
			text:  "remote: error: GH007: Your push would publish a private email address.\nremote: You can make your email public or disable this protection by visiting:\nremote: https://github.com/settings/emails\nTo https://github.com/me/blog.git\n ! [remote rejected] main -> main (push declined due to email privacy restrictions)\n",
			class: Structural, code: "git-private-email", reason: "GH007", remedy: "user.email",
		},
		{
			name: "GitHub App may not push workflows", tool: ToolGit, exit: 1,
			text:  "To https://github.com/acme/tools\n ! [remote rejected] ci-update -> ci-update (refusing to allow a GitHub App to create or update workflow `.github/workflows/build.yml` without `workflows` permission)\nerror: failed to push some refs to 'https://github.com/acme/tools'\n",
			class: Policy, code: "git-workflow-permission", reason: "GitHub App token may not update workflow files (.github/workflows/build.yml)", remedy: "workflow",
		},
		{
			name: "OAuth App may not push workflows", tool: ToolGit, exit: 1,
			text:  " ! [remote rejected] main -> main (refusing to allow an OAuth App to create or update workflow `.github/workflows/ci.yml` without `workflow` scope)\n",
			class: Policy, code: "git-workflow-permission", reason: "OAuth App", remedy: "workflow",
		},
		{
			name: "GitLab protected branch", tool: ToolGit, exit: 1,
			text:  "remote: GitLab: You are not allowed to push code to protected branches on this project.\nTo gitlab.com:grp/proj.git\n ! [remote rejected] main -> main (pre-receive hook declined)\nerror: failed to push some refs to 'gitlab.com:grp/proj.git'\n",
			class: Structural, code: "git-protected-branch", reason: "protected branch",
		},
		{
			name: "unknown remote rejection reason", tool: ToolGit, exit: 1,
			text:  " ! [remote rejected] main -> main (failed to update ref)\n",
			class: Unknown, code: "git-remote-rejected", reason: "failed to update ref on main",
		},
		{
			name: "src refspec", tool: ToolGit, exit: 1,
			text:  "error: src refspec master does not match any\nerror: failed to push some refs to 'https://github.com/u/r.git'\n",
			class: Structural, code: "git-no-local-ref", reason: "no local ref master", remedy: "git push origin HEAD:master",
		},
		{
			name: "unknown remote name", tool: ToolGit, exit: 128,
			text:  "fatal: 'upstream' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n",
			class: Structural, code: "git-not-a-remote", reason: "'upstream' is not a git remote",
		},
		{
			name: "dubious ownership in a container", tool: ToolGit, exit: 128,
			text:  "fatal: detected dubious ownership in repository at '/__w/app/app'\nTo add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /__w/app/app\n",
			class: Structural, code: "git-dubious-ownership", reason: "/__w/app/app", remedy: "git config --global --add safe.directory /__w/app/app or retrywise --safe-directory",
		},
		{
			name: "not a repository", tool: ToolGit, exit: 128,
			text:  "fatal: not a git repository (or any of the parent directories): .git\n",
			class: Structural, code: "git-not-a-repository", reason: "not inside a git repository",
		},
	})
}

func TestGitIdentity(t *testing.T) {
	runTextCases(t, []textCase{
		{
			name: "deploy key over SSH", tool: ToolGit, exit: 128,
			text:  "ERROR: Permission to acme/infra.git denied to deploy key\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n",
			class: Policy, code: "git-permission-denied", reason: "permission to acme/infra.git denied to deploy key", remedy: "Allow write access",
		},
		{
			name: "dependabot token", tool: ToolGit, exit: 128,
			text:  "remote: Permission to octo/site.git denied to dependabot[bot].\nfatal: unable to access 'https://github.com/octo/site.git/': The requested URL returned error: 403\n",
			class: Policy, code: "git-permission-denied", reason: "dependabot[bot]", remedy: "contents: write",
		},
		{
			name: "ssh publickey", tool: ToolGit, exit: 128,
			text:  "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.\n",
			class: Policy, code: "git-ssh-key-rejected", reason: "SSH key rejected",
		},
		{
			name: "no terminal for a username", tool: ToolGit, exit: 128,
			text:  "Cloning into 'private'...\nfatal: could not read Username for 'https://github.com': terminal prompts disabled\n",
			class: Policy, code: "git-no-credentials", reason: "no credentials for github.com",
		},
		{
			name: "no tty for a password", tool: ToolGit, exit: 128,
			text:  "fatal: could not read Password for 'https://ci@gitlab.example.com': No such device or address\n",
			class: Policy, code: "git-no-credentials", reason: "no credentials for gitlab.example.com (git could not prompt for the password)",
		},
		{
			name: "invalid username or password", tool: ToolGit, exit: 128,
			text:  "remote: Invalid username or password.\nfatal: Authentication failed for 'https://github.com/x/y.git/'\n",
			class: Policy, code: "git-password-auth-rejected", reason: "credentials rejected",
		},
		{
			name: "GitLab basic auth", tool: ToolGit, exit: 128,
			text:  "remote: HTTP Basic: Access denied. The provided password or token is incorrect or your account has 2FA enabled and you must use a personal access token instead of a password.\nfatal: Authentication failed for 'https://gitlab.com/g/p.git/'\n",
			class: Policy, code: "git-auth-failed", reason: "HTTP Basic access denied",
		},
		{
			name: "Azure DevOps auth failed", tool: ToolGit, exit: 128,
			text:  "fatal: Authentication failed for 'https://dev.azure.com/org/proj/_git/repo/'\n",
			class: Policy, code: "git-auth-failed", reason: "authentication failed for dev.azure.com",
		},
		{
			name: "repository not found over SSH", tool: ToolGit, exit: 128,
			text:  "ERROR: Repository not found.\nfatal: Could not read from remote repository.\n",
			class: Policy, code: "git-repository-not-found", reason: "repository not found", remedy: "private repository",
		},
		{
			name: "repository not found on clone", tool: ToolGit, exit: 128,
			text:  "Cloning into 'private'...\nremote: Repository not found.\nfatal: repository 'https://github.com/acme/private.git/' not found\n",
			class: Policy, code: "git-repository-not-found", reason: "not found",
		},
		{
			name: "SAML SSO", tool: ToolGit, exit: 128,
			text:  "remote: The 'acme' organization has enabled or enforced SAML SSO.\nremote: To access this repository, you must use the HTTPS remote with a personal access token or SSH with an SSH key and passphrase\nremote: that has been authorized for this organization.\nfatal: unable to access 'https://github.com/acme/x.git/': The requested URL returned error: 403\n",
			class: Policy, code: "saml-sso-required", reason: "SAML SSO",
		},
		{
			name: "plain 403, localised (German)", tool: ToolGit, exit: 128,
			text:  "fatal: Zugriff auf 'https://git.corp.example/x.git/' nicht möglich: The requested URL returned error: 403\n",
			class: Policy, code: "http-403", reason: "HTTP 403 Forbidden",
		},
		{
			name: "plain 403 over a proxy", tool: ToolGit, exit: 128,
			text:  "fatal: unable to access 'https://git.corp.example/x.git/': The requested URL returned error: 403\n",
			class: Policy, code: "http-403", reason: "git cannot access git.corp.example: HTTP 403 Forbidden",
		},
	})
}

func TestGitAbsent(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "fetch a missing branch", tool: ToolGit, exit: 128, text: "fatal: couldn't find remote ref refs/heads/feature/x\n", class: Absent, code: "git-remote-ref-missing", reason: "remote ref refs/heads/feature/x does not exist"},
		{name: "pull a missing branch", tool: ToolGit, exit: 1, text: "From github.com:o/r\nfatal: Couldn't find remote ref release-7\n", class: Absent, code: "git-remote-ref-missing", reason: "release-7"},
		{name: "clone --branch missing", tool: ToolGit, exit: 128, text: "Cloning into 'r'...\nwarning: Could not find remote branch v9 to clone.\nfatal: Remote branch v9 not found in upstream origin\n", class: Absent, code: "git-remote-ref-missing", reason: "v9"},
	})
}

func TestGitTransport(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "resolve host", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://github.com/o/r.git/': Could not resolve host: github.com\n", class: Transient, code: "dns-failure", reason: "git cannot access github.com: could not resolve host github.com"},
		{name: "ssh resolve", tool: ToolGit, exit: 128, text: "ssh: Could not resolve hostname github.com: Temporary failure in name resolution\nfatal: Could not read from remote repository.\n", class: Transient, code: "dns-failure", reason: "could not resolve host github.com"},
		{name: "RPC curl 28", tool: ToolGit, exit: 128, text: "error: RPC failed; curl 28 Operation timed out after 300000 milliseconds with 0 out of 0 bytes received\nfatal: expected flush after ref listing\n", class: Transient, code: "timeout", reason: "git RPC failed, curl 28, operation timed out"},
		{name: "connect timed out (Windows)", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://github.com/o/r/': Failed to connect to github.com port 443 after 21046 ms: Timed out\n", class: Transient, code: "timeout", reason: "github.com"},
		{name: "couldn't connect", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://github.com/o/r/': Failed to connect to github.com port 443 after 130 ms: Couldn't connect to server\n", class: Transient, code: "connect-failed", reason: "could not connect to github.com:443"},
		{name: "reset (Windows)", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://github.com/o/r/': OpenSSL SSL_read: Connection was reset, errno 10054\n", class: Transient, code: "connection-reset"},
		{name: "ssh connect timeout", tool: ToolGit, exit: 128, text: "ssh: connect to host github.com port 22: Connection timed out\nfatal: Could not read from remote repository.\n", class: Transient, code: "timeout", reason: "timed out"},
		{name: "ssh kex reset", tool: ToolGit, exit: 128, text: "kex_exchange_identification: read: Connection reset by peer\nConnection reset by 140.82.121.4 port 22\nfatal: Could not read from remote repository.\n", class: Transient, code: "connection-reset"},
		{name: "ssh closed by remote", tool: ToolGit, exit: 128, text: "Connection closed by 140.82.121.3 port 22\nfatal: Could not read from remote repository.\n", class: Transient, code: "connection-reset", reason: "closed by the server"},
		{name: "RPC HTTP 502", tool: ToolGit, exit: 128, text: "error: RPC failed; HTTP 502 curl 22 The requested URL returned error: 502\nfatal: the remote end hung up unexpectedly\n", class: Transient, code: "http-502", reason: "git RPC failed: HTTP 502 Bad Gateway"},
		{name: "RPC curl 18", tool: ToolGit, exit: 128, text: "error: RPC failed; curl 18 transfer closed with outstanding read data remaining\nfatal: early EOF\nfatal: index-pack failed\n", class: Transient, code: "transfer-incomplete", evidence: []string{"curl 18", "early EOF", "index-pack failed"}},
		{name: "RPC curl 55", tool: ToolGit, exit: 1, text: "error: RPC failed; curl 55 Send failure: Broken pipe\nsend-pack: unexpected disconnect while reading sideband packet\nfatal: the remote end hung up unexpectedly\n", class: Transient, code: "connection-reset", reason: "curl 55"},
		{name: "RPC curl 16", tool: ToolGit, exit: 128, text: "error: RPC failed; curl 16 Error in the HTTP2 framing layer\nfatal: expected flush after ref listing\n", class: Transient, code: "http2-stream-closed"},
		{name: "RPC curl 56 unknown wording", tool: ToolGit, exit: 128, text: "error: RPC failed; curl 56 something new happened\n", class: Transient, code: "curl-56", reason: "git RPC failed, curl 56, receive failure"},
		{name: "503", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://gitlab.com/x/y.git/': The requested URL returned error: 503\n", class: Transient, code: "http-503", reason: "HTTP 503"},
		{name: "502 localised (French)", tool: ToolGit, exit: 128, text: "fatal: impossible d'accéder à 'https://github.com/o/r/' : The requested URL returned error: 502\n", class: Transient, code: "http-502"},
		{name: "gnutls handshake", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://github.com/o/r/': gnutls_handshake() failed: The TLS connection was non-properly terminated.\n", class: Transient, code: "tls-connection-broken"},
		{name: "schannel handshake", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://github.com/o/r.git/': schannel: failed to receive handshake, SSL/TLS connection failed\n", class: Transient, code: "tls-connection-broken"},
		{name: "RPC HTTP 500 on fetch", tool: ToolGit, exit: 128, text: "error: RPC failed; HTTP 500 curl 22 The requested URL returned error: 500\nfatal: expected 'packfile'\n", class: Transient, code: "http-500"},
		{name: "rate limited with delay", tool: ToolGit, exit: 128, text: "fatal: rate limited by 'https://git.example.com/', please try again in 30 seconds\n", class: Transient, code: "git-rate-limited", reason: "retry in 30s", retryAfter: 30 * time.Second},
		{name: "rate limited later", tool: ToolGit, exit: 128, text: "fatal: rate limited by 'https://git.example.com/o/r/', please try again later\n", class: Transient, code: "git-rate-limited", reason: "git rate limited by git.example.com"},
		{name: "remote failed to report status", tool: ToolGit, exit: 1, text: " ! [remote failure]  main -> main (remote failed to report status)\n", class: Transient, code: "git-status-unreported", remedy: "git ls-remote"},
		{name: "remote bad gateway", tool: ToolGit, exit: 1, text: "remote: error: Bad Gateway\nfatal: the remote end hung up unexpectedly\n", class: Transient, code: "git-server-error", reason: "Bad Gateway"},
	})
}

func TestGitStops(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "400 on a push is neither refusal nor flake", tool: ToolGit, exit: 1, text: "error: RPC failed; HTTP 400 curl 22 The requested URL returned error: 400\nsend-pack: unexpected disconnect while reading sideband packet\nfatal: the remote end hung up unexpectedly\n", class: Unknown, code: "http-400", reason: "HTTP 400", remedy: "SSH"},
		{name: "400 detected as git in auto", tool: ToolAuto, exit: 1, text: "fatal: unable to access 'https://x.example/r.git/': The requested URL returned error: 400\n", class: Unknown, code: "http-400"},
		{name: "413 new wording", tool: ToolGit, exit: 1, text: "error: RPC failed; HTTP 413 curl 22 The requested URL returned error: 413\nsend-pack: unexpected disconnect while reading sideband packet\nfatal: the remote end hung up unexpectedly\nEverything up-to-date\n", class: Structural, code: "http-413", reason: "413"},
		{name: "413 old wording", tool: ToolGit, exit: 1, text: "error: RPC failed; result=22, HTTP code = 413\nfatal: The remote end hung up unexpectedly\n", class: Structural, code: "http-413", reason: "git RPC failed: HTTP 413"},
		{name: "self-signed certificate", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://git.corp/x.git/': SSL certificate problem: self-signed certificate in certificate chain\n", class: Unknown, code: "tls-certificate", reason: "certificate", remedy: "environment must change"},
		{name: "gnutls verification", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://git.corp/x.git/': server certificate verification failed. CAfile: none CRLfile: none\n", class: Unknown, code: "tls-certificate", remedy: "environment must change"},
		{name: "proxy 407", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://github.com/o/r/': Received HTTP code 407 from proxy after CONNECT\n", class: Policy, code: "proxy-auth-required", remedy: "proxy wants credentials"},
		{name: "proxy tunnel 403", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://github.com/o/r/': CONNECT tunnel failed, response 403\n", class: Policy, code: "proxy-denied", remedy: "allowlist"},
		{name: "proxy 502", tool: ToolGit, exit: 128, text: "fatal: unable to access 'https://github.com/o/r/': Received HTTP code 502 from proxy after CONNECT\n", class: Transient, code: "proxy-upstream-failed"},
		{name: "connection refused", tool: ToolGit, exit: 128, text: "fatal: unable to access 'http://localhost:3000/x.git/': Failed to connect to localhost port 3000 after 0 ms: Connection refused\n", class: Transient, code: "connection-refused", reason: "connection refused by localhost:3000"},
		{name: "host key", tool: ToolGit, exit: 128, text: "Host key verification failed.\nfatal: Could not read from remote repository.\n", class: Structural, code: "ssh-host-key", remedy: "known_hosts"},
	})
}
