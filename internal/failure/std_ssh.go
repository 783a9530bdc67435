package failure

import "strings"

// ssh, scp and rsync over ssh: OpenSSH words its failures the same whoever
// runs it (git, scp, rsync -e ssh, docker's ssh://, ansible, a deploy
// action), so they are read here once:
//
//   - the server refuses every key ("Permission denied (publickey)", Go's
//     x/crypto/ssh "unable to authenticate, attempted methods [...], no
//     supported methods remain"): policy, the key must change (git's own
//     wording keeps git's code);
//   - the host key is not the one known_hosts holds ("Host key verification
//     failed", "REMOTE HOST IDENTIFICATION HAS CHANGED", "No ED25519 host
//     key is known for ..."): structural, known_hosts must change; it is
//     never retried and never "fixed" by disabling the check;
//   - no common algorithm ("Unable to negotiate ... no matching host key
//     type found") and a private key ssh refuses to read ("UNPROTECTED
//     PRIVATE KEY FILE", "bad permissions", "Bad owner or permissions on"):
//     structural;
//   - connect timeouts, "Connection timed out during banner exchange" and
//     "kex_exchange_identification: Connection closed by remote host" are
//     the network recognisers' (transient): a server at its MaxStartups
//     limit or a blip closes the connection before the key exchange.

// The ssh codes.
const (
	// CodeSSHAuthDenied: the ssh server refused every key (or password) offered.
	CodeSSHAuthDenied Code = "ssh-auth-denied"
	// CodeSSHHostKeyChanged: the server's host key is not the one known_hosts holds.
	CodeSSHHostKeyChanged Code = "ssh-host-key-changed"
	// CodeSSHNegotiation: client and server share no key exchange, host key or cipher algorithm.
	CodeSSHNegotiation Code = "ssh-negotiation-failed"
	// CodeSSHKeyFile: ssh refuses to use a private key or config file (permissions, owner).
	CodeSSHKeyFile Code = "ssh-key-file-refused"
	// CodeSSHNotSSH: the peer's first line is no SSH banner: the host or
	// port names another service.
	CodeSSHNotSSH Code = "ssh-peer-not-ssh"
)

const (
	remedySSHHostKey = "the host's key is not in known_hosts: add it (ssh-keyscan -H HOST >> ~/.ssh/known_hosts after checking its fingerprint, or the known_hosts input of the action that sets up the key); never turn StrictHostKeyChecking off to get past it; retrying cannot succeed"
	remedySSHChanged = "the host's key differs from the one in known_hosts: check the new fingerprint with the server's owner (a reinstalled server, a rotated key such as GitHub's of 2023-03-24, or a man in the middle), then replace the entry (ssh-keygen -R HOST and add the new key, or update the known_hosts secret); retrying cannot succeed"
	remedySSHAuth    = "the ssh server refuses the key: install the right private key (complete, in OpenSSH format, loaded with ssh-add or -i) and its public key in the server's authorized_keys (or as a deploy key); retrying cannot succeed"
)

var (
	reSSHHostKeyChanged = LazyRE(`(?i)remote host identification has changed|host key for \S+ has changed and you have requested strict checking`)
	reSSHNoHostKey      = LazyRE(`No \w+ host key is known for \S+ and you have requested strict checking`)
	reSSHNegotiate      = LazyRE(`Unable to negotiate with \S+(?: port \d+)?: no matching (host key type|key exchange method|cipher|MAC) found`)
	reGoSSHAuth         = LazyRE(`unable to authenticate, attempted methods \[[^\]]*\], no supported methods remain`)
	reSSHKeyFile        = LazyRE(`UNPROTECTED PRIVATE KEY FILE|Permissions 0\d{3} for '[^']+' are too open|Bad owner or permissions on \S+`)
)

var sshMatchers = []Matcher{
	{
		Gates: []string{"IDENTIFICATION HAS CHANGED", "identification has changed", "has changed and you have requested strict checking"},
		RE:    reSSHHostKeyChanged,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeSSHHostKeyChanged, Rank: rankConfig + 1, Reason: "the SSH host key changed (it is not the one known_hosts holds)", Remedy: remedySSHChanged}, true
		},
	},
	{
		Gates: []string{"host key is known for"},
		RE:    reSSHNoHostKey,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeSSHHostKey, Rank: rankConfig, Reason: "SSH host key not known (\"" + Clip(m[0]) + "\")", Remedy: remedySSHHostKey}, true
		},
	},
	{
		Gates: []string{"Unable to negotiate with"},
		RE:    reSSHNegotiate,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeSSHNegotiation, Rank: rankConfig, Reason: "ssh found no matching " + m[1] + " with the server",
				Remedy: "client and server share no algorithm: enable one the server offers (HostKeyAlgorithms, KexAlgorithms, Ciphers in ssh_config, e.g. +ssh-rsa for an old server) or upgrade the server; retrying cannot succeed"}, true
		},
	},
	{
		Gates: []string{"UNPROTECTED PRIVATE KEY FILE", "are too open", "Bad owner or permissions on"},
		RE:    reSSHKeyFile,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeSSHKeyFile, Rank: rankConfig, Reason: "ssh refuses a key or config file (\"" + Clip(m[0]) + "\")",
				Remedy: "ssh reads only private keys and configs that others cannot read or write: chmod 600 the key (700 ~/.ssh) and make the user own them; retrying cannot succeed"}, true
		},
	},
	{
		// a peer whose first line is no SSH banner: Go's x/crypto/ssh reads
		// 255 bytes without one, OpenSSH finds characters no banner holds
		Gates: []string{"overflow reading version string", "banner line contains invalid characters"},
		Build: func(_ *ScanCtx, line string, _ []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeSSHNotSSH, Rank: rankConfig, Reason: "the peer does not speak SSH (\"" + Clip(strings.TrimSpace(line)) + "\")",
				Remedy: "the host or port answers with another protocol (a web server, a proxy, a wrongly formatted host): fix the host and port the job connects to; retrying cannot succeed"}, true
		},
	},
	{
		// golang.org/x/crypto/ssh's refusal of every method offered, as
		// drone-scp, the ssh actions, terraform's provisioners and packer
		// print it: the same refusal as OpenSSH's, whatever timeout words
		// the caller wraps around it
		Gates: []string{"unable to authenticate, attempted methods"},
		RE:    reGoSSHAuth,
		Build: func(_ *ScanCtx, _ string, m []string) (Hit, bool) {
			return Hit{Class: Policy, Code: CodeSSHAuthDenied, Rank: rankStdTarget, Reason: "the ssh server refused every method offered (\"" + Clip(m[0]) + "\")", Remedy: remedySSHAuth}, true
		},
	},
	{
		// git's own wording ("fatal: Could not read from remote repository")
		// keeps git's code; anything else running ssh gets the ssh kind
		Gates: []string{"Permission denied (publickey", "Permission denied (keyboard", "Permission denied (password"},
		Build: func(c *ScanCtx, line string, _ []string) (Hit, bool) {
			if c.Tool == ToolGit || strings.Contains(c.Text, "Could not read from remote repository") {
				return Hit{}, false
			}
			return Hit{Class: Policy, Code: CodeSSHAuthDenied, Rank: RankRefusal, Reason: "the ssh server refused the key (\"" + Clip(strings.TrimSpace(line)) + "\")", Remedy: remedySSHAuth}, true
		},
	},
}

func init() { opsMatchers = append(opsMatchers, sshMatchers) }
