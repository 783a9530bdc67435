package failure

import "testing"

// TestSSHKinds reads ssh's failures in the shapes scp, rsync -e ssh, git,
// docker's ssh:// and deploy actions print them.
func TestSSHKinds(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "scp: host key not trusted", tool: ToolAuto, exit: 1, text: "Host key verification failed.\nlost connection\n",
			class: Structural, code: CodeSSHHostKey, remedy: "known_hosts"},
		{name: "docker over ssh: host key not trusted", tool: ToolAuto, exit: 1,
			text:  "error during connect: command [ssh -o ConnectTimeout=30 -T -l deploy -- host docker system dial-stdio] has exited with exit status 255, make sure the URL is valid: stderr=Host key verification failed.\n",
			class: Structural, code: CodeSSHHostKey, remedy: "known_hosts"},
		{name: "strict checking, no key known", tool: ToolAuto, exit: 255, text: "No ED25519 host key is known for deploy.example.com and you have requested strict checking.\nHost key verification failed.\n",
			class: Structural, code: CodeSSHHostKey, reason: "No ED25519 host key is known for deploy.example.com", remedy: "ssh-keyscan"},
		{name: "host key changed", tool: ToolAuto, exit: 255,
			text:  "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\nAdd correct host key in /home/runner/.ssh/known_hosts to get rid of this message.\nOffending RSA key in /home/runner/.ssh/known_hosts:1\nHost key for github.com has changed and you have requested strict checking.\nHost key verification failed.\n",
			class: Structural, code: CodeSSHHostKeyChanged, remedy: "known_hosts"},
		{name: "host key changed, through git", tool: ToolGit, exit: 128,
			text:  "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.\nfatal: Could not read from remote repository.\n",
			class: Structural, code: CodeSSHHostKeyChanged, remedy: "ssh-keygen -R"},
		{name: "scp: key refused", tool: ToolAuto, exit: 1, text: "deploy@203.0.113.7: Permission denied (publickey).\nlost connection\n",
			class: Policy, code: CodeSSHAuthDenied, reason: "Permission denied (publickey)", remedy: "authorized_keys"},
		{name: "rsync over ssh: key refused", tool: ToolAuto, exit: 255,
			text:  "deploy@203.0.113.7: Permission denied (publickey,password).\nrsync: connection unexpectedly closed (0 bytes received so far) [sender]\nrsync error: unexplained error (code 255) at io.c(231) [sender=3.2.7]\n",
			class: Policy, code: CodeSSHAuthDenied},
		{name: "git over ssh keeps git's code", tool: ToolGit, exit: 128, text: "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.\n",
			class: Policy, code: CodeGitSSHKey},
		{name: "connect timeout", tool: ToolAuto, exit: 255, text: "ssh: connect to host deploy.example.com port 22: Connection timed out\nlost connection\n",
			class: Transient, code: CodeTimeout},
		{name: "banner exchange timeout", tool: ToolAuto, exit: 255, text: "Connection timed out during banner exchange\nConnection to 203.0.113.7 port 22 timed out\n",
			class: Transient, code: CodeTimeout},
		{name: "kex closed by the server", tool: ToolAuto, exit: 255, text: "kex_exchange_identification: Connection closed by remote host\nConnection closed by 140.82.112.4 port 22\n",
			class: Transient, code: CodeReset},
		{name: "kex read reset", tool: ToolAuto, exit: 255, text: "kex_exchange_identification: read: Connection reset by peer\nConnection reset by 203.0.113.7 port 22\n",
			class: Transient, code: CodeReset},
		{name: "no common host key algorithm", tool: ToolAuto, exit: 255, text: "Unable to negotiate with 203.0.113.7 port 22: no matching host key type found. Their offer: ssh-rsa,ssh-dss\n",
			class: Structural, code: CodeSSHNegotiation, reason: "no matching host key type", remedy: "HostKeyAlgorithms"},
		{name: "private key too open", tool: ToolAuto, exit: 255,
			text:  "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n@         WARNING: UNPROTECTED PRIVATE KEY FILE!          @\n@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\nPermissions 0644 for '/home/runner/.ssh/id_ed25519' are too open.\nThis private key will be ignored.\n",
			class: Structural, code: CodeSSHKeyFile, remedy: "chmod 600"},
	})
}

// TestSSHPeerNotSSHKind reads a peer whose first line is no SSH banner (Go's
// "overflow reading version string", OpenSSH's "banner line contains
// invalid characters"): the host or port names something else, structural.
func TestSSHPeerNotSSHKind(t *testing.T) {
	runTextCases(t, []textCase{
		{name: "drone-scp wrong host", tool: ToolAuto, exit: 1,
			text:  "2025/04/29 09:38:00 error copy file to dest: 10.0.0.1, error message: ssh: handshake failed: ssh: overflow reading version string\n",
			class: Structural, code: CodeSSHNotSSH, remedy: "port"},
		{name: "openssh http on the port", tool: ToolAuto, exit: 255,
			text:  "kex_exchange_identification: banner line contains invalid characters\nbanner exchange: Connection to 203.0.113.7 port 443: invalid format\n",
			class: Structural, code: CodeSSHNotSSH},
	})
}
