package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// The report of `xdpmicro worst`: a table, JSON, and the packets as a
// packet file.

// writeWorstJSON writes the report as indented JSON.
func writeWorstJSON(w io.Writer, r *results.Worst) error { return indentedJSON(w, r) }

// tableReasons are the reasons a row shows; the JSON has them all.
const tableReasons = 2

// Cell widths: the table should fit a wide terminal.
const (
	packetWidth  = 30
	effectWidth  = 18
	reasonsWidth = 36
)

// writeWorstTable writes the report as a table, with how the search went
// under it.
func writeWorstTable(w io.Writer, r *results.Worst) error {
	// As report.Title names a program.
	fmt.Fprintf(w, "the costliest packets for %s in %s, %s\n", r.Program, r.Object, r.Type)
	table := lightTable(w, tw.CellAlignment{Global: tw.AlignLeft,
		PerColumn: []tw.Align{tw.AlignRight, tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight}})
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
			reasons = append(reasons, wrapCell(reasonText(c), reasonsWidth))
		}
		why := strings.Join(reasons, "\n")
		switch {
		case p.Versus != "" && why == "":
			why = "vs " + p.Versus + ": no block more;\nits time alone"
		case p.Versus != "":
			why = "vs " + p.Versus + ":\n" + why
		}
		row := []string{byTime, fmt.Sprint(p.ByInstructions), wrapCell(p.Name+": "+p.Summary, packetWidth), p.Action,
			fmt.Sprint(p.Instructions), timeCell(p), wrapCell(strings.Join(p.Effects, "; "), effectWidth), why}
		if err := table.Append(row); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	return writeWorstFooter(w, r)
}

func hasNet(r *results.Worst) bool {
	for _, p := range r.Packets {
		if p.Net != nil {
			return true
		}
	}
	return false
}

// timeCell is a packet's time and its interval's half-width.
func timeCell(p results.WorstPacket) string {
	e := p.Net
	if e == nil {
		e = p.Time
	}
	if e == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f ±%.2f", e.Point, (e.Upper-e.Lower)/2)
}

func writeWorstFooter(w io.Writer, r *results.Worst) error {
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

// writeWorstPackets writes the packets as a packet file that bench
// --packets takes: each by its name, expecting the action it returned.
// cases are the packets as cases, in the order of r.Packets: the frames
// and contexts the search found.
func writeWorstPackets(w io.Writer, r *results.Worst, cases []packets.Case) error {
	if len(cases) != len(r.Packets) {
		return fmt.Errorf("a packet file of %d packets given %d cases", len(r.Packets), len(cases))
	}
	cases = slices.Clone(cases)
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

// reasonText says in one phrase what the packet reaches or runs more
// often than the cheaper ones, and where.
func reasonText(r results.WorstReason) string {
	where := r.Block
	after := ""
	if r.After {
		after = "code after "
	}
	switch {
	case r.Line > 0 && strings.TrimSpace(r.Source) != "":
		where = fmt.Sprintf("%sline %d %q", after, r.Line, clip(oneLine(r.Source), 28))
	case r.Line > 0:
		where = fmt.Sprintf("%sline %d", after, r.Line)
	}
	calls := ""
	if len(r.Calls) > 0 {
		calls = ", calls " + strings.Join(r.Calls, ", ")
	}
	if r.Cheaper == 0 {
		if r.Count > 1 {
			return fmt.Sprintf("reaches %s %d×%s", where, r.Count, calls)
		}
		return "reaches " + where + calls
	}
	return fmt.Sprintf("runs %s %d× (not %d×)%s", where, r.Count, r.Cheaper, calls)
}
