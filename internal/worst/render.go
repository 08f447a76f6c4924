package worst

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/xdpmicro/xdpmicro/packets"
)

// Formats of a report.
const (
	FormatTable = "table"
	FormatJSON  = "json"
)

// Formats lists the formats Write takes.
func Formats() []string { return []string{FormatTable, FormatJSON} }

// ErrFormat: a format Write does not know.
var ErrFormat = fmt.Errorf("%w: unknown format", ErrOptions)

// Write renders the report in format.
func Write(w io.Writer, r *Report, format string) error {
	switch format {
	case FormatTable:
		return writeTable(w, r)
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return fmt.Errorf("%w %q: want %s", ErrFormat, format, strings.Join(Formats(), " or "))
}

// tableReasons are the reasons a row shows; the JSON has them all.
const tableReasons = 2

// Cell widths: the table should fit a wide terminal.
const (
	packetWidth  = 30
	effectWidth  = 18
	reasonsWidth = 36
)

func writeTable(w io.Writer, r *Report) error {
	// As report.Title names a program.
	fmt.Fprintf(w, "the costliest packets for %s in %s, %s\n", r.Program, r.Object, r.Type)
	table := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleLight)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: tw.AlignLeft,
			PerColumn: []tw.Align{tw.AlignRight, tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight}}),
	)
	timeHeader := "time, ns"
	if r.Timed && hasNet(r) {
		timeHeader = "net of\nfloor, ns"
	}
	table.Header("by\ntime", "by\ninsns", "packet", "action", "insns", timeHeader, "map effects", "costly because")
	for _, i := range r.Order() {
		p := r.Packets[i]
		byTime := "–"
		if p.ByTime > 0 {
			byTime = fmt.Sprint(p.ByTime)
		}
		var reasons []string
		for _, c := range p.Costly[:min(len(p.Costly), tableReasons)] {
			reasons = append(reasons, wrap(reasonText(c), reasonsWidth))
		}
		why := strings.Join(reasons, "\n")
		switch {
		case p.Versus != "" && why == "":
			why = "vs " + p.Versus + ": no block more;\nits time alone"
		case p.Versus != "":
			why = "vs " + p.Versus + ":\n" + why
		}
		row := []string{byTime, fmt.Sprint(p.ByInstructions), wrap(p.Name+": "+p.Summary, packetWidth), p.Action,
			fmt.Sprint(p.Instructions), timeCell(p), wrap(strings.Join(p.Effects, "; "), effectWidth), why}
		if err := table.Append(row); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	return writeFooter(w, r)
}

func hasNet(r *Report) bool {
	for _, p := range r.Packets {
		if p.Net != nil {
			return true
		}
	}
	return false
}

// timeCell is a packet's time and its interval's half-width.
func timeCell(p Packet) string {
	e := p.Net
	if e == nil {
		e = p.Time
	}
	if e == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f ±%.2f", e.Point, (e.Upper-e.Lower)/2)
}

func writeFooter(w io.Writer, r *Report) error {
	state := ""
	if r.Partial {
		state = " (interrupted)"
	}
	fmt.Fprintf(w, "\nsearch%s: %d packets in %.1f s, %.0f a second (seed %d); %d distinct paths; %d of %d blocks reached; "+
		"values from the program: %d constants, %d map keys\n",
		state, r.Tried, r.Seconds, r.Rate, r.Seed, r.Paths, r.Reached, r.Blocks, r.Constants, r.Keys)
	switch {
	case r.Timed && r.TimingPartial:
		fmt.Fprintln(w, "timing interrupted: times are from the samples taken")
	case r.Timed:
		fmt.Fprintf(w, "timed as bench times (estimator %s)", r.Estimator)
		if env := r.Environment; env != nil {
			fmt.Fprintf(w, " · kernel %s · CPU %d of %d (%s)", env.Kernel, env.CPU, env.CPUs, env.CPUModel)
		}
		fmt.Fprintln(w)
	default:
		fmt.Fprintln(w, "not timed: ranked by instructions only")
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
	return nil
}

// wrap breaks s into lines of at most width runes, at spaces where it can.
func wrap(s string, width int) string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case len([]rune(line))+1+len([]rune(word)) <= width:
				line += " " + word
			default:
				lines = append(lines, line)
				line = word
			}
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// WritePackets writes the packets as a packet file that bench --packets
// takes: each by its name, expecting the action it returned.
func WritePackets(w io.Writer, r *Report) error {
	cases := r.Cases()
	for i := range cases {
		// Only a timed packet's action is what bench's checking run
		// returns: the search's may depend on the packets before it.
		if r.Timed && !r.TimingPartial {
			cases[i].Expect = r.Packets[i].Action
		}
		if r.Packets[i].ByTime > 0 {
			cases[i].Summary += fmt.Sprintf("; %d instructions, costliest %d by time", r.Packets[i].Instructions, r.Packets[i].ByTime)
		} else {
			cases[i].Summary += fmt.Sprintf("; %d instructions", r.Packets[i].Instructions)
		}
	}
	comment := fmt.Sprintf("The costliest packets for %s in %s, found by xdpmicro worst (seed %d, %d packets tried).\n"+
		"Measure them with xdpmicro bench, the same object and loading flags, and --packets this file.", r.Program, r.Object, r.Seed, r.Tried)
	return packets.WriteFile(w, cases, comment)
}
