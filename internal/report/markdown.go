package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/retrywise/retrywise/internal/failure"
)

// MaxMarkdown bounds WriteMarkdown's document in bytes (GitHub's job summary limit).
const MaxMarkdown = 1 << 20

// markdownCutNote ends a Markdown report that MaxMarkdown cut.
const markdownCutNote = "_report cut at 1 MiB: see the JSON report for everything_\n"

// WriteMarkdown renders the run as GitHub Markdown, for a job summary or a
// comment: a heading, a table of the steps, then a section per step that
// failed or was cancelled. The document stays under MaxMarkdown bytes: the
// evidence is cut first (each step keeps its first lines), and a cut report
// ends with a note saying so. It is valid UTF-8 whatever the input.
func (r *Run) WriteMarkdown(w io.Writer) error {
	_, err := io.WriteString(w, r.markdown())
	return err
}

// markdown renders the whole document, cut to fit MaxMarkdown.
func (r *Run) markdown() string {
	ev := make([]string, len(r.Steps))
	for i, s := range r.Steps {
		if needsBlock(s) && len(s.Evidence) > 0 {
			ev[i] = strings.ToValidUTF8(strings.Join(s.Evidence, "\n"), "\uFFFD")
		}
	}
	full := r.renderMarkdown(ev, nil)
	if len(full) < MaxMarkdown {
		return full
	}
	limits := make([]int, len(ev))
	base := r.renderMarkdown(ev, limits)
	if len(base) >= MaxMarkdown {
		return cutMarkdown(base)
	}
	// Share what the evidence-less document leaves among the steps'
	// evidence, each fence's markup included; shrink until it fits.
	avail := MaxMarkdown - 1 - len(base)
	for range 8 {
		share(ev, avail, limits)
		doc := r.renderMarkdown(ev, limits)
		if len(doc) < MaxMarkdown {
			return doc
		}
		avail -= len(doc) - MaxMarkdown + 1 + 256
		if avail <= 0 {
			break
		}
	}
	return base
}

// share sets limits[i] to the bytes of ev[i] kept out of avail: a step with
// less evidence than its share keeps all of it and leaves the rest to the
// others.
func share(ev []string, avail int, limits []int) {
	var idx []int
	for i, e := range ev {
		limits[i] = 0
		if e != "" {
			idx = append(idx, i)
		}
	}
	// markup is what showing any evidence adds: the label, the fences, the cut line.
	markup := make([]int, len(ev))
	for _, i := range idx {
		markup[i] = 128 + 2*fenceLen(ev[i])
	}
	size := func(i int) int { return len(ev[i]) + markup[i] }
	slices.SortStableFunc(idx, func(a, b int) int { return size(a) - size(b) })
	for k, i := range idx {
		give := min(size(i), avail/(len(idx)-k))
		avail -= give
		limits[i] = max(give-markup[i], 0)
	}
}

// cutMarkdown cuts doc, which has no fenced block, at a line boundary so
// that it and the cut note fit MaxMarkdown.
func cutMarkdown(doc string) string {
	end := MaxMarkdown - 1 - len(markdownCutNote) - 2
	doc = doc[:end]
	if i := strings.LastIndexByte(doc, '\n'); i >= 0 {
		doc = doc[:i+1]
	} else {
		doc = cutRunes(doc, len(doc)) + "\n"
	}
	return doc + "\n" + markdownCutNote
}

// renderMarkdown renders the document with the steps' evidence ev; limits
// nil keeps all of it, otherwise limits[i] bytes of ev[i] (whole lines where
// one fits), and the document ends with the cut note.
func (r *Run) renderMarkdown(ev []string, limits []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### retrywise: %s — %s\n\n", mdText(r.Run.Job), r.Run.Result)
	fmt.Fprintf(&b, "exit code **%d** in %s\n\n", r.Run.ExitCode, r.duration())
	if r.Run.Detail != "" {
		fmt.Fprintf(&b, "**detail:** %s\n\n", mdText(r.Run.Detail))
	}
	if len(r.Steps) > 0 {
		b.WriteString("| step | kind | result | class | attempts | time |\n| --- | --- | --- | --- | ---: | ---: |\n")
		for _, s := range r.Steps {
			mdRow(&b, summaryRow(s)...)
		}
		b.WriteString("\n")
	}
	for i, s := range r.Steps {
		if !needsBlock(s) {
			continue
		}
		limit := -1
		if limits != nil {
			limit = limits[i]
		}
		mdStep(&b, s, ev[i], limit)
	}
	if limits != nil {
		b.WriteString(markdownCutNote)
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// mdStep writes the section of a step that failed or was cancelled, with at
// most limit bytes of its evidence ev (all of it when limit < 0).
func mdStep(b *strings.Builder, s *Step, ev string, limit int) {
	head := string(s.Result)
	if s.Class != failure.None {
		head = s.Class.String()
		if s.Code != "" {
			head += " (" + string(s.Code) + ")"
		}
	}
	fmt.Fprintf(b, "#### %s — %s\n\n", mdText(s.ID), mdText(head))
	item := func(name, value string) {
		if value != "" {
			fmt.Fprintf(b, "- **%s:** %s\n", name, value)
		}
	}
	item("result", mdText(string(s.Result)+coeMark(s)))
	if s.Target != "" {
		item("target", codeSpan(s.Target))
	}
	for _, ref := range s.Refs {
		item("ref", mdText(refLine(ref)))
	}
	item("reason", mdText(s.Reason))
	item("remedy", mdText(s.Remedy))
	stopped := s.Detail
	if s.Class != failure.None {
		stopped = describe(s)
		if s.Detail != "" {
			stopped += "; " + s.Detail
		}
	}
	item("stopped", mdText(stopped))
	for _, n := range s.Notes {
		item("note", mdText(n))
	}
	b.WriteString("\n")
	if ev != "" {
		kept, total := ev, strings.Count(ev, "\n")+1
		if limit >= 0 && limit < len(ev) {
			kept = cutLines(ev, limit)
		}
		if kept != "" {
			fence := strings.Repeat("`", fenceLen(kept))
			fmt.Fprintf(b, "**evidence:**\n\n%stext\n%s\n%s\n\n", fence, kept, fence)
		}
		if len(kept) < len(ev) {
			n := 0
			if kept != "" {
				n = strings.Count(kept, "\n") + 1
			}
			fmt.Fprintf(b, "_evidence cut: %d of %d lines shown (%d of %d bytes)_\n\n", n, total, len(kept), len(ev))
		}
	}
	if len(s.Attempts) > 0 {
		b.WriteString("| attempt | start | duration | outcome | wait |\n| ---: | --- | ---: | --- | ---: |\n")
		head, tail, hidden := listAttempts(s.Attempts, s.AttemptsOmitted)
		for i, a := range slices.Concat(head, tail) {
			if i == len(head) && hidden > 0 {
				mdRow(b, "...", "", "", moreAttempts(hidden), "")
			}
			outcome := "ok"
			if !a.OK {
				outcome = a.Class.String()
				if a.Code != "" {
					outcome += " (" + string(a.Code) + ")"
				}
				if a.Reason != "" {
					outcome += ": " + a.Reason
				}
			}
			if a.Recheck != "" {
				outcome += "; checking once more (" + a.Recheck + ")"
			}
			wait := "-"
			if a.Wait > 0 {
				wait = Wait(a.Wait)
			}
			mdRow(b, strconv.Itoa(a.N), a.Start.Format("15:04:05"), a.Duration.Round(time.Millisecond).String(), outcome, wait)
		}
		b.WriteString("\n")
	}
}

// cutLines returns ev's first lines that fit limit bytes; the first line
// alone, cut at a rune boundary, when even it does not fit.
func cutLines(ev string, limit int) string {
	cut := cutRunes(ev, limit)
	if i := strings.LastIndexByte(cut, '\n'); i >= 0 {
		return cut[:i]
	}
	return cut
}

// cutRunes returns s's longest prefix of at most n bytes that does not split a rune.
func cutRunes(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// fenceLen is the length of a backtick fence that no run of backticks in s
// can close: one longer than the longest run, three at least.
func fenceLen(s string) int {
	return max(3, longestBackticks(s)+1)
}

// longestBackticks is the length of the longest run of backticks in s.
func longestBackticks(s string) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// mdRow writes one row of a Markdown table.
func mdRow(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" ")
		b.WriteString(mdText(c))
		b.WriteString(" |")
	}
	b.WriteString("\n")
}

// mdEscaper escapes the characters that would make text Markdown or HTML,
// and a table cell's pipe; line breaks become <br>.
var mdEscaper = strings.NewReplacer(
	"\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]",
	"<", "\\<", ">", "\\>", "|", "\\|", "~", "\\~", "&", "\\&", "#", "\\#",
	"\r\n", "<br>", "\n", "<br>", "\r", "<br>",
)

// mdText is s as literal Markdown text on one line, safe in a table cell.
func mdText(s string) string {
	return mdEscaper.Replace(s)
}

// codeSpan is s as an inline code span on one line (not for a table cell):
// its delimiter is a backtick run longer than any inside s.
func codeSpan(s string) string {
	s = oneLine(s)
	fence := strings.Repeat("`", longestBackticks(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}
