package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
)

// The report of `xdpmicro replay`: a table, JSON, BMF and Markdown.

// OfReplay is a capture's replay, or two builds' compared.
func OfReplay(r *results.Replay) Content { return Content{KindReplay, r} }

// replayRenderings are the replay's rows of the registry.
func replayRenderings() []rendering {
	return []rendering{
		{kind: KindReplay, format: Table, text: true, forPeople: true, render: func(w io.Writer, x any, v View) error {
			return writeReplayTable(w, x.(*results.Replay), v)
		}},
		{kind: KindReplay, format: JSON, note: "every packet's path and figures", render: func(w io.Writer, x any, _ View) error { return writeJSON(w, x) }},
		{kind: KindReplay, format: BMF, note: "for Bencher", render: func(w io.Writer, x any, _ View) error { return writeJSON(w, replayBMF(x.(*results.Replay))) }},
		{kind: KindReplay, format: Markdown, note: "for a GitHub comment or job summary", render: func(w io.Writer, x any, _ View) error {
			return writeReplayMarkdown(w, x.(*results.Replay))
		}},
	}
}

// nsInterval is an estimate as "93.8 ns [70.4 190.4]".
func nsInterval(p, lo, hi float64) string {
	return fmt.Sprintf("%s [%s %s]", printable.NS(p), printable.NS(lo), printable.NS(hi))
}

func shareText(share float64) string { return fmt.Sprintf("%.1f %%", 100*share) }

// replayTitle names what was replayed through what.
func replayTitle(r *results.Replay) string {
	return fmt.Sprintf("%s in %s, %s: %d packets of %s in order, maps carried; timed %d times",
		r.Program, r.Object, r.Type, r.Packets, r.Capture, r.Replays)
}

// replaySummary is the traffic's figures in two lines.
func replaySummary(r *results.Replay) []string {
	lines := []string{
		fmt.Sprintf("mean per packet %s ns net of the floor (%s ns); the interval is meant to hold the next replay's", nsInterval(r.Mean.Point, r.Mean.Lower, r.Mean.Upper), printable.NS(r.Floor)),
		fmt.Sprintf("per packet: p50 %s ns, p90 %s ns, p99 %s ns", printable.NS(r.P50), printable.NS(r.P90), printable.NS(r.P99)),
	}
	if r.PPSPerCore > 0 {
		l := fmt.Sprintf("packets a second per core at the mean: %.3g (the program alone)", r.PPSPerCore)
		if r.RatePPS > 0 {
			l += fmt.Sprintf("; %.3g packets a second take %.3f cores", r.RatePPS, r.Cores)
		}
		lines = append(lines, l)
	}
	if r.Reference != nil {
		lines = append(lines, fmt.Sprintf("kernel run-time statistics over one more replay: %s ns net (%s raw, floor %s)",
			printable.NS(r.Reference.Mean), printable.NS(r.Reference.Raw), printable.NS(r.Reference.Floor)))
	}
	return lines
}

// kindRows are the rows of the kinds' table.
func kindRows(r *results.Replay) [][]string {
	var rows [][]string
	for _, k := range r.Kinds {
		insns := fmt.Sprint(k.Instructions[0])
		if k.Instructions[1] != k.Instructions[0] {
			insns = fmt.Sprintf("%d–%d", k.Instructions[0], k.Instructions[1])
		}
		rows = append(rows, []string{k.Name, fmt.Sprint(k.Packets), shareText(k.PacketShare), shareText(k.TimeShare), insns,
			nsInterval(k.Mean.Point, k.Mean.Lower, k.Mean.Upper), fmt.Sprint(len(k.Paths))})
	}
	return rows
}

var kindHeader = []string{"packets that (action: map effects)", "packets", "of packets", "of time", "insns", "mean ns [next replay]", "paths"}

// pathRows are the rows of the paths' table.
func pathRows(r *results.Replay) [][]string {
	var rows [][]string
	for _, p := range r.Paths {
		rows = append(rows, []string{fmt.Sprint(p.ID), wrapCell(p.Name, 60), fmt.Sprint(p.Packets), shareText(p.PacketShare), shareText(p.TimeShare),
			nsInterval(p.Mean.Point, p.Mean.Lower, p.Mean.Upper), fmt.Sprint(p.First), fmt.Sprintf("%d of %d", p.EffectsRead, p.Packets)})
	}
	return rows
}

var pathHeader = []string{"path", "action, instructions: map effects", "packets", "of packets", "of time", "mean ns [next replay]", "first", "effects read"}

// writeReplayTable writes the replay as tables: the comparison, or the
// kinds and, wide, every path.
func writeReplayTable(w io.Writer, r *results.Replay, v View) error {
	if r.Change != nil {
		return writeReplayComparison(w, r, v)
	}
	fmt.Fprintln(w, replayTitle(r))
	for _, l := range replaySummary(r) {
		fmt.Fprintln(w, "  "+l)
	}
	right := []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight}
	t := lightTable(w, tw.CellAlignment{Global: tw.AlignLeft, PerColumn: right})
	t.Header(kindHeader)
	if err := t.Bulk(kindRows(r)); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	if v.Wide || len(r.Paths) <= 12 {
		fmt.Fprintln(w, "paths (the same blocks run as often, to the same action):")
		t = lightTable(w, tw.CellAlignment{Global: tw.AlignRight, PerColumn: []tw.Align{tw.AlignRight, tw.AlignLeft}})
		t.Header(pathHeader)
		if err := t.Bulk(pathRows(r)); err != nil {
			return err
		}
		if err := t.Render(); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(w, "  %d paths: --wide lists them, the JSON holds them and every packet's\n", len(r.Paths))
	}
	writeReplayNotes(w, r)
	return nil
}

// writeReplayNotes writes the lines under the tables.
func writeReplayNotes(w io.Writer, r *results.Replay) {
	var means []string
	for _, m := range r.ReplayMeans {
		means = append(means, printable.NS(m))
	}
	fmt.Fprintf(w, "  replays' means: %s ns; each a fresh load, timed by %s\n", strings.Join(means, ", "), r.Timer)
	if r.Skipped > 0 {
		fmt.Fprintf(w, "  %d packets of the capture skipped (shorter than an Ethernet header, no Ethernet form, or past --limit)\n", r.Skipped)
	}
	if r.ActionMismatches > 0 {
		fmt.Fprintf(w, "  WARNING: %d timed runs took another action than the counting run: the program's state strayed from its copy's\n", r.ActionMismatches)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "  "+n)
	}
	fmt.Fprintf(w, "\nkernel %s · CPU %d (%s) · wall %s\n", r.Env.Kernel, r.Env.CPU, r.Env.CPUModel, r.Env.Wall.Round(1e7))
}

// writeReplayComparison writes two builds' replays of one capture.
func writeReplayComparison(w io.Writer, r *results.Replay, v View) error {
	b, ch := r.Before, r.Change
	if ch.Against != "" && ch.Against != "lock-step" {
		fmt.Fprintf(w, "before: %s, saved %s: %s\n", ch.Against, b.Env.Start.Format("2006-01-02 15:04"), replayTitle(b))
	} else {
		fmt.Fprintln(w, "before: "+replayTitle(b))
	}
	fmt.Fprintln(w, "after:  "+replayTitle(r))
	fmt.Fprintf(w, "  mean per packet %s → %s ns: %+.1f %% [%+.1f %+.1f], %s\n", nsInterval(b.Mean.Point, b.Mean.Lower, b.Mean.Upper),
		nsInterval(r.Mean.Point, r.Mean.Lower, r.Mean.Upper), ch.Mean.Point, ch.Mean.Lower, ch.Mean.Upper, ch.Verdict)
	fmt.Fprintf(w, "  p50/p90/p99 per packet: %s/%s/%s → %s/%s/%s ns\n", printable.NS(b.P50), printable.NS(b.P90), printable.NS(b.P99),
		printable.NS(r.P50), printable.NS(r.P90), printable.NS(r.P99))
	fmt.Fprintf(w, "  packets a second per core: %.3g → %.3g", ch.PPSPerCore[0], ch.PPSPerCore[1])
	if ch.Rate > 0 {
		fmt.Fprintf(w, "; at %.3g packets a second: %+.3f cores", ch.Rate, ch.Cores)
	}
	fmt.Fprintln(w)
	if err := writeChangeTable(w, "packets that (after)", ch.Kinds); err != nil {
		return err
	}
	if v.Wide || len(ch.Paths) <= 12 {
		if err := writeChangeTable(w, "path (after)", ch.Paths); err != nil {
			return err
		}
	}
	if ch.Method != "" {
		fmt.Fprintf(w, "  intervals: %s\n", ch.Method)
	}
	for _, n := range ch.Notes {
		fmt.Fprintln(w, "  "+n)
	}
	writeReplayNotes(w, r)
	return nil
}

// writeChangeTable writes the change of each group.
func writeChangeTable(w io.Writer, what string, groups []results.ReplayPathChange) error {
	t := lightTable(w, tw.CellAlignment{Global: tw.AlignRight, PerColumn: []tw.Align{tw.AlignLeft}})
	t.Header(what, "packets", "insns", "before, ns", "after, ns", "change % [95% CI]", "verdict")
	for _, p := range groups {
		_ = t.Append(ReplayChangeCells(p))
	}
	return t.Render()
}

// ReplayChangeCells are a group's cells in the change table: a group met on
// one side only has no change, and no figures on the other.
func ReplayChangeCells(p results.ReplayPathChange) []string {
	insns := fmt.Sprintf("%d → %d", p.BeforeIn, p.AfterIn)
	before, after := printable.NS(p.Before), printable.NS(p.After)
	change := fmt.Sprintf("%+.1f [%+.1f %+.1f]", p.Change.Point, p.Change.Lower, p.Change.Upper)
	switch p.Verdict {
	case results.ReplayOnlyAfter:
		insns, before, change = fmt.Sprintf("— → %d", p.AfterIn), "—", "—"
	case results.ReplayOnlyBefore:
		insns, after, change = fmt.Sprintf("%d → —", p.BeforeIn), "—", "—"
	}
	return []string{wrapCell(p.Name, 56), fmt.Sprint(p.Packets), insns, before, after, change, p.Verdict}
}

// replayBMF is the replay in Bencher Metric Format: PROGRAM/mean, the
// mean per packet with its interval, and one benchmark per kind of packet
// and per path. Each has latency in bench's terms (the floor's cost a run
// in a warm loop added back, as bench's latency holds it) and net-latency,
// net of the floor as bench's net-latency is: a replay's and a bench's
// compare under either name.
func replayBMF(r *results.Replay) map[string]map[string]any {
	latencies := func(e results.Estimate) map[string]any {
		b := r.InBenchTerms(e)
		return map[string]any{"latency": bmfMetric{Value: b.Point, Lower: b.Lower, Upper: b.Upper},
			"net-latency": bmfMetric{Value: e.Point, Lower: e.Lower, Upper: e.Upper}}
	}
	mean := latencies(r.Mean)
	mean["p99"] = bmfCount{Value: r.P99}
	out := map[string]map[string]any{r.Program + "/mean": mean}
	for _, k := range r.Kinds {
		m := latencies(k.Mean)
		m["packet-share"], m["time-share"] = bmfCount{Value: k.PacketShare}, bmfCount{Value: k.TimeShare}
		out[r.Program+"/kind/"+k.Name] = m
	}
	for _, p := range r.Paths {
		m := latencies(p.Mean)
		m["instructions"], m["packet-share"], m["time-share"] = bmfCount{Value: float64(p.Instructions)}, bmfCount{Value: p.PacketShare}, bmfCount{Value: p.TimeShare}
		out[fmt.Sprintf("%s/path/%d %s", r.Program, p.ID, p.Name)] = m
	}
	return out
}

// writeReplayMarkdown writes the summary and the kinds' table as
// Markdown, the rest as the terminal has it, folded.
func writeReplayMarkdown(w io.Writer, r *results.Replay) error {
	var out bytes.Buffer
	fmt.Fprintf(&out, "### %s\n\n", markdownText(replayTitle(r)))
	for _, l := range replaySummary(r) {
		fmt.Fprintf(&out, "- %s\n", markdownText(l))
	}
	out.WriteString("\n| " + strings.Join(kindHeader, " | ") + " |\n|" + strings.Repeat(" --- |", len(kindHeader)) + "\n")
	for _, row := range kindRows(r) {
		for i := range row {
			row[i] = markdownText(row[i])
		}
		out.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	var table bytes.Buffer
	if err := writeReplayTable(&table, r, View{Wide: true}); err != nil {
		return err
	}
	out.WriteString("\n<details><summary>Every path, notes and method</summary>\n\n")
	writeFenced(&out, table.String())
	out.WriteString("</details>\n")
	_, err := w.Write(out.Bytes())
	return err
}
