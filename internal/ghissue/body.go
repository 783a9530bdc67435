package ghissue

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/redact"
)

// Label is the label every failure issue carries; the open issues are listed by it.
const Label = "retrywise"

// MaxBodyLen is GitHub's limit on an issue's or a comment's body (65536
// characters). Bodies are measured in bytes, which are never fewer than
// GitHub's characters, so a body that fits here fits there.
const MaxBodyLen = 65536

// MaxTitleLen is GitHub's limit on an issue's title (256 characters), measured in bytes as MaxBodyLen.
const MaxTitleLen = 256

// Marker returns the hidden HTML comment that identifies the failure issue of
// run's repository, workflow and job; the values are escaped (see
// escapeMarker) so that no name can end the comment or a quoted value early.
func Marker(run Run) string {
	return fmt.Sprintf(`<!-- retrywise-failure repository="%s" workflow="%s" job="%s" -->`,
		escapeMarker(run.Repository()), escapeMarker(run.Workflow), escapeMarker(run.Job))
}

// escapeMarker percent-encodes '%', '"', '<', '>' and control characters:
// without '>' no "-->" or "--!>" can close the comment, without '"' no value
// can end early, and the encoding cannot collide with a name's own text.
func escapeMarker(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || c == '"' || c == '<' || c == '>' || c < 0x20 || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Title returns "retrywise: WORKFLOW / JOB failed", with control characters
// as spaces and the names cut (with redact.Clip, ending in "…") to fit
// MaxTitleLen.
func Title(run Run) string { return titleWith(run, "failed") }

// titleWith returns "retrywise: WORKFLOW / JOB what", fitted as Title's.
func titleWith(run Run, what string) string {
	const prefix = "retrywise: "
	suffix := " " + what
	names := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(run.Workflow+" / "+run.Job, "\uFFFD"))
	if room := MaxTitleLen - len(prefix) - len(suffix); len(names) > room {
		names = redact.Clip(names, room-len(redact.Cut))
	}
	return prefix + names + suffix
}

// headline is the first visible line of a body: which job of which workflow
// did what, in which run (linked). Names are code spans, so that a name
// cannot mention (@) anyone or be read as Markdown.
func headline(run Run, what string) string {
	runText := fmt.Sprintf("run %d", run.ID)
	if run.Attempt > 1 {
		runText += fmt.Sprintf(", attempt %d", run.Attempt)
	}
	return fmt.Sprintf("retrywise: job %s of workflow %s %s in [%s](%s).",
		codeSpan(run.Job), codeSpan(run.Workflow), what, runText, run.URL())
}

// codeSpan returns s as a Markdown code span: fenced by one more backtick
// than its longest run of backticks, padded when it starts or ends with one.
func codeSpan(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// cutNote is appended to a report that was cut to fit MaxBodyLen.
func cutNote(run Run) string {
	return fmt.Sprintf("> [!NOTE]\n> The report was cut to fit GitHub's limit of %d characters; the full report is in the step summary and the report artifact of [the run](%s).", MaxBodyLen, run.URL())
}

// compose returns head, a blank line, then report: the whole report when it
// fits in MaxBodyLen, else its start (cut at a line end where one is near,
// with an open code fence closed) followed by cutNote. The head is never cut.
func compose(run Run, head, report string) string {
	report = strings.ToValidUTF8(strings.TrimRight(report, "\n"), "\uFFFD")
	if report == "" {
		return head
	}
	whole := head + "\n\n" + report
	if len(whole) <= MaxBodyLen {
		return whole
	}
	note := cutNote(run)
	room := max(MaxBodyLen-len(head)-len("\n\n")-len("\n\n")-len(note), 0)
	part := cutUTF8(report, room)
	if i := strings.LastIndexByte(part, '\n'); i >= 0 && len(part)-i <= 4096 {
		part = part[:i]
	}
	for {
		f := openFence(part)
		if f == "" {
			break
		}
		if len(part)+1+len(f) <= room {
			part += "\n" + f
			break
		}
		part = cutUTF8(part, max(room-1-len(f), 0))
	}
	return head + "\n\n" + part + "\n\n" + note
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends on a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// openFence returns the opening fence (``` or ~~~, or longer) of the fenced
// code block md ends inside, following CommonMark's rules; "" when none.
func openFence(md string) string {
	fence := ""
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\r\n")
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 || t == "" || (t[0] != '`' && t[0] != '~') {
			continue
		}
		n := len(t) - len(strings.TrimLeft(t, t[:1]))
		switch {
		case n < 3:
		case fence == "":
			if t[0] == '`' && strings.Contains(t[n:], "`") {
				continue // not a fence: a backtick fence's info string has no backtick
			}
			fence = t[:n]
		case t[0] == fence[0] && n >= len(fence) && strings.TrimSpace(t[n:]) == "":
			fence = ""
		}
	}
	return fence
}

// issueBody is the body of a new failure issue: marker, the hindsight
// book's marker, headline, report.
func issueBody(run Run, report string, hs Hindsight) string {
	what := "failed"
	if hs.Persistent != nil {
		what = persistentWhat(hs.Persistent)
	}
	return compose(run, Marker(run)+"\n"+bookLine(hs)+headline(run, what), report)
}

// failureComment is the comment added to an open failure issue on another
// failure, carrying the hindsight book's marker.
func failureComment(run Run, report string, hs Hindsight) string {
	what := "failed again"
	if hs.Persistent != nil {
		what = persistentWhat(hs.Persistent)
	}
	return compose(run, bookLine(hs)+headline(run, what), report)
}

// bookLine is the book's marker on a line of its own; "" for none.
func bookLine(hs Hindsight) string {
	if m := BookMarker(hs.Book); m != "" {
		return m + "\n"
	}
	return ""
}

// recoveredComment is the comment that closes the failure issue.
func recoveredComment(run Run) string {
	return fmt.Sprintf("retrywise: recovered in [run %d](%s): job %s of workflow %s succeeded; closing.",
		run.ID, run.URL(), codeSpan(run.Job), codeSpan(run.Workflow))
}
