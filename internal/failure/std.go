package failure

import (
	"strings"
	"time"
)

// The standards layer: what tools print in a standard's own form, read with
// one table per standard whatever the tool (mail senders, certificate
// renewers, database clients, any program's errno, kubectl and helm):
//
//   - SMTP reply codes and enhanced status codes (RFC 5321, RFC 3463):
//     std_smtp.go;
//   - ACME problem types (RFC 8555, and the older urn:acme:error:*):
//     std_acme.go;
//   - SQLSTATE classes, MySQL's client errors and the words PostgreSQL's
//     clients print without a code: std_sqlstate.go;
//   - errno names and their strerror texts: std_errno.go;
//   - Kubernetes API status reasons: std_kube.go;
//   - tools' own numbered error formats, read by the kinds their
//     documentation gives each code family (Prisma's P1xxx-P4xxx,
//     pgBackRest's [NNN] and its error names): std_toolcodes.go.
//
// Every verdict carries a code that names the standard, not a tool
// (smtp-auth, acme-bad-nonce, sqlstate-08, errno-enospc, kube-forbidden),
// listed in docs/failures.md. The layer sits beside the generic layer: a
// standard's explicit code ranks above the generic phrases and the HTTP
// status reader (a "550" read as HTTP is SMTP's), and below the tool
// recognisers' own verdicts where both may speak.

// The ranks of the standards layer.
const (
	// rankStdCode: a standard's explicit code (a reply with its enhanced
	// code, a problem type, a SQLSTATE, a status reason): above an HTTP
	// status a tool prints beside it and the generic layer's phrases,
	// below a rate limit's own words and the tool recognisers.
	rankStdCode = RankRateLimit + 3
	// rankStdWords: a standard's words without its code (PostgreSQL's
	// "password authentication failed", an errno's text): above the
	// generic phrases, below an explicit status.
	rankStdWords = RankStatus + 2
	// rankStdTarget: a full disk or read-only file system: the target
	// itself must change, whatever the transport noise after it (a broken
	// pipe, a reset) says.
	rankStdTarget = RankRefusal + 1
)

// stdMatchers are the standards layer's matchers.
var stdMatchers = concatMatchers(smtpMatchers, acmeMatchers, sqlMatchers, errnoMatchers, kubeMatchers, toolCodeMatchers)

func init() {
	// The standards layer runs with the generic layer (allMatchers joins
	// genericMatchers on first use, after every init).
	genericMatchers = append(genericMatchers, stdMatchers...)
}

// now is the time the classification runs at: the caller's (Input.Now),
// else the clock's.
func (c *ScanCtx) now() time.Time {
	if !c.run.now.IsZero() {
		return c.run.now
	}
	return time.Now()
}

// textHolds reports whether the text holds any of words: the context a
// standard's bare number needs before it is read as that standard's.
func (c *ScanCtx) textHolds(words ...string) bool {
	for _, w := range words {
		if strings.Contains(c.Text, w) {
			return true
		}
	}
	return false
}

// aroundBefore bounds how far before a line around reads.
const aroundBefore = 600

// around returns the line with up to aroundBefore bytes before it and the
// few lines after it: an error object printed over lines (nodemailer's
// response, then its responseCode).
func (c *ScanCtx) around(line string) string {
	end := min(c.LineEnd, len(c.Text))
	if end <= 0 || !strings.HasSuffix(c.Text[:end], line) {
		return line
	}
	lo := max(0, end-len(line)-aroundBefore)
	return c.Text[lo:end] + "\n" + strings.Join(FollowingLines(c.Text, end, quotaLookAhead), "\n")
}
