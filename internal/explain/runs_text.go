package explain

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/retrywise/retrywise/internal/failure"
)

// chartClasses are the classes of the chart, from the bars' bottom up, and
// their colours (GitHub's Primer palette): what a re-run may fix at the
// bottom, what must change at the top.
var chartClasses = []struct {
	class  failure.Class
	colour string
}{
	{failure.Transient, "#1a7f37"},
	{failure.Absent, "#0969da"},
	{failure.Unknown, "#8250df"},
	{failure.Structural, "#bc4c00"},
	{failure.Policy, "#cf222e"},
}

// days fills Days: every day of the window, oldest first.
func (tb *Table) days() {
	tb.Days = []Day{}
	first := tb.Since.UTC().Truncate(24 * time.Hour)
	for d := first; !d.After(tb.Until); d = d.Add(24 * time.Hour) {
		day := Day{Date: d.Format(time.DateOnly), Classes: map[string]int{}}
		for c, n := range tb.perDay[day.Date] {
			day.Classes[c] = n
		}
		tb.Days = append(tb.Days, day)
	}
}

// headline says what the table holds, in one line.
func (tb *Table) headline() string {
	what := tb.Repo
	if tb.Workflow != "" {
		what += " " + tb.Workflow
	}
	h := fmt.Sprintf("%s since %s: %d failed runs read (%d passed on a re-run), %d steps", what, tb.Since.Format(time.RFC3339), tb.Runs, tb.PassedOnRerun, len(tb.Rows))
	n := 0
	for _, r := range tb.Rows {
		if r.Persistent != nil {
			n++
		}
	}
	if n > 0 {
		h += fmt.Sprintf(", %d failing persistently", n)
	}
	h += fmt.Sprintf(", %d API calls; ", tb.Calls)
	if tb.Complete {
		return h + "complete"
	}
	return h + "cut short: " + tb.Cut
}

// joinCounts writes counts as "name N", most first, then by name.
func joinCounts(m map[string]int) string {
	type kv struct {
		k string
		n int
	}
	var list []kv
	for k, n := range m {
		list = append(list, kv{k, n})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].n != list[j].n {
			return list[i].n > list[j].n
		}
		return list[i].k < list[j].k
	})
	parts := make([]string, len(list))
	for i, x := range list {
		parts[i] = fmt.Sprintf("%s %d", x.k, x.n)
	}
	return strings.Join(parts, ", ")
}

// stepName is a row's "job / step".
func (r *Row) stepName() string {
	if r.Step == "" {
		return r.Job
	}
	return r.Job + " / " + r.Step
}

// persistence says a row's streak in words, "-" when none.
func (r *Row) persistence() string {
	p := r.Persistent
	if p == nil {
		return "-"
	}
	s := fmt.Sprintf("%d runs since %s (%s %s", p.Runs, p.Since.UTC().Format(time.RFC3339), p.Class, p.Kind)
	if p.Target != "" {
		s += " on " + p.Target
	}
	return s + ")"
}

// WriteText renders the table for a terminal: the headline, one line per
// workflow and step, and what cut it short.
func (tb *Table) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "retrywise explain %s\n\n", failure.Printable(tb.Headline))
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKFLOW\tJOB / STEP\tRUNS\tRE-RUN\tPASSED\tCLASSES\tCODES\tPERSISTENT")
	for _, r := range tb.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", failure.Printable(r.Workflow), failure.Printable(r.stepName()), r.Runs, r.Rerun, r.RerunPassed,
			joinCounts(r.Classes), failure.Printable(joinCounts(r.Codes)), r.persistence())
	}
	tw.Flush()
	if len(tb.Rows) == 0 {
		b.WriteString("(no failed step in the window)\n")
	}
	if tb.Complete {
		b.WriteString("\ntable:    complete: every run of the window was read\n")
	} else {
		fmt.Fprintf(&b, "\ntable:    cut short: %s\n", failure.Printable(tb.Cut))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the table as JSON (its shape: docs/commands/explain.md).
func (tb *Table) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(tb)
}

// mdCell is s fit for a Markdown table's cell.
func mdCell(s string) string {
	return strings.ReplaceAll(failure.Printable(s), "|", `\|`)
}

// WriteMarkdown writes the table as Markdown: the headline, the table, and
// a Mermaid chart GitHub renders (xychart-beta) of the failed runs per day,
// by class, the classes stacked.
func (tb *Table) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## retrywise explain: failed runs of %s\n\n%s\n\n", mdCell(tb.Repo), mdCell(tb.Headline))
	b.WriteString("| workflow | job / step | runs | re-run | passed on re-run | classes | codes | persistent |\n|---|---|---:|---:|---:|---|---|---|\n")
	for _, r := range tb.Rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %s | %s | %s |\n", mdCell(r.Workflow), mdCell(r.stepName()), r.Runs, r.Rerun, r.RerunPassed,
			mdCell(joinCounts(r.Classes)), mdCell(joinCounts(r.Codes)), mdCell(r.persistence()))
	}
	if tb.Complete {
		b.WriteString("\nThe table is complete: every run of the window was read.\n")
	} else {
		fmt.Fprintf(&b, "\n**Cut short:** %s\n", mdCell(tb.Cut))
	}

	// The chart: one bar series per class, each the sum of the classes up
	// to it, drawn from the tallest: the bars look stacked.
	b.WriteString("\n### Failed runs per day, by class\n\n```mermaid\n")
	colours := make([]string, len(chartClasses))
	for i := range chartClasses {
		colours[i] = chartClasses[len(chartClasses)-1-i].colour
	}
	fmt.Fprintf(&b, "%%%%{init: {\"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"%s\"}}}}%%%%\n", strings.Join(colours, ", "))
	b.WriteString("xychart-beta\n    title \"Failed runs per day\"\n")
	labels := make([]string, len(tb.Days))
	top := 1
	for i, d := range tb.Days {
		labels[i] = fmt.Sprintf("%q", d.Date[5:])
		n := 0
		for _, c := range d.Classes {
			n += c
		}
		top = max(top, n)
	}
	fmt.Fprintf(&b, "    x-axis [%s]\n    y-axis \"failed runs\" 0 --> %d\n", strings.Join(labels, ", "), top)
	for upTo := len(chartClasses) - 1; upTo >= 0; upTo-- {
		vals := make([]string, len(tb.Days))
		for i, d := range tb.Days {
			n := 0
			for _, c := range chartClasses[:upTo+1] {
				n += d.Classes[c.class.String()]
			}
			vals[i] = fmt.Sprint(n)
		}
		fmt.Fprintf(&b, "    bar [%s]\n", strings.Join(vals, ", "))
	}
	b.WriteString("```\n\nFrom the bottom of each bar: ")
	var legend []string
	for _, c := range chartClasses {
		legend = append(legend, fmt.Sprintf("%s (`%s`)", c.class, c.colour))
	}
	b.WriteString(strings.Join(legend, ", ") + ". A run counts once, under its worst failed step's class; a run that passed on a re-run counts on the day it failed.\n")
	_, err := io.WriteString(w, b.String())
	return err
}
