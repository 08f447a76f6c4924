package report

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
)

// WriteKernels renders a run across kernels in the format, as its row of
// the registry does (output.go): one table, a row per case and a column
// per kernel, for people; the saved schema, every kernel's whole reports
// in it, as JSON; or Bencher's format, each benchmark's name ending in @
// and its kernel; or Markdown, the table in a block that keeps its
// columns (its cells hold several lines).
func WriteKernels(w io.Writer, runs results.KernelRuns, f Format, v View) error {
	r, ok := lookup(KindKernels, f)
	if !ok {
		_, err := KindKernels.Parse(string(f))
		return err
	}
	return r.render(w, runs, v)
}

// kernels adapts a renderer of a run across kernels to the registry.
func kernels(render func(t kernelsTable, w io.Writer) error) func(io.Writer, any, View) error {
	return func(w io.Writer, x any, v View) error { return render(kernelsTable{x.(results.KernelRuns), v}, w) }
}

// writeMarkdown fences the table: its cells hold several lines, which
// a Markdown table cannot.
func (t kernelsTable) writeMarkdown(w io.Writer) error {
	var table bytes.Buffer
	if err := t.write(&table); err != nil {
		return err
	}
	writeFenced(w, table.String())
	return nil
}

// kernelsBMF names each kernel's benchmarks program/case@release. An
// emulated kernel gives its instructions only: its time is not the
// program's, and a dashboard would track it as if it were.
func kernelsBMF(runs results.KernelRuns) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, k := range runs.Kernels {
		for i := range k.Reports {
			for name, measures := range (doc{&k.Reports[i]}).bmf(map[string]map[string]any{}) {
				if k.Emulated {
					delete(measures, "latency")
					delete(measures, "net-latency")
				}
				if len(measures) > 0 {
					out[name+"@"+k.Name()] = measures
				}
			}
		}
	}
	return out
}

type kernelsTable struct {
	results.KernelRuns
	View
}

// kernelCell is what one kernel says of one case.
type kernelCell struct {
	action, insns, time string
}

// row is a case, by program where there are several.
type row struct{ program, name string }

func (t kernelsTable) write(w io.Writer) error {
	rows, cells := t.cells()
	if title := t.title(); title != "" {
		fmt.Fprintln(w, title)
	}
	if len(rows) > 0 {
		aligns := []tw.Align{tw.AlignLeft}
		header := []any{"case"}
		for i, k := range t.Kernels {
			aligns = append(aligns, tw.AlignLeft)
			header = append(header, t.kernelHeader(k, cells[i].widths))
		}
		table := newTable(w, aligns...)
		table.Header(header...)
		programs := map[string]bool{}
		for _, r := range rows {
			programs[r.program] = true
		}
		for _, r := range rows {
			name := r.name
			if len(programs) > 1 {
				name = r.program + "/" + r.name
			}
			line := []string{name}
			for i := range t.Kernels {
				line = append(line, cells[i].render(r))
			}
			if err := table.Append(line); err != nil {
				return err
			}
		}
		if err := table.Render(); err != nil {
			return err
		}
	}
	t.notes(w)
	return nil
}

// kernelColumn is a kernel's cells, padded to line up.
type kernelColumn struct {
	cells   map[row]kernelCell
	missing string // the cell of a kernel that measured nothing
	widths  [2]int
}

func (c kernelColumn) render(r row) string {
	cell, ok := c.cells[r]
	if !ok {
		if c.missing != "" {
			return c.missing
		}
		return "—"
	}
	pad := c.widths[1] - utf8.RuneCountInString(cell.insns) // "→" is one column, three bytes
	return strings.TrimRight(fmt.Sprintf("%-*s  %s%s  %s", c.widths[0], cell.action, strings.Repeat(" ", pad), cell.insns, cell.time), " ")
}

// cells are every kernel's cells, and the cases in the order the
// kernels give them.
func (t kernelsTable) cells() ([]row, []kernelColumn) {
	var rows []row
	columns := make([]kernelColumn, len(t.Kernels))
	for i, k := range t.Kernels {
		col := kernelColumn{cells: map[row]kernelCell{}}
		switch k.Status {
		case results.KernelRefused:
			col.missing = "not measured: see below"
			if loadFailure(k.Error) {
				col.missing = "not loaded: see below"
			}
		case results.KernelFailed:
			col.missing = "no run: see below"
		}
		for j := range k.Reports {
			for r, cell := range t.reportCells(k, &k.Reports[j]) {
				if !slices.Contains(rows, r) {
					rows = append(rows, r)
				}
				col.cells[r] = cell
				col.widths[0] = max(col.widths[0], len(cell.action), len("action"))
				col.widths[1] = max(col.widths[1], utf8.RuneCountInString(cell.insns), len("insns"))
			}
		}
		columns[i] = col
	}
	// maps iterate in no order: the cases come in the report's.
	sorted := t.caseOrder()
	slices.SortStableFunc(rows, func(a, b row) int { return slices.Index(sorted, a) - slices.Index(sorted, b) })
	return rows, columns
}

// caseOrder is the cases as the first reports to name them list them.
func (t kernelsTable) caseOrder() []row {
	var order []row
	for _, k := range t.Kernels {
		for _, rep := range k.Reports {
			names := caseNames(&rep)
			for _, n := range names {
				if !slices.Contains(order, n) {
					order = append(order, n)
				}
			}
		}
	}
	return order
}

func caseNames(rep *results.Run) []row {
	var rows []row
	if c := rep.Comparison; c != nil {
		for _, cc := range c.Cases {
			rows = append(rows, row{program: programName(rep), name: cc.Name})
		}
		return rows
	}
	p := *rep.Measured()
	for _, c := range p.Results {
		rows = append(rows, row{program: p.Info.Name, name: c.Name})
	}
	return rows
}

func programName(rep *results.Run) string {
	if rep.Measured() == nil {
		return ""
	}
	return rep.Measured().Info.Name
}

// reportCells are a report's cells by case: the action, the
// instructions, the time with its interval; for a comparison the change
// of each and the verdict. Emulated times are not shown.
func (t kernelsTable) reportCells(k results.KernelRun, rep *results.Run) map[row]kernelCell {
	cells := map[row]kernelCell{}
	if rep.Measured() == nil {
		return cells
	}
	d := doc{rep}
	if c := rep.Comparison; c != nil {
		for _, cc := range c.Cases {
			cell := kernelCell{action: afterAction(rep, cc.Name), insns: insnsChange(cc), time: ""}
			if cc.ActionChanged() {
				cell.action = cc.ActionBefore + " → " + cc.ActionAfter
			}
			if !k.Emulated {
				cell.time = changeCell(cc.Change) + " % " + printable.VerdictText(cc.Verdict, false)
			}
			cells[row{programName(rep), cc.Name}] = cell
		}
		return cells
	}
	p := *rep.Measured()
	for _, c := range p.Results {
		cell := kernelCell{action: c.Action, insns: insns(c), time: ""}
		switch {
		case c.Stats == nil:
			cell.time = "—"
		case !k.Emulated:
			tv := tableView{d, t.View}
			cell.time = tv.estimateCell(caseEstimate(rep, c), "", true)
		}
		cells[row{p.Info.Name, c.Name}] = cell
	}
	return cells
}

// caseEstimate is a case's estimate as the table gives it: the low one
// of a case sampled one run a call.
func caseEstimate(rep *results.Run, c results.Case) results.Estimate {
	if c.Single {
		return c.Stats.Of(results.Low)
	}
	return c.Stats.Of(rep.Settings.ChosenEstimator())
}

// afterAction is the action of the case of that name in the last
// program measured: a comparison names actions only where they changed.
func afterAction(rep *results.Run, name string) string {
	p := *rep.Measured()
	for _, c := range p.Results {
		if c.Name == name {
			return c.Action
		}
	}
	return ""
}

// loadFailure says whether a command's error is its program's loading.
func loadFailure(msg string) bool {
	return strings.Contains(msg, "load") || strings.Contains(msg, "verifier") || strings.Contains(msg, "kfunc")
}

// title names the program as the first report does.
func (t kernelsTable) title() string {
	for _, k := range t.Kernels {
		for _, rep := range k.Reports {
			if rep.Measured() == nil {
				continue
			}
			p := *rep.Measured()
			if c := rep.Comparison; c != nil {
				return fmt.Sprintf("before: %s\nafter:  %s\non %d kernels", printableLine(c.Before), printableLine(c.After), len(t.Kernels))
			}
			return fmt.Sprintf("%s, on %d kernels", printableLine(Title(p)), len(t.Kernels))
		}
	}
	return ""
}

// kernelHeader names a kernel's column: its release, and how it ran.
func (t kernelsTable) kernelHeader(k results.KernelRun, widths [2]int) string {
	how := strings.ToUpper(k.Accel)
	switch {
	case k.Accel == "host":
		how = "host"
	case k.Emulated:
		how += " (emulated)"
	}
	if len(k.Reports) == 0 {
		return printableLine(k.Name()) + "\n" + how
	}
	rep := k.Reports[0]
	what := fmt.Sprintf("time [%g%% CI]", 100*rep.Settings.Confidence)
	if rep.Comparison != nil {
		what = fmt.Sprintf("change %% [%g%% CI]", 100*rep.Settings.Confidence)
	}
	if k.Emulated {
		what = "" // its header says so, and the cells keep the table narrow
	}
	return strings.TrimRight(fmt.Sprintf("%s\n%s\n%-*s  %*s  %s", printableLine(k.Name()), how, widths[0], "action", widths[1], "insns", what), " ")
}

// notes say how each kernel ran, why one has nothing, and where the
// kernels disagree.
func (t kernelsTable) notes(w io.Writer) {
	emulated := false
	for _, k := range t.Kernels {
		emulated = emulated || k.Emulated
		fmt.Fprintf(w, "  %s\n", kernelLine(k))
		tail := 8
		if t.Verbose {
			tail = 0
		}
		for _, l := range k.Why(tail) {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	for _, n := range t.insnsDiffer() {
		fmt.Fprintf(w, "  %s\n", n)
	}
	if emulated {
		fmt.Fprintln(w, "  emulated (TCG): actions and instructions are exact; times are not the program's: not shown,")
		fmt.Fprintln(w, "    not compared (--format json has them; under a KVM that runs these kernels, they are real)")
	}
	fmt.Fprintf(w, "%d kernels · wall %s\n", len(t.Kernels), t.Wall.Round(100*time.Millisecond))
}

// kernelLine says how a kernel ran: the VM, its boot and run, the
// vCPU xdpmicro pinned to in it; under TCG, why not KVM.
func kernelLine(k results.KernelRun) string {
	env := firstEnv(k)
	if k.Accel == "host" {
		s := fmt.Sprintf("%s: the running kernel, measured as without --kernel, in %s", printableLine(k.Name()), k.Wall.Round(100*time.Millisecond))
		if env != nil {
			s += fmt.Sprintf("; CPU %d of %d (%s)", env.CPU, env.CPUs, printableLine(env.CPUModel))
		}
		return s
	}
	s := fmt.Sprintf("%s: %s, %d vCPU, %d MiB", printableLine(k.Name()), printableLine(strings.ToUpper(k.Accel)), k.VCPUs, k.MemoryMiB)
	if k.Boot > 0 {
		s += fmt.Sprintf(", booted in %s, done in %s", k.Boot.Round(100*time.Millisecond), k.Wall.Round(100*time.Millisecond))
	}
	if env != nil {
		s += fmt.Sprintf("\n    pinned to vCPU %d", env.CPU)
		if k.Emulated {
			s += fmt.Sprintf("; %d rounds of %d load(s), enough for actions and instructions", env.Samples, max(env.LoadsPerGroup*max(env.Groups, 1), 1))
		}
	}
	if k.KVMFallback != "" {
		s += "\n    under TCG as " + k.KVMFallback
	}
	return s
}

func firstEnv(k results.KernelRun) *results.Environment {
	if len(k.Reports) == 0 {
		return nil
	}
	return &k.Reports[0].Environment
}

// insnsDiffer names the cases whose instruction counts differ between
// kernels.
func (t kernelsTable) insnsDiffer() []string {
	byCase := map[string]map[string]uint64{}
	var order []string
	for _, k := range t.Kernels {
		for _, rep := range k.Reports {
			if rep.Comparison != nil || rep.Measured() == nil {
				continue
			}
			p := *rep.Measured()
			for _, c := range p.Results {
				key := p.Info.Name + "/" + c.Name
				if byCase[key] == nil {
					byCase[key] = map[string]uint64{}
					order = append(order, key)
				}
				if c.Instructions > 0 {
					byCase[key][k.Name()] = c.Instructions
				}
			}
		}
	}
	var notes []string
	for _, key := range order {
		counts := slices.Collect(maps.Values(byCase[key]))
		slices.Sort(counts)
		if len(slices.Compact(counts)) > 1 {
			var by []string
			for _, k := range t.Kernels {
				if n, ok := byCase[key][k.Name()]; ok {
					by = append(by, fmt.Sprintf("%d on %s", n, k.Name()))
				}
			}
			notes = append(notes, printableLine(fmt.Sprintf("%s executes different instructions by kernel: %s", key, strings.Join(by, ", "))))
		}
	}
	return notes
}
