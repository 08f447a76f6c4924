package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/xdpmicro/xdpmicro/results"
)

// OfVerification is what the verifier told of one build's programs, or
// of two builds': xdpmicro verifier.
func OfVerification(v *results.Verification) Content { return Content{KindVerification, v} }

// writeVerificationTable writes one build's programs a row each, or, in a
// comparison, each program's figures a row each, old, new and the
// difference, as veristat -C lays them out.
func writeVerificationTable(w io.Writer, v *results.Verification) error {
	if v.Before != "" {
		return writeVerificationChange(w, v)
	}
	fmt.Fprintf(w, "%s, verified on kernel %s\n", printableLine(v.Object), printableLine(v.Kernel))
	table := newTable(w, tw.AlignLeft)
	table.Header("program", "processed", "states", "peak", "max", "xlated", "JIT B", "stack", fmt.Sprintf("time, %s", loadsText(v)))
	var refused []string
	for _, p := range v.Programs {
		if len(p.Loads) == 0 {
			continue
		}
		f := p.Loads[0]
		if f.Verdict == results.VerdictFailure {
			refused = append(refused, p.Info.Name+": "+f.Reason)
		}
		row := []string{p.Info.Name, strconv.FormatUint(f.Processed, 10), strconv.FormatUint(f.TotalStates, 10),
			strconv.FormatUint(f.PeakStates, 10), strconv.FormatUint(f.MaxStatesPerInsn, 10), strconv.Itoa(f.XlatedInsns),
			strconv.Itoa(f.JITBytes), depthsText(f.StackDepths), spanText(results.Times(p.Loads))}
		if f.Verdict == results.VerdictFailure {
			// As far as the verifier went; nothing was loaded to size.
			row = append(row[:5], "—", "—", "—", "refused")
		}
		if err := table.Append(row); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	l := lines{w: w}
	for _, r := range refused {
		l.note("  ", mattering("REFUSED by the verifier: %s (its figures are as far as it went)", r))
	}
	return writeVerificationFooter(w, v)
}

// writeVerificationChange writes a comparison: per program, each figure
// before, after, and the difference.
func writeVerificationChange(w io.Writer, v *results.Verification) error {
	fmt.Fprintf(w, "before: %s\nafter:  %s\nverified on kernel %s, %s of each build\n", printableLine(v.Before), printableLine(v.Object), printableLine(v.Kernel), loadsText(v))
	table := newTable(w, tw.AlignLeft, tw.AlignLeft)
	table.Header("program", "figure", "before", "after", "diff", "diff %", "verdict")
	for _, p := range v.Programs {
		c := p.Change
		if c == nil {
			if err := table.Append([]string{p.Info.Name, "(only after)", "", "", "", "", ""}); err != nil {
				return err
			}
			continue
		}
		rows := []struct {
			name          string
			before, after uint64
		}{
			{"processed", c.Before.Processed, c.After.Processed},
			{"states", c.Before.TotalStates, c.After.TotalStates},
			{"peak states", c.Before.PeakStates, c.After.PeakStates},
			{"max per insn", c.Before.MaxStatesPerInsn, c.After.MaxStatesPerInsn},
			{"xlated insns", uint64(c.Before.XlatedInsns), uint64(c.After.XlatedInsns)},
			{"JIT bytes", uint64(c.Before.JITBytes), uint64(c.After.JITBytes)},
		}
		verdict := "same"
		switch b, a := c.Before.Verdict, c.After.Verdict; {
		case b != results.VerdictFailure && a == results.VerdictFailure:
			verdict = "now refused"
		case b == results.VerdictFailure && a != results.VerdictFailure:
			verdict = "now accepted"
		}
		if err := table.Append([]string{p.Info.Name, "verdict", verdictText(c.Before), verdictText(c.After), "", "", verdict}); err != nil {
			return err
		}
		for _, r := range rows {
			name := ""
			diff, pct := changeText(r.before, r.after)
			verdict := "same"
			switch {
			case r.after > r.before:
				verdict = "grew"
			case r.after < r.before:
				verdict = "shrank"
			}
			if err := table.Append([]string{name, r.name, strconv.FormatUint(r.before, 10), strconv.FormatUint(r.after, 10),
				diff, pct, verdict}); err != nil {
				return err
			}
		}
		stack := "same"
		if depthsText(c.Before.StackDepths) != depthsText(c.After.StackDepths) {
			stack = "changed"
		}
		if err := table.Append([]string{"", "stack", depthsText(c.Before.StackDepths), depthsText(c.After.StackDepths), "", "", stack}); err != nil {
			return err
		}
		if err := table.Append([]string{"", "time", spanText(c.BeforeTimes), spanText(c.AfterTimes), "", "", timeVerdict(c.BeforeTimes, c.AfterTimes)}); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	return writeVerificationFooter(w, v)
}

func writeVerificationFooter(w io.Writer, v *results.Verification) error {
	l := lines{w: w}
	if len(v.Skipped) > 0 {
		var names []string
		for _, p := range v.Skipped {
			names = append(names, p.Name+" ("+p.Type+")")
		}
		l.note("  ", mattering("not loaded, of types xdpmicro does not run: %s", strings.Join(names, ", ")))
	}
	l.note("  ", mattering("from the verifier's log at BPF_LOG_STATS: the instructions it processed, its states in all, at the peak and "+
		"the most at one instruction (max), the stack of each function; from bpf_prog_info: the instructions as the kernel rewrote them "+
		"(xlated) and the JIT code's bytes; the time varies from load to load: the median over the loads [the lowest and highest]"))
	return nil
}

// verdictText is a load's verdict: success where a saved report or an
// older schema gave none.
func verdictText(v results.Verifier) string {
	if v.Verdict == "" {
		return results.VerdictSuccess
	}
	return v.Verdict
}

// timeVerdict judges verification times, which vary from load to load,
// by their spreads: slower or faster only where no load of one build
// overlaps the other's.
func timeVerdict(before, after []uint64) string {
	switch {
	case len(before) == 0 || len(after) == 0:
		return ""
	case after[0] > before[len(before)-1]:
		return "slower"
	case after[len(after)-1] < before[0]:
		return "faster"
	}
	return "within spread"
}

// loadsText says over how many loads each time's spread is.
func loadsText(v *results.Verification) string {
	for _, p := range v.Programs {
		if n := len(p.Loads); n == 1 {
			return "1 load"
		} else if n > 1 {
			return fmt.Sprintf("%d loads", n)
		}
	}
	return "no load"
}

// depthsText is the stack depth of each function, as the verifier writes
// them: 8+0+16.
func depthsText(depths []int) string {
	parts := make([]string, len(depths))
	for i, d := range depths {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "+")
}

// verificationBMF is a benchmark per program: what its load cost the
// verifier, as a run's BMF gives it beside the cases'.
func verificationBMF(w io.Writer, v *results.Verification) error {
	out := map[string]map[string]any{}
	for _, p := range v.Programs {
		if len(p.Loads) == 0 {
			continue
		}
		out[p.Info.Name] = verifierMeasures(p.Loads[0], results.Times(p.Loads))
	}
	return writeJSON(w, out)
}

// verifierMeasures are a program's BMF measures of the verifier.
func verifierMeasures(v results.Verifier, times []uint64) map[string]any {
	measures := map[string]any{"verified-instructions": bmfCount{Value: float64(v.Processed)}}
	if v.JITBytes > 0 {
		measures["jit-size"] = bmfCount{Value: float64(v.JITBytes)}
	}
	if len(times) > 0 {
		measures["verification-time"] = bmfMetric{Value: float64(times[len(times)/2]), Lower: float64(times[0]), Upper: float64(times[len(times)-1])}
	}
	return measures
}
