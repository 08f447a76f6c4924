package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// tableView is a report as a table shows it.
type tableView struct {
	doc
	View
}

// write writes the tables, then the lines under them: by default those
// that matter and one line of where and how long, with Verbose every one
// (see lines.go for which matter). A default output passing maxLines
// drops the lines that give way, where that keeps it within.
// Names and notes from files are written as Printable has them.
func (r tableView) write(w io.Writer) error {
	var all, short bytes.Buffer
	if err := r.writeLines(&all, lines{w: &all, verbose: r.Verbose}); err != nil {
		return err
	}
	out := &all
	if !r.Verbose && strings.Count(all.String(), "\n") > maxLines {
		if err := r.writeLines(&short, lines{w: &short, short: true}); err != nil {
			return err
		}
		if strings.Count(short.String(), "\n") <= maxLines {
			out = &short
		}
	}
	return WritePrintable(w, out.Bytes())
}

// writeLines writes the output as write says, into l's writer.
func (r tableView) writeLines(w io.Writer, l lines) error {
	if r.Comparison != nil {
		if err := r.writeComparison(w, l); err != nil {
			return err
		}
	} else if err := r.writeProgramTables(w, l); err != nil {
		return err
	}
	l.notes("", r.footer())
	if !r.Verbose {
		l.note("", mattering("%s", r.summaryLine()))
	}
	return nil
}

// summaryLine is the one line of where and how long a default table keeps
// of its footer.
func (r doc) summaryLine() string {
	env := r.Environment
	cpu := fmt.Sprintf("CPU %d of %d", env.CPU, env.CPUs)
	if others := otherCPUs(env); others != "" {
		// The counts wait for --verbose: the line fits 100 columns.
		cpu = fmt.Sprintf("CPUs %d and %s of %d", env.CPU, others, env.CPUs)
	}
	line := func(cpu string) string {
		return fmt.Sprintf("kernel %s · %s · wall %s · --verbose for the method", env.Kernel, cpu, env.Wall.Round(1e7))
	}
	// The model where the line still fits: the method's pointer must end it.
	if model := shortCPUModel(env.CPUModel); model != "" {
		if withModel := line(cpu + " (" + model + ")"); utf8.RuneCountInString(withModel) <= maxColumns {
			return withModel
		}
	}
	return line(cpu)
}

// cpuModelNoise is what /proc/cpuinfo's model names carry that tells
// nobody which CPU it is.
var cpuModelNoise = regexp.MustCompile(`\((R|TM|tm)\)|\bCPU\b|\bProcessor\b|@ *[0-9.]+ *GHz|\b[0-9]+-Core\b`)

// shortCPUModel is model without its trademarks, clock and core count:
// "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz" is "Intel Xeon Gold 6148";
// the JSON keeps the whole name.
func shortCPUModel(model string) string {
	return strings.Join(strings.Fields(cpuModelNoise.ReplaceAllString(model, " ")), " ")
}

// otherCPUs names the CPUs other than env.CPU that groups measured on,
// in the order they first did: "0", "0, 3"; "" where none did.
func otherCPUs(env results.Environment) string {
	var others []string
	seen := map[int]bool{env.CPU: true}
	for _, c := range env.GroupCPUs {
		if !seen[c] {
			seen[c] = true
			others = append(others, fmt.Sprint(c))
		}
	}
	return strings.Join(others, ", ")
}

// groupsElsewhere says how many groups measured on CPUs other than
// env.CPU, and which: "3 of 19 groups on CPU 1"; "" where none did.
func groupsElsewhere(env results.Environment) string {
	others := otherCPUs(env)
	if others == "" {
		return ""
	}
	n := 0
	for _, c := range env.GroupCPUs {
		if c != env.CPU {
			n++
		}
	}
	return fmt.Sprintf("%d of %d groups on CPU %s", n, len(env.GroupCPUs), others)
}

// cpuMoved says the run measured on another CPU than it would have, or
// waited for one, because other xdpmicro runs held them.
func cpuMoved(env results.Environment) bool {
	if l := env.CPULock; l != nil {
		return l.Preferred != env.CPU || l.Waited > 0
	}
	// Saved before runs took CPU locks: the choice's words.
	return strings.Contains(env.CPUChoice, "moved from") || strings.Contains(env.CPUChoice, "waited")
}

// footer is the lines under every table: where and how the run measured.
func (r doc) footer() []note {
	var out []note
	if r.Partial {
		out = append(out, mattering("PARTIAL: the run was interrupted; figures above use the samples taken so far."))
	}
	if r.Floor != nil {
		out = append(out, r.floorNote())
	}
	if r.counted() {
		out = append(out, method("%s", insnsNote))
	}
	out = append(out, r.machineNotes()...)
	return append(out, r.samplingNotes()...)
}

// floorNote gives the floor's own figures, which every net is of.
func (r doc) floorNote() note {
	f, est := r.Floor, r.Settings.ChosenEstimator()
	var shown []string
	for _, c := range f.Results {
		if c.Stats != nil {
			shown = append(shown, fmt.Sprintf("%s %s", c.Name, printable.NS(c.Stats.Of(est).Point)))
		}
	}
	return method("floor: %s, the empty %s program, in the same rounds; %s ns per case: %s",
		f.Info.Name, f.Info.Type, r.shownEstimator(), strings.Join(shown, ", "))
}

// machineNotes say where the run measured: the kernel and the CPU, why
// that CPU, the XDP dispatcher, and what the machine noted or warned of.
func (r doc) machineNotes() []note {
	env := r.Environment
	out := []note{method("kernel %s · %s · CPU %d of %d (%s) · warm-up %s · wall %s, of which %s timed by the kernel",
		env.Kernel, env.Arch, env.CPU, env.CPUs, env.CPUModel, env.Warmup,
		env.Wall.Round(1e7), env.KernelTime.Round(1e7))}
	if env.CPUChoice != "" {
		out = append(out, note{text: fmt.Sprintf("measuring CPU %d: %s", env.CPU, env.CPUChoice), matters: cpuMoved(env)})
	}
	if moved := groupsElsewhere(env); moved != "" {
		out = append(out, method("%s: a group moves to another CPU when its own reads the empty program beyond its fast phase (a slow phase of that CPU's), the first group's CPU named", moved))
	}
	if d := env.Dispatcher; d.Why != "" {
		if d.Anchored {
			out = append(out, method("anchored: %s", d.Why))
		} else {
			// Where this costs precision, the sampling fell back to flat,
			// which a line that matters says.
			out = append(out, method("not anchored: %s; a call costs %s beyond its runs", d.Why, d.Unanchored.Round(time.Microsecond)))
		}
	}
	for _, n := range env.Notes {
		out = append(out, mattering("note: %s", n))
	}
	for _, warning := range env.MachineLoad.Warnings {
		out = append(out, mattering("warning: %s", warning))
	}
	if n, ok := r.phaseNote(); ok {
		out = append(out, n)
	}
	if n, ok := r.wanderNote(); ok {
		out = append(out, n)
	}
	return out
}

// samplingNotes say how the run sampled, what the estimate is and how the
// time per run was taken.
func (r doc) samplingNotes() []note {
	env := r.Environment
	var out []note
	if env.Sampling.PastBudget != "" {
		out = append(out, mattering("past the time budget: %s", env.Sampling.PastBudget))
	}
	if why := env.Sampling.Why; why != "" {
		out = append(out, mattering("flat sampling: %s", why))
	}
	all, some := r.singleCases()
	if all {
		// No repeat levels were sampled: say what was.
		return append(out, r.singleRunNotes()...)
	}
	est := r.Settings.ChosenEstimator()
	repeat := r.repeatText()
	sampling := fmt.Sprintf("%s, %d samples per case", repeat, env.Samples)
	if r.Settings.Precision > 0 {
		sampling = fmt.Sprintf("%s; sampled until ±%g %% or %s", repeat, 100*r.Settings.Precision, r.Settings.Budget)
	}
	out = append(out, method("estimate: %s · %s", describeEstimator(est, r.quantile()), sampling))
	if r.PooledFrom > 0 {
		out = append(out, method("from repeat %d a call's own cost is under 0.05 %% of its runs: the slope is the %g-quantile of every call's time per run, its levels pooled, and the intercept 0",
			r.PooledFrom, r.quantile()))
	}
	if n, ok := r.loadsNote(); ok {
		out = append(out, n)
	}
	if some {
		out = append(out, method("cases marked %s: one run a call, %d calls a sample, each on a fresh frame; the low of the kernel's figures", singleMark, env.Sampling.SingleCalls))
	}
	if some && env.TLBFlushedOnEntry {
		out = append(out, mattering("%s", tlbNote))
	}
	if r.restoredCases() {
		out = append(out, method("%s", restoredNote))
	}
	return append(out, r.timingNote(est))
}

// repeatText is the samples' repeat: one count, or linear sampling's
// levels; and whether it was chosen.
func (r doc) repeatText() string {
	env := r.Environment
	repeat := fmt.Sprintf("repeat %d", env.Repeat)
	if l := env.Sampling; l.Mode == results.SamplingLinear {
		first, last := l.Range()
		repeat = fmt.Sprintf("linear sampling: repeats %d…%d in steps of %d (%d levels), in shuffled rounds", first, last, l.Step, l.Levels)
	}
	if env.RepeatChosen {
		repeat += fmt.Sprintf(" (chosen: samples of about %s)", env.TargetSample)
	}
	return repeat
}

// singleRunNotes say how a run that sampled every case one run a call
// sampled, and what its figures are.
func (r doc) singleRunNotes() []note {
	env := r.Environment
	sampling := fmt.Sprintf("one run a call, %d calls a sample, on a fresh frame each", env.Sampling.SingleCalls)
	if r.Settings.Precision > 0 {
		sampling += fmt.Sprintf("; sampled until ±%g %% or %s", 100*r.Settings.Precision, r.Settings.Budget)
	}
	out := []note{method("estimate: %s · %s", describeEstimator(results.Low, r.quantile()), sampling)}
	if env.TLBFlushedOnEntry {
		out = append(out, mattering("%s", tlbNote))
	}
	return append(out, method("time per run as BPF_PROG_TEST_RUN reports it for one run: whole ns, dithered over the calls of a sample; "+
		"intervals are %d-resample bootstrap percentiles", r.Settings.Resamples))
}

// timingNote says how the time per run was taken, and its resolution.
func (r doc) timingNote(est results.Estimator) note {
	env := r.Environment
	if est.Fitted() {
		return method("time per run from the wall time of each call, %s; a call's fixed cost is the intercept, %s; "+
			"resolution %.2g ns; intervals are %d-resample bootstrap percentiles over the calls of each level",
			env.Sampling.Clock, r.intercept(), env.Resolution, r.Settings.Resamples)
	}
	if env.Timer == results.TimerStats {
		return method("time per run from BPF_ENABLE_STATS: the growth of the program's run_time_ns over its run_cnt in each sample, "+
			"which holds the kernel's two clock reads around every run (resolution %.2g ns); intervals are %d-resample bootstrap percentiles",
			env.Resolution, r.Settings.Resamples)
	}
	return method("time per run as BPF_PROG_TEST_RUN reports it: a whole number of ns per sample, truncated (resolution %g ns); "+
		"intervals are %d-resample bootstrap percentiles", env.Resolution, r.Settings.Resamples)
}

// singleCases says whether every case, or some, was sampled one run a
// call.
func (r doc) singleCases() (all, some bool) {
	all = true
	for _, p := range r.Programs {
		for _, c := range p.Results {
			all = all && c.Single
			some = some || c.Single
		}
	}
	return all && some, some
}

// shownEstimator is the estimate the figures are: the chosen one, or low
// when every case was sampled one run a call and no slope was fitted.
func (r doc) shownEstimator() results.Estimator {
	if all, _ := r.singleCases(); all {
		return results.Low
	}
	return r.Settings.ChosenEstimator()
}

// outliers says whether any case of p has outliers.
func outliers(p results.Program) bool {
	for _, c := range p.Results {
		if c.Stats != nil && c.Stats.Outliers.Total() > 0 {
			return true
		}
	}
	return false
}

// tlbNote says what one run a call measures on a kernel that flushes the
// TLB on every entry.
const tlbNote = "one run a call on this machine starts with a flushed TLB (page-table isolation without PCID): " +
	"a path that touches more pages, a helper and its map, reads slower than in a loop (measured on such a VM: a queue push, +8 to +12 ns)"

// restoredNote says what a restored case's figures hold.
const restoredNote = "restored cases: repeats through xdpmicro's restorer (bpf/restore.c), which before each run puts the frame back " +
	"(metadata, head, tail, and the bytes where a program changes them) and tail-calls the program; the floor runs through one too, " +
	"so the net leaves the restoring out; a program's loads of bytes just written back cost more (1-3 ns measured here)"

// restoredCases says whether any case was sampled through the restorer.
func (r doc) restoredCases() bool {
	for _, p := range r.Programs {
		for _, c := range p.Results {
			if c.Restored {
				return true
			}
		}
	}
	return false
}

// singleMark marks an estimate taken one run a call.
const singleMark = "†"

// singles says whether any case of p was sampled one run a call.
func singles(p results.Program) bool {
	for _, c := range p.Results {
		if c.Single {
			return true
		}
	}
	return false
}

// samplesCell is a case's samples, with their repeats in a wide table.
func (r tableView) samplesCell(n int, c results.Case) string {
	if r.Wide {
		return fmt.Sprintf("%d × %s", n, printable.RepeatsOf(r.Environment, c))
	}
	return strconv.Itoa(n)
}

// intercept is the range of the fits' intercepts: what a call costs
// beyond its runs.
func (r doc) intercept() string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range r.Programs {
		for _, c := range p.Results {
			if c.Stats != nil && c.Stats.Fit != nil {
				lo, hi = min(lo, c.Stats.Fit.Intercept.Point), max(hi, c.Stats.Fit.Intercept.Point)
			}
		}
	}
	if lo > hi {
		return "not fitted"
	}
	return fmt.Sprintf("%s to %s", time.Duration(lo).Round(10*time.Nanosecond), time.Duration(hi).Round(10*time.Nanosecond))
}

// describeEstimator says in words what the estimate is.
func describeEstimator(e results.Estimator, quantile float64) string {
	switch e {
	case results.Slope:
		return fmt.Sprintf("slope of each call's wall time over its repeat, through each repeat level's Harrell–Davis %g-quantile: the time per run when the machine adds nothing", quantile)
	case results.OLS:
		return "least-squares slope of each call's wall time over its repeat, through every call"
	case results.Low:
		return fmt.Sprintf("low = Harrell–Davis %g-quantile of the samples: the time when the machine adds nothing", quantile)
	case results.Median:
		return "median of the samples"
	case results.Min:
		return "minimum of the samples"
	}
	return "mean of the samples"
}

// quantile is the low estimator's quantile, as the statistics recorded it.
func (r doc) quantile() float64 {
	for _, p := range r.Programs {
		for _, c := range p.Results {
			if c.Stats != nil && c.Stats.Estimates.LowQuantile > 0 {
				return c.Stats.Estimates.LowQuantile
			}
		}
	}
	return results.DefaultLowQuantile
}

func (r tableView) writeProgramTables(w io.Writer, l lines) error {
	allSingle, _ := r.singleCases()
	for _, p := range r.Programs {
		if err := r.writeProgramTable(w, l, p, allSingle); err != nil {
			return err
		}
	}
	return nil
}

// Title names a program as every output does, the table, the run across
// kernels, the HTML page, the profile and the worst packets: "fizzbuzz in
// v4 (bundled), XDP".
func Title(p results.Program) string { return p.Info.Name + " in " + p.Object + ", " + p.Info.Type }

// writeProgramTable writes a program's title, its table, the notes under
// it, and its times by frame size.
func (r tableView) writeProgramTable(w io.Writer, l lines, p results.Program, allSingle bool) error {
	title := Title(p)
	if p.Label != "" {
		title = p.Label + ": " + title
	}
	fmt.Fprintln(w, printableLine(title)) // names from files, on their one line
	est := r.Settings.ChosenEstimator()
	other, otherName := otherEstimator(est)
	tallies := make([]*tally, len(p.Results)) // nil: too few samples
	for i, c := range p.Results {
		if t, ok := caseTally(p, c); ok {
			tallies[i] = &t
		}
	}
	levels := outliersLevels
	if r.Wide {
		levels = 1 // no width to keep
	}
	level, err := writeFitting(w, levels, func(w io.Writer, level int) error {
		aligns, header := r.programHeader(est, otherName, level)
		table := newTable(w, aligns...)
		table.Header(header...)
		for i, c := range p.Results {
			if err := table.Append(r.caseRow(c, est, other, allSingle, level, tallies[i])); err != nil {
				return err
			}
		}
		return table.Render()
	})
	if err != nil {
		return err
	}
	if singles(p) && est != results.Low && !allSingle {
		l.note("  ", mattering("%s one run a call, each on a fresh frame: the low of the kernel's figures, which hold its two clock reads (net of floor leaves them out)", singleMark))
	}
	verifier := verifierNote(p)
	if r.Wide {
		verifier.text = verifier.long // --wide gives every figure, as --verbose does
	}
	l.note("  ", verifier)
	l.notes("  ", notes(p, r.Settings, r.Partial))
	if level == outliersLine {
		var cells []string
		for i, c := range p.Results {
			if tallies[i] != nil {
				cells = append(cells, c.Name+" "+tallies[i].cell(true))
			}
		}
		l.note("  ", columnNote(cells))
	}
	if est != results.Mean && est != results.OLS {
		// Under mean and ols each case's outliers have a line that
		// matters (outliersMove).
		l.note("  ", foundNote(sum(tallies)))
	}
	if outliers(p) && (est == results.Low || est == results.Slope) {
		l.note("  ", method("outliers are kept and counted; the %s estimate stands, by design, for the runs the machine did not disturb", r.shownEstimator()))
	}
	fmt.Fprintln(w)
	return writeSeries(w, p.Series, r.Settings.ChosenEstimator())
}

// otherEstimator is the second figure a wide table shows beside the
// estimate, and its column's name: with a slope, the kernel's own.
func otherEstimator(est results.Estimator) (results.Estimator, string) {
	switch {
	case est.Fitted():
		return results.Low, "kernel (low)"
	case est == results.Mean:
		return results.Median, string(results.Median)
	}
	return results.Mean, string(results.Mean)
}

// programHeader is a program table's columns' alignment and header, with
// the outliers as level says (outliersKinds, ...).
func (r tableView) programHeader(est results.Estimator, otherName string, level int) ([]tw.Align, []any) {
	aligns := []tw.Align{tw.AlignLeft, tw.AlignLeft}
	estHeader := fmt.Sprintf("%s [%g%% CI]", r.shownEstimator(), 100*r.Settings.Confidence)
	if est == results.Min {
		// The bootstrap's minima bound no true minimum: no interval,
		// as adaptive sampling refuses to bring one to a precision.
		estHeader = string(est)
	}
	header := []any{"case", "return", "insns", estHeader}
	if r.Wide {
		aligns = append(aligns, tw.AlignLeft)
		header = []any{"case", "source", "return", "insns", estHeader}
	}
	if r.Floor != nil {
		header = append(header, "net of floor")
	}
	if r.Wide {
		// The repeats are in the footer; a wide table repeats them per
		// case. The default table leaves samples to the footer and
		// --verbose.
		header = append(header, otherName, "std dev", "outliers", "samples × repeat")
	} else if level != outliersLine {
		header = append(header, "outliers")
	}
	return aligns, header
}

// caseRow is a case's row of a program table, with its outliers t (nil
// for too few samples) as level says.
func (r tableView) caseRow(c results.Case, est, other results.Estimator, allSingle bool, level int, t *tally) []string {
	row := []string{c.Name, c.Action, insns(c)}
	if r.Wide {
		row = []string{c.Name, c.Source, c.Action, insns(c)}
	}
	if c.Stats == nil {
		why := "too few samples"
		if len(c.Samples) >= stats.MinSamples {
			why = "not analysed: interrupted" // the time a stop allows ran out (analysePartial)
		}
		row = append(row, why)
		if r.Floor != nil {
			row = append(row, "")
		}
		if r.Wide {
			row = append(row, "", "", "", r.samplesCell(len(c.Samples), c))
		} else if level != outliersLine {
			row = append(row, "")
		}
		return row
	}
	s := c.Stats
	e := s.Of(est)
	mark := ""
	if c.Single && est != results.Low && !allSingle {
		mark = singleMark // not the estimator the header names
	}
	row = append(row, r.estimateCell(e, mark, est != results.Min))
	if r.Floor != nil {
		net := "—"
		if c.Net != nil {
			net = r.netCell(*c.Net)
		}
		row = append(row, net)
	}
	if r.Wide {
		row = append(row, printable.NS(s.Of(other).Point)+" ns", printable.NS(s.Estimates.StdDev.Point)+" ns", t.cell(true), r.samplesCell(s.N, c))
	} else if level != outliersLine {
		row = append(row, t.cell(level == outliersKinds))
	}
	return row
}

// estimateCell is an estimate as the table shows it: with its interval as
// [low high] in a wide table, as ± its relative half-width otherwise.
func (r tableView) estimateCell(e results.Estimate, mark string, interval bool) string {
	switch {
	case !interval:
		return fmt.Sprintf("%s%s ns", printable.NS(e.Point), mark)
	case r.Wide:
		return fmt.Sprintf("%s%s [%s %s] ns", printable.NS(e.Point), mark, printable.NS(e.Lower), printable.NS(e.Upper))
	case e.Upper == e.Lower:
		return fmt.Sprintf("%s%s ns ±0 %%", printable.NS(e.Point), mark) // whole-ns figures all alike
	}
	return fmt.Sprintf("%s%s ns ±%s %%", printable.NS(e.Point), mark, percent(e.RelativeHalfWidth()))
}

// netCell is a case's time net of the floor: its interval's half-width in
// ns, as a net near zero has no useful relative one.
func (r tableView) netCell(e results.Estimate) string {
	if r.Wide {
		return r.estimateCell(e, "", true)
	}
	return fmt.Sprintf("%s ±%s ns", printable.NS(e.Point), printable.NS((e.Upper-e.Lower)/2))
}

// writeComparison writes the comparison's table and its lines, with each
// case's outliers.
func (r tableView) writeComparison(w io.Writer, l lines) error {
	c := comparison{r.Comparison}
	outliers := make([]*sides, len(c.Cases)) // nil: not found
	for i, cc := range c.Cases {
		if s, ok := r.comparedSides(cc); ok {
			outliers[i] = &s
		}
	}
	return c.writeTable(w, l, r.Settings.Confidence, r.Wide, outliers, r.unsettledRemedy())
}

// longCall is a call long enough to see the machine's phases in a mix of
// its own: on this project's hosts the speed switched between two levels
// (the floor 29 and 39 ns) several times within a 65 ms call, so each of
// a few dozen such calls read 75 to 108 ns, where calls of 0.2 ms, many
// more of them in the same time, settled v3 -> v4 in seconds.
const longCall = 5 * time.Millisecond

// unsettledRemedy is what narrows unsettled verdicts: more time, or, where
// a given repeat makes every call long, a smaller repeat first.
func (r tableView) unsettledRemedy() string {
	env := r.Environment
	if r.Comparison != nil && r.Comparison.Mode != results.Interleaved && r.moving() {
		// Runs at different times on a host that moves: their levels
		// differ by more than time within either run can narrow.
		return "on a host that moves, more time in either run would not narrow them: compare the builds interleaved (--before/--after), which settles"
	}
	if env.RepeatChosen || env.Repeat == 0 || r.Comparison == nil {
		return "more time (--time) narrows"
	}
	slowest := 0.0
	for _, cc := range r.Comparison.Cases {
		slowest = max(slowest, cc.Before.Point, cc.After.Point)
	}
	call := time.Duration(slowest * float64(env.Repeat))
	if call < longCall {
		return "more time (--time) narrows"
	}
	return fmt.Sprintf("at repeat %d each call lasts about %s and sees this machine's phases in a mix of its own: without --repeat, shorter calls, many more in the time, narrow",
		env.Repeat, call.Round(time.Millisecond))
}

// moving says the run met a host that moves from run to run: its
// figures hold the host's wander (stats.HostWander).
func (r tableView) moving() bool {
	for _, p := range r.Programs {
		for _, c := range p.Results {
			if c.Stats != nil && c.Stats.Loads != nil && c.Stats.Loads.Wander >= stats.HostWander {
				return true
			}
		}
	}
	return false
}

// writeTable shows each case's change in Criterion's words: in a wide
// table every figure, by default the estimates, the change with its
// interval, the verdict and the outliers of both builds within 100
// columns (see writeFitting).
func (c comparison) writeTable(w io.Writer, l lines, confidence float64, wide bool, outliers []*sides, remedy string) error {
	if c.Live != nil {
		return c.writeLive(w, l, confidence, outliers)
	}
	fmt.Fprintf(w, "before: %s\nafter:  %s\n", printableLine(c.Before), printableLine(c.After))
	est := c.Estimator
	if est == "" {
		est = string(results.Mean)
	}
	levels := outliersLevels
	if wide {
		levels = 1 // no width to keep
	}
	level, err := writeFitting(w, levels, func(w io.Writer, level int) error {
		table := comparisonTable(w, est, confidence, wide, level)
		for i, cc := range c.Cases {
			row := c.row(cc, wide)
			if wide || level != outliersLine {
				cell := ""
				if s := outliers[i]; s != nil {
					cell = s.cell(level, wide)
				}
				row = append(row, cell)
			}
			if err := table.Append(row); err != nil {
				return err
			}
		}
		return table.Render()
	})
	if err != nil {
		return err
	}
	l.note("  ", mattering("%s (by %s; noise threshold ±%g %%)", c.Tally(), est, 100*c.NoiseThreshold))
	how := "measured interleaved, sample by sample on one CPU"
	if c.Mode != results.Interleaved {
		how = "measured at different times (" + c.Mode + ")"
	}
	l.note("  ", method("%s; p from the %s; a change counts beyond ±%g %% and one quantum (%.2g ns)",
		how, c.Test, 100*c.NoiseThreshold, c.Quantum))
	l.note("  ", c.unsettledNote(remedy))
	var all tally
	var cells []string
	for i, cc := range c.Cases {
		if s := outliers[i]; s != nil {
			all = all.plus(s.before.plus(s.after))
			cells = append(cells, cc.Name+" "+s.before.plus(s.after).cell(true))
		}
	}
	if level == outliersLine {
		l.note("  ", columnNote(cells))
	}
	l.note("  ", foundNote(all))
	for _, cc := range c.Cases {
		if cc.ActionChanged() {
			l.note("  ", mattering("%s: ACTION CHANGED: %s before, %s after (counts as a regression with --fail-on-regression)", cc.Name, cc.ActionBefore, cc.ActionAfter))
		}
	}
	l.notes("  ", c.insnsNotes())
	verifier := verifierChange(c.Verifier)
	if wide {
		verifier.text = verifier.long
	}
	l.note("  ", verifier)
	for _, warning := range c.Warnings {
		l.note("  ", mattering("warning: %s", warning))
	}
	fmt.Fprintln(w)
	return nil
}

// comparisonTable is the comparison's table with its header: every
// column when wide, else the ones that fit 100 columns at level.
func comparisonTable(w io.Writer, est string, confidence float64, wide bool, level int) *tablewriter.Table {
	aligns, header := comparisonHeader(est, confidence, wide, level)
	table := newTable(w, aligns...)
	table.Header(header...)
	return table
}

// comparisonHeader is the comparison table's columns' alignment and
// header, as comparisonTable says.
func comparisonHeader(est string, confidence float64, wide bool, level int) ([]tw.Align, []any) {
	if wide {
		return []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft, tw.AlignRight},
			[]any{"case", "insns", "before (" + est + ")", "after (" + est + ")", fmt.Sprintf("change [%g%% CI: low est high]", 100*confidence), "Δ", "p", "verdict", "outliers"}
	}
	// The estimator is named under the table; p and Δ in ns wait for
	// --wide: the verdict holds p.
	header := []any{"case", "insns", "before, ns", "after, ns", fmt.Sprintf("change %% [%g%% CI]", 100*confidence), "verdict"}
	if level != outliersLine {
		header = append(header, "outliers")
	}
	return []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft, tw.AlignRight}, header
}

// row is a compared case's cells, its outliers aside.
func (c comparison) row(cc results.ComparedCase, wide bool) []string {
	m := cc.Change
	if wide {
		return []string{cc.Name, insnsChange(cc),
			fmt.Sprintf("%s ns ±%s %%", printable.NS(cc.Before.Point), percent(cc.Before.RelativeHalfWidth())),
			fmt.Sprintf("%s ns ±%s %%", printable.NS(cc.After.Point), percent(cc.After.RelativeHalfWidth())),
			fmt.Sprintf("[%+.2f %% %+.2f %% %+.2f %%]", 100*m.Lower, 100*m.Point, 100*m.Upper),
			fmt.Sprintf("%+.2f ns", cc.After.Point-cc.Before.Point),
			printable.PValue(cc.P, c.Significance),
			printable.VerdictText(cc.Verdict, wide),
		}
	}
	// The change's digits as its size needs: the header has its %.
	return []string{cc.Name, insnsChange(cc),
		estimateCell(cc.Before),
		estimateCell(cc.After),
		changeCell(m),
		printable.VerdictText(cc.Verdict, wide),
	}
}

// estimateCell is an estimate as a narrow table shows it: ns, ±relative
// half-width.
func estimateCell(e results.Estimate) string {
	return fmt.Sprintf("%s ±%s %%", printable.NS(e.Point), percent(e.RelativeHalfWidth()))
}

// unsettledNote names the cases whose change's interval crosses the
// noise threshold, in one note rather than a line or two each, and says
// what narrows them (remedy, ending in its verb).
func (c comparison) unsettledNote(remedy string) note {
	var cases []string
	for _, cc := range c.Cases {
		if m := cc.Change; !c.Settled(cc) {
			cases = append(cases, fmt.Sprintf("%s [%+.2f %% %+.2f %%]", cc.Name, 100*m.Lower, 100*m.Upper))
		}
	}
	switch len(cases) {
	case 0:
		return note{}
	case 1:
		name, interval, _ := strings.Cut(cases[0], " ")
		return mattering("%s: the change's interval %s crosses the ±%g %% threshold: its verdict is not settled; %s it",
			name, interval, 100*c.NoiseThreshold, remedy)
	}
	return mattering("verdicts not settled: the change's interval crosses the ±%g %% threshold for %s; %s them",
		100*c.NoiseThreshold, strings.Join(cases, ", "), remedy)
}

// newTable makes a table whose columns are aligned as given, and right
// beyond those, so that figures' decimal points line up.
func newTable(w io.Writer, columns ...tw.Align) *tablewriter.Table {
	return printable.FigureTable(w, columns...)
}

// writeSeries shows each case's time per run by frame size.
func writeSeries(w io.Writer, series []results.Series, est results.Estimator) error {
	if len(series) == 0 {
		return nil
	}
	fmt.Fprintf(w, "time per run (%s) by frame size\n", est)
	table := newTable(w, tw.AlignLeft)
	header := []any{"case"}
	for _, p := range series[0].Points {
		header = append(header, fmt.Sprintf("%d B", p.Size))
	}
	table.Header(header...)
	for _, s := range series {
		row := []string{s.Case}
		for _, p := range s.Points {
			row = append(row, fmt.Sprintf("%s ns ±%s %%", printable.NS(p.Estimate.Point), percent(p.Estimate.RelativeHalfWidth())))
		}
		if err := table.Append(row); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// notes lists what the table's cells cannot hold: why instructions were
// not counted, two regimes, the precision reached, the kinds of outliers,
// what the checking run changed in maps, frames and contexts changed,
// other returns, restarted samples; each marked whether it matters (see
// lines.go).
func notes(p results.Program, settings results.Settings, partial bool) []note {
	var out []note
	for _, n := range noCountNotes(p) {
		out = append(out, mattering("%s", n)) // says what a "—" means
	}
	est := settings.ChosenEstimator()
	// The cause sampling ended for, when a case's precision was not
	// reached or not confirmed.
	cause := "the " + settings.Budget + " budget (--time) was spent first"
	if partial {
		cause = "interrupted first"
	}
	var short []results.Case // precision not reached
	for _, c := range p.Results {
		n, reached := caseNotes(p, c, settings, est, cause)
		out = append(out, n...)
		if !reached {
			short = append(short, c)
		}
	}
	if len(short) > 0 {
		out = append(out, precisionNote(short, est, settings.Precision, cause+narrowsIt(short)))
	}
	return out
}

// caseNotes are a case's notes, but for a precision not reached, which
// notes gives for all cases at once: reached is false then.
func caseNotes(p results.Program, c results.Case, settings results.Settings, est results.Estimator, cause string) (out []note, reached bool) {
	reached = true
	if c.Stats != nil && c.Stats.Regimes.Bimodal {
		out = append(out, regimesNote(c))
	}
	if c.Stats != nil && settings.Precision > 0 && !c.Enough {
		// From the interval the table shows: the judge between rounds
		// uses fewer resamples.
		hw := c.Stats.Of(est).RelativeHalfWidth()
		if hw > settings.Precision {
			reached = false
		} else {
			out = append(out, method("%s: ±%s %% after %d samples, within the ±%g %% asked, but not yet confirmed between rounds: %s",
				c.Name, percent(hw), c.Stats.N, 100*settings.Precision, cause))
		}
	}
	if c.Stats != nil && c.Stats.Outliers.Total() > 0 {
		out = append(out, outliersNote(p, c, est))
	}
	if c.PathChanges() {
		out = append(out, pathNote(c))
	}
	if c.Unrestored != "" {
		out = append(out, mattering("%s: maps it cannot compare are not put back between runs, should a run write them: %s", c.Name, c.Unrestored))
	}
	for _, e := range c.Effects {
		out = append(out, method("%s: %s", c.Name, e))
	}
	if n, ok := frameNote(c); ok {
		out = append(out, n)
	}
	out = append(out, contextNotes(c)...)
	if c.OtherReturns > 0 {
		out = append(out, mattering("%s: WARNING: %d of %d calls ended with %s, the checking run returned %s: later runs took another path (a changed frame, or maps earlier runs filled)",
			c.Name, c.OtherReturns, len(c.Samples), c.OtherAction, c.Action))
	}
	if c.Retries > 0 {
		// The restarted call is timed anew, whole; the interrupted one
		// is dropped.
		out = append(out, method("%s: %d sample(s) restarted after a signal (EINTR)", c.Name, c.Retries))
	}
	return out, reached
}

// regimesNote describes a case's two regimes of samples.
func regimesNote(c results.Case) note {
	g := c.Stats.Regimes
	switches := "switches"
	if g.Switches == 1 {
		switches = "switch"
	}
	return mattering("%s: two regimes: %.0f %% of samples near %s ns, %.0f %% near %s ns (×%.2f), %d %s",
		c.Name, 100*g.FastShare, printable.NS(g.Fast), 100*(1-g.FastShare), printable.NS(g.Slow), g.Slow/g.Fast, g.Switches, switches)
}

// outliersNote counts a case's outliers by kind; it matters where they
// move the estimate.
func outliersNote(p results.Program, c results.Case, est results.Estimator) note {
	t, _ := caseTally(p, c)
	return note{text: fmt.Sprintf("%s: outliers %s", c.Name, t.kinds(false)), matters: outliersMove(*c.Stats, est)}
}

// frameNote says how a case was measured when the program changes its
// frame, or when every run got a fresh one; ok is false otherwise.
func frameNote(c results.Case) (n note, ok bool) {
	switch changed := fmt.Sprintf("%s: the program changed the frame (%s", c.Name, c.OutputChanges); {
	case c.OutputFrame != "" && c.Restored:
		return note{matters: true,
			text: changed + "): measured through the restorer",
			long: fmt.Sprintf("%s; out: %s): every program and the floor measured through the restorer on this case, each run on a fresh copy of the frame",
				changed, c.OutputSummary)}, true
	case c.Restored:
		return method("%s: measured through the restorer, each run on a fresh copy of the frame (asked for, or another program changes this frame)", c.Name), true
	case c.OutputFrame != "" && c.Single:
		return note{matters: true,
			text: changed + "): measured one run a call",
			long: fmt.Sprintf("%s; out: %s): every program and the floor measured one run a call on this case", changed, c.OutputSummary)}, true
	case c.OutputFrame != "":
		return note{matters: true,
			text: fmt.Sprintf("%s: WARNING: the program changed the frame (%s): every run after a call's first saw its own output",
				c.Name, c.OutputChanges),
			long: fmt.Sprintf("%s: WARNING: the program changed the frame (%s; out: %s): every run after a call's first saw its own output, so the figure is not of one packet's path",
				c.Name, c.OutputChanges, c.OutputSummary)}, true
	case c.Single:
		return method("%s: measured one run a call, each on a fresh frame (asked for, or another program changes this frame)", c.Name), true
	}
	return note{}, false
}

// precisionNote says which cases' precision was not reached, in one note
// rather than a line or two for every case.
func precisionNote(cases []results.Case, est results.Estimator, asked float64, cause string) note {
	c := cases[0]
	if len(cases) == 1 {
		return mattering("%s: precision not reached: ±%s %% %s, asked ±%g %%: %s",
			c.Name, percent(c.Stats.Of(est).RelativeHalfWidth()), sampledText(c), 100*asked, cause)
	}
	same := true
	for _, o := range cases {
		same = same && sampledText(o) == sampledText(c)
	}
	var figures []string
	for _, o := range cases {
		f := fmt.Sprintf("%s ±%s %%", o.Name, percent(o.Stats.Of(est).RelativeHalfWidth()))
		if !same {
			f += " " + sampledText(o)
		}
		figures = append(figures, f)
	}
	after := ""
	if same {
		after = " " + sampledText(c)
	}
	return mattering("precision not reached: %s%s, asked ±%g %%: %s", strings.Join(figures, ", "), after, 100*asked, cause)
}

// sampledText says what a case's figure is over: its samples, or its
// loads and the samples of each.
func sampledText(c results.Case) string {
	if l := c.Stats.Loads; l != nil {
		return fmt.Sprintf("over %d loads of %d samples", len(l.Points), c.Stats.N)
	}
	return fmt.Sprintf("after %d samples", c.Stats.N)
}

// outliersMove says whether a case's outliers move the estimate shown:
// the mean's and ols's, which every sample or call enters. The others
// stand aside from them by design: median, low and min take the middle or
// the bottom of the kernel's figures, where whole-ns figures with a narrow
// spread make many "outliers" of a value 1 ns away, and slope fits each
// level's low quantile of the calls' wall times, not these figures.
func outliersMove(s results.Summary, est results.Estimator) bool {
	return (est == results.Mean || est == results.OLS) && s.Outliers.Total() > 0
}

// changeCell is a relative change with its interval, in percent, signed,
// "-5.37 [-7.72 -3.03]", with the digits the largest of the three needs:
// two decimals below 10 %, one below 100 %, none above.
func changeCell(m results.Estimate) string {
	largest := max(math.Abs(m.Point), math.Abs(m.Lower), math.Abs(m.Upper))
	format := "%+.2f [%+.2f %+.2f]"
	switch {
	case 100*largest >= 99.95:
		format = "%+.0f [%+.0f %+.0f]"
	case 100*largest >= 9.995:
		format = "%+.1f [%+.1f %+.1f]"
	}
	return fmt.Sprintf(format, 100*m.Point, 100*m.Lower, 100*m.Upper)
}

// percent writes a fraction as a percentage with the digits it needs, so
// that a small one does not read ±0.0 %.
func percent(f float64) string {
	switch v := 100 * f; {
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 0.01:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v >= 0.001:
		return strconv.FormatFloat(v, 'f', 3, 64)
	default:
		return "<0.001"
	}
}
