package failure

import (
	"fmt"
	"strconv"
	"strings"
)

// SMTP reply codes (RFC 5321) and enhanced status codes (RFC 3463), read in
// every client's shape: the reply and its enhanced code ("535 5.7.8",
// "535-5.7.8", "550 #5.1.0", postfix's "dsn=4.0.0"), Python's smtplib
// ("SMTPAuthenticationError: (535, b'5.7.8 ...')"), nodemailer's
// responseCode, and a bare reply where the line says it is mail's (msmtp's
// "server message: 501 ...", postfix's "status=deferred (... 421 ...)").
// A bare three-digit number is never read as SMTP without that context: a
// 550 in a byte count is not a reply.
//
//   - 4yz and 4.x.x: transient (smtp-transient), unless the text names a
//     check the sending host fails (no reverse DNS/PTR, a blocklist
//     listing, its reputation): that deferral lasts until it changes,
//     policy (smtp-policy).
//   - 530, 534, 535, 538 and 5.7.8/5.7.9/5.7.14 (authentication): policy
//     (smtp-auth).
//   - other 5.7.x, and a 5yz whose text says access denied, relaying
//     denied, blocked, spam or policy: policy (smtp-policy).
//   - 5.1.x, 553, and a 501/550 about an address: structural
//     (smtp-address).
//   - any other 5yz, 5.5.x (syntax) included: structural (smtp-rejected).

// The SMTP codes.
const (
	// CodeSMTPTransient: a 4yz reply or 4.x.x code: the server defers.
	CodeSMTPTransient Code = "smtp-transient"
	// CodeSMTPAuth: the server refuses the login (530/535, 5.7.8).
	CodeSMTPAuth Code = "smtp-auth"
	// CodeSMTPPolicy: the server refuses by policy (5.7.x, blocklists,
	// relaying without authentication).
	CodeSMTPPolicy Code = "smtp-policy"
	// CodeSMTPAddress: an address is wrong or unknown (5.1.x, 553).
	CodeSMTPAddress Code = "smtp-address"
	// CodeSMTPRejected: any other permanent 5yz reply.
	CodeSMTPRejected Code = "smtp-rejected"
)

const (
	remedySMTPTransient  = "the mail server deferred the message (a 4yz reply: greylisting, a sending limit, a busy server): retrying after a backoff; if it never clears, read the server's text (a reverse-DNS or reputation check defers forever)"
	remedySMTPAuth       = "the mail server refuses the login: set valid SMTP credentials in the job's secrets (an app password where the provider requires one, the full address as user name); retrying cannot succeed"
	remedySMTPPolicy     = "the mail server refuses by policy (relaying without authentication, a blocklisted sender IP, SPF/DKIM/DMARC, spam filtering): authenticate, send through the provider's relay, or fix the sender's domain and IP reputation; retrying cannot succeed"
	remedySMTPAddress    = "an address is wrong or unknown: fix the recipient or sender address (a full address with a domain); resending fails the same way"
	remedySMTPDeferCheck = "the mail server defers the message because the sending host fails a check (no reverse DNS/PTR for its IP, a DNS blocklist listing, the IP's or domain's reputation): it defers until that changes, not within a run; give the IP a PTR record matching its HELO name, get it delisted, or send through the provider's relay"
	remedySMTPRejected   = "the mail server rejects the message permanently: read its text and fix the message or the configuration; resending it unchanged fails the same way"
)

var (
	// reSMTPDeferCheck: the words of a 4yz deferral for a check the
	// sending host fails (reverse DNS, a blocklist, reputation).
	reSMTPDeferCheck = LazyRE(`(?i)reverse (?:dns|hostname|lookup|name)|\brDNS\b|\bPTR\b|(?:block|black|deny)[ -]?listed|blocked using \S|listed (?:at|on|in|by) \S+\.\w|\b(?:RBL|DNSBL)\b|spamhaus|spamcop|(?:IP|sender|domain) reputation`)
	// reSMTPEnhanced: a reply with its enhanced code, of the same class.
	reSMTPEnhanced = LazyRE(`(?:^|[^\w.])([245]\d\d)(?:[ -]+#?|, b['"])([245])\.(\d{1,3})\.(\d{1,3})\b`)
	// reSMTPPython: smtplib's (code, b'message') without an enhanced code.
	reSMTPPython = LazyRE(`\(([2-5]\d\d), b['"]`)
	// reSMTPResponseCode: nodemailer's responseCode.
	reSMTPResponseCode = LazyRE(`\bresponseCode['"]?\s*:\s*([2-5]\d\d)\b`)
	// reSMTPBare: a reply without an enhanced code; the line must say it
	// is mail's (reSMTPContext). A comma may end it (PEAR Mail's "(code:
	// 535, response: Denied)").
	reSMTPBare = LazyRE(`(?:^|[\s(\[<'"])([45]\d\d)(?:[ ,-]|$)`)
	// reSMTPPort: the words before a number that make it a port ("port
	// 587", "smtp.example.org:465"), not a reply.
	reSMTPPort = LazyRE(`(?i)\bport:?\s*$|[\w\]]:$`)
	// reSMTPDSN: postfix's and sendmail's dsn=X.Y.Z.
	reSMTPDSN         = LazyRE(`\bdsn=([245])\.(\d{1,3})\.(\d{1,3})\b`)
	reSMTPContext     = LazyRE(`(?i)\bsmtp|\besmtp\b|mailbox|recipient|sender address|\brelay|mail from|rcpt to|requested action|postfix/|msmtp|sendmail|status=(?:deferred|bounced)|\bhelo\b|\behlo\b|gsmtp|blocked using|server message:|invalid login: [45]\d\d`)
	reSMTPAuthWords   = LazyRE(`(?i)auth|log ?in\b|password|credential|username`)
	reSMTPPolicyWords = LazyRE(`(?i)access denied|relay(?:ing)?(?: access)? denied|not permitted|blocked|block ?list|black ?list|spam|\bpolicy\b|reputation|not authori[sz]ed`)
	reSMTPAddrWords   = LazyRE(`(?i)address|mailbox|user unknown|no such user|does not exist|unknown user`)
)

// smtpContextWords are what show an output is a mail client's, for the
// shapes that carry no SMTP word on their own line (nodemailer's
// responseCode).
var smtpContextWords = []string{"smtp", "SMTP", "EAUTH", "EENVELOPE", "EMESSAGE", "command: '", `"command": "`, "nodemailer"}

// smtpHit classifies a reply (0 when only an enhanced code is known) with
// its enhanced code (ec 0 when none) and the line's words.
func smtpHit(reply, ec, es, ed int, line string) (Hit, bool) {
	kind := reply / 100
	if reply == 0 {
		kind = ec
	}
	if ec != 0 && ec != kind {
		ec, es, ed = 0, 0, 0 // a stray X.Y.Z of another class: not this reply's
	}
	code := ""
	if reply != 0 {
		code = strconv.Itoa(reply)
	}
	if ec != 0 {
		code = strings.TrimSpace(fmt.Sprintf("%s %d.%d.%d", code, ec, es, ed))
	}
	h := Hit{Rank: rankStdCode}
	switch {
	case kind == 4 && reSMTPDeferCheck.MatchString(line):
		// a deferral for a check the sender fails (reverse DNS, a
		// blocklist, reputation) lasts as long as that is so
		h.Class, h.Code, h.Remedy = Policy, CodeSMTPPolicy, remedySMTPDeferCheck
		h.Reason = "the mail server defers it for a check the sender fails (SMTP " + code + ")"
		return h, true
	case kind == 4:
		h.Class, h.Code, h.Remedy = Transient, CodeSMTPTransient, remedySMTPTransient
		h.Reason = "the mail server deferred it (SMTP " + code + ", a temporary failure)"
	case kind != 5:
		return Hit{}, false // 2yz/3yz: not a failure
	case reply == 530 || reply == 534 || reply == 535 || reply == 538 || es == 7 && (ed == 8 || ed == 9 || ed == 14 || ed == 0 && reSMTPAuthWords.MatchString(line)):
		h.Class, h.Code, h.Remedy = Policy, CodeSMTPAuth, remedySMTPAuth
		h.Reason = "the mail server refused the login (SMTP " + code + ")"
	case es == 7 || reSMTPPolicyWords.MatchString(line):
		h.Class, h.Code, h.Remedy = Policy, CodeSMTPPolicy, remedySMTPPolicy
		h.Reason = "the mail server refused it by policy (SMTP " + code + ")"
	case es == 1 || reply == 553 || (reply == 501 || reply == 550 || reply == 554) && reSMTPAddrWords.MatchString(line):
		h.Class, h.Code, h.Remedy = Structural, CodeSMTPAddress, remedySMTPAddress
		h.Reason = "the mail server rejected an address (SMTP " + code + ")"
	default:
		h.Class, h.Code, h.Remedy = Structural, CodeSMTPRejected, remedySMTPRejected
		h.Reason = "the mail server rejected it permanently (SMTP " + code + ")"
	}
	return h, true
}

// reSMTPCouldNotAuth: PHPMailer's "SMTP Error: Could not authenticate.",
// which it prints for a refused AUTH without the server's reply.
var reSMTPCouldNotAuth = LazyRE(`SMTP Error: Could not authenticate\b`)

// reMailFunction: PHPMailer's "Could not instantiate mail function.": PHP's
// mail() found no local mail transfer agent to hand the message to.
var reMailFunction = LazyRE(`Could not instantiate mail function`)

var smtpMatchers = []Matcher{
	{
		Gates: []string{"Could not instantiate mail function"},
		RE:    reMailFunction,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Structural, Code: CodeSMTPRejected, Rank: rankStdWords, Reason: "PHP's mail() could not hand the message to a local mail transfer agent",
				Remedy: "the machine has no working sendmail (PHP's sendmail_path): install and configure an MTA, or send through SMTP (PHPMailer's isSMTP with the provider's host); retrying cannot succeed"}, true
		},
	},
	{
		Gates: []string{"SMTP Error: Could not authenticate"},
		RE:    reSMTPCouldNotAuth,
		Build: func(_ *ScanCtx, _ string, _ []string) (Hit, bool) {
			return Hit{Class: Policy, Code: CodeSMTPAuth, Rank: rankStdWords, Reason: "the mail server refused the login (SMTP Error: Could not authenticate)", Remedy: remedySMTPAuth}, true
		},
	},
	{
		// "535 5.7.8", "535-5.7.8", "550 #5.1.0", "(535, b'5.7.8"
		Gates: []string{" 5.", "-5.", "#5.", " 4.", "-4.", "#4.", "b'5.", "b'4.", `b"5.`, `b"4.`},
		RE:    reSMTPEnhanced,
		Build: func(_ *ScanCtx, line string, m []string) (Hit, bool) {
			return smtpHit(Atoi(m[1]), Atoi(m[2]), Atoi(m[3]), Atoi(m[4]), line)
		},
	},
	{
		Gates: []string{", b'", `, b"`},
		RE:    reSMTPPython,
		Build: func(_ *ScanCtx, line string, m []string) (Hit, bool) {
			if !strings.Contains(line, "SMTP") && !reSMTPContext.MatchString(line) {
				return Hit{}, false
			}
			return smtpHit(Atoi(m[1]), 0, 0, 0, line)
		},
	},
	{
		Gates: []string{"responseCode"},
		RE:    reSMTPResponseCode,
		Build: func(c *ScanCtx, line string, m []string) (Hit, bool) {
			if !c.textHolds(smtpContextWords...) {
				return Hit{}, false
			}
			return smtpHit(Atoi(m[1]), 0, 0, 0, c.around(line))
		},
	},
	{
		Gates: []string{"dsn="},
		RE:    reSMTPDSN,
		Build: func(_ *ScanCtx, line string, m []string) (Hit, bool) {
			h, ok := smtpHit(0, Atoi(m[1]), Atoi(m[2]), Atoi(m[3]), line)
			h.Rank -= 2 // the reply beside it says more
			return h, ok
		},
	},
	{
		Gates: gateVariants([]string{"smtp", "SMTP", "mailbox", "ecipient", "ender address", "elay", "equested action", "postfix/", "msmtp", "sendmail", "status=deferred", "status=bounced", "blocked using", "server message:", "nvalid login: "}),
		RE:    reSMTPBare,
		Build: func(_ *ScanCtx, line string, _ []string) (Hit, bool) {
			if !reSMTPContext.MatchString(line) {
				return Hit{}, false
			}
			for off, n := 0, 0; off < len(line) && n < 8; n++ {
				ix := reSMTPBare.FindStringSubmatchIndex(line[off:])
				if ix == nil {
					break
				}
				at, end := off+ix[2], off+ix[3]
				if reSMTPPort.MatchString(line[:at]) {
					off = end // a port, not a reply
					continue
				}
				h, ok := smtpHit(Atoi(line[at:end]), 0, 0, 0, line)
				h.Rank--
				return h, ok
			}
			return Hit{}, false
		},
	},
}
