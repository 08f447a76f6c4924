package report

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
)

// A profile across kernels (profile --kernel): the same profile run on
// each kernel, booted under QEMU. What a kernel changes of a program
// that loads is the code its JIT emits (and the verifier's rewrites in
// it), so the table gives, per case and kernel, the machine instructions
// the case executed, and a line under it names the source lines whose
// machine code differs between kernels. Emulation does not change that
// code: these figures are exact under TCG too.

// kernelProfiles is a profile across kernels as this package writes it.
type kernelProfiles results.KernelProfiles

// writeKernelProfiles writes a profile across kernels as a table for
// people (with v.Machine, each kernel's profile with its machine code
// after it); writeProfileJSON writes it as JSON.
func writeKernelProfiles(w io.Writer, kp results.KernelProfiles, v View) error {
	bw := bufio.NewWriter(w)
	if err := kernelProfiles(kp).writeText(bw, v); err != nil {
		return err
	}
	return bw.Flush()
}

// machineTotal is what a case executed of the JIT's code: the machine
// instructions of its lines whose mapping is exact, and how many of its
// lines are not.
type machineTotal struct {
	exact    uint64
	inexact  int
	noneWhy  string // no machine code by line at all
	bpfTotal uint64
}

func (m machineTotal) String() string {
	if m.noneWhy != "" {
		return fmt.Sprintf("%d BPF · —", m.bpfTotal)
	}
	s := fmt.Sprintf("%d BPF · %d", m.bpfTotal, m.exact)
	if m.inexact > 0 {
		s += fmt.Sprintf(" +%d~", m.inexact)
	}
	return s
}

func totalOf(p *results.Profile, c results.ProfileCase) machineTotal {
	m := machineTotal{bpfTotal: c.Total}
	if p.Machine == "" {
		m.noneWhy = p.NoMachine
		return m
	}
	for _, l := range c.Lines {
		if l.Exact {
			m.exact += l.Machine
		} else if l.Instructions > 0 {
			m.inexact++
		}
	}
	return m
}

// imageSize is the machine instructions of the JIT's whole image.
func imageSize(p *results.Profile) int {
	n := 0
	for _, s := range p.Source {
		n += len(s.Code)
	}
	return n
}

func (kp kernelProfiles) writeText(w *bufio.Writer, v View) error {
	builds := 0
	for _, k := range kp.Kernels {
		if k.Profile != nil {
			builds = max(builds, len(k.Profile.Profiles))
		}
	}
	for b := range builds {
		if err := kp.writeTable(w, b); err != nil {
			return err
		}
		for _, n := range kp.codeDiffers(b) {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	fmt.Fprintln(w, "  a cell: the BPF instructions the case executed · the machine instructions the JIT's code ran for")
	fmt.Fprintln(w, "    them, where exact; +N~: N lines more whose count is not exact (profile --jit says why)")
	kp.writeKernelLines(w)
	if v.Machine {
		for _, k := range kp.Kernels {
			if k.Profile != nil {
				fmt.Fprintf(w, "\n═══ on %s ═══\n", printable.Line(k.Name()))
				if err := writeProfileText(w, k.Profile, v); err != nil {
					return err
				}
			}
		}
	}
	fmt.Fprintf(w, "%d kernels · wall %s · every kernel's machine code: --jit\n", len(kp.Kernels), kp.Wall.Round(100*time.Millisecond))
	return nil
}

// build is the b-th profile of each kernel's report, nil where the
// kernel has none.
func (kp kernelProfiles) build(b int) []*results.Profile {
	out := make([]*results.Profile, len(kp.Kernels))
	for i, k := range kp.Kernels {
		if k.Profile != nil && b < len(k.Profile.Profiles) {
			out[i] = k.Profile.Profiles[b]
		}
	}
	return out
}

// writeTable writes build b's table: a row per case, a column per kernel.
func (kp kernelProfiles) writeTable(w io.Writer, b int) error {
	profiles := kp.build(b)
	var names []string
	for _, p := range profiles {
		if p == nil {
			continue
		}
		if len(names) == 0 {
			label := ""
			if p.Label != "" {
				label = p.Label + ": "
			}
			title := fmt.Sprintf("%s%s in %s, %s", label, p.Program, p.Object, p.Type)
			fmt.Fprintf(w, "%s, on %d kernels\n", printable.Line(title), len(kp.Kernels)) // a guest's names, on their line
		}
		for _, c := range p.Cases {
			if !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
	}
	table := lightTable(w, tw.CellAlignment{Global: tw.AlignRight, PerColumn: []tw.Align{tw.AlignLeft}})
	table.Options(tablewriter.WithRowFilter(tw.CellFilter{Global: printable.Cells})) // a guest's case names, on their line
	header := []any{"case"}
	for _, k := range kp.Kernels {
		header = append(header, printable.Line(k.Name()))
	}
	table.Header(header...)
	for _, name := range names {
		row := []string{name}
		for i, p := range profiles {
			row = append(row, kp.cell(i, p, name))
		}
		if err := table.Append(row); err != nil {
			return err
		}
	}
	size := []string{"JIT image"}
	for i, p := range profiles {
		cell := kp.cell(i, p, "")
		if p != nil && p.Machine != "" {
			cell = fmt.Sprintf("%d %s instructions", imageSize(p), p.Machine)
		}
		size = append(size, cell)
	}
	if err := table.Append(size); err != nil {
		return err
	}
	return table.Render()
}

// cell is kernel i's cell for case name of profile p.
func (kp kernelProfiles) cell(i int, p *results.Profile, name string) string {
	if p == nil {
		return map[string]string{results.KernelRefused: "not loaded", results.KernelFailed: "no run"}[kp.Kernels[i].Status]
	}
	for _, c := range p.Cases {
		if c.Name == name {
			return totalOf(p, c).String()
		}
	}
	return "—"
}

// codeDiffers names build b's executed source lines whose machine code
// differs between the kernels that gave it, with each kernel's count of
// machine instructions: where the kernels' JITs (and verifiers) part.
func (kp kernelProfiles) codeDiffers(b int) []string {
	profiles := kp.build(b)
	var given []int
	for i, p := range profiles {
		if p != nil && p.Machine != "" {
			given = append(given, i)
		}
	}
	if len(given) < 2 {
		return nil
	}
	executed := map[string]bool{}
	for _, i := range given {
		for _, c := range profiles[i].Cases {
			for _, l := range c.Lines {
				executed[lineKey(l)] = true
			}
		}
	}
	var out []string
	for _, s := range profiles[given[0]].Source {
		if !executed[lineKey(s)] {
			continue
		}
		var counts []string
		texts := map[string]bool{}
		for _, i := range given {
			code := codeOf(profiles[i], s.Line)
			counts = append(counts, fmt.Sprint(len(code)))
			texts[strings.Join(code, "\n")] = true
		}
		if len(texts) > 1 {
			out = append(out, fmt.Sprintf("%-16s %-44s %s", printable.Line(lineKey(s)), sourceText(clip(strings.TrimSpace(s.Text), 44)), strings.Join(counts, " · ")))
		}
	}
	if len(out) == 0 {
		return []string{"every executed line has the same machine code on every kernel that loaded it"}
	}
	lines := "lines"
	if len(out) == 1 {
		lines = "line"
	}
	head := fmt.Sprintf("machine code differs on %d executed %s: its instructions on each kernel that loaded it, in order", len(out), lines)
	const shown = 8
	if len(out) > shown {
		out = append(out[:shown], fmt.Sprintf("and %d more (--jit, or --format json)", len(out)-shown))
	}
	for i := range out {
		out[i] = "  " + out[i]
	}
	return append([]string{head}, out...)
}

// codeOf is the machine code p's JIT emitted for a line, as comparable
// between kernels: a jump's or call's target moves with all the code
// before it, and a kernel address (a map's, a helper's) with every load,
// so they are left out.
func codeOf(p *results.Profile, l results.Line) []string {
	for _, s := range p.Source {
		if lineKey(s) == lineKey(l) {
			var code []string
			for _, m := range s.Code {
				text := kernelAddress.ReplaceAllString(m.Text, "ADDR")
				if op, _, _ := strings.Cut(text, " "); strings.HasPrefix(op, "j") || strings.HasPrefix(op, "call") {
					text = op
				}
				code = append(code, text)
			}
			return code
		}
	}
	return nil
}

// kernelAddress is an immediate in the kernel's half of the address space.
var kernelAddress = regexp.MustCompile(`0xffff[0-9a-f]{12}`)

// writeKernelLines says how each kernel ran, and why one gave nothing.
func (kp kernelProfiles) writeKernelLines(w io.Writer) {
	for _, k := range kp.Kernels {
		line := fmt.Sprintf("%s: the running kernel", printable.Line(k.Name()))
		if k.Accel != "host" {
			line = fmt.Sprintf("%s: %s, %d vCPU, %d MiB, booted in %s, done in %s", printable.Line(k.Name()), printable.Line(strings.ToUpper(k.Accel)),
				k.VCPUs, k.MemoryMiB, k.Boot.Round(100*time.Millisecond), k.Wall.Round(100*time.Millisecond))
		}
		fmt.Fprintf(w, "  %s\n", line)
		for _, l := range k.Why(8) {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}
