package report

import (
	"fmt"
	"strings"

	"github.com/xdpmicro/xdpmicro/results"
)

// timeText is a median verification time and its spread over the loads.
func timeText(times []uint64) string {
	if len(times) == 1 {
		return spanText(times) + ", 1 load"
	}
	return fmt.Sprintf("%s over %d loads", spanText(times), len(times))
}

// spanText is the median of some verification times, lowest first, and
// their lowest and highest, in µs, or in ms where they reach 10 ms.
func spanText(times []uint64) string {
	if len(times) == 0 {
		return ""
	}
	unit, scale, format := "µs", 1.0, "%.0f"
	if times[len(times)-1] >= 10000 {
		unit, scale, format = "ms", 1000, "%.3g"
	}
	f := func(us uint64) string { return fmt.Sprintf(format, float64(us)/scale) }
	if len(times) == 1 {
		return f(times[0]) + " " + unit
	}
	return fmt.Sprintf("%s [%s %s] %s", f(times[len(times)/2]), f(times[0]), f(times[len(times)-1]), unit)
}

// verifierNote is the line under a program's table: what its loads cost
// the verifier, and its sizes; every figure with --verbose.
func verifierNote(p results.Program) note {
	v := p.Verifier
	if v == nil {
		return note{}
	}
	times := p.VerificationTimes()
	text := fmt.Sprintf("verifier: %d insns processed, %d states (peak %d)", v.Processed, v.TotalStates, v.PeakStates)
	if v.JITBytes > 0 {
		text += fmt.Sprintf(", %d B JIT", v.JITBytes)
	}
	text += "; " + timeText(times)
	long := fmt.Sprintf("verifier, from its log at BPF_LOG_STATS of each load measured: %d instructions processed (of the 1,000,000 allowed), "+
		"%d states in all, %d at the peak, at most %d at one instruction", v.Processed, v.TotalStates, v.PeakStates, v.MaxStatesPerInsn)
	if v.MarkRead != nil {
		long += fmt.Sprintf(", mark_read %d", *v.MarkRead)
	}
	if len(v.StackDepths) > 0 {
		depths := make([]string, len(v.StackDepths))
		for i, d := range v.StackDepths {
			depths[i] = fmt.Sprint(d)
		}
		long += fmt.Sprintf("; stack depth %s bytes (a function each)", strings.Join(depths, "+"))
	}
	long += "; verification time " + timeText(times) + " (median, lowest and highest)"
	if v.XlatedInsns > 0 {
		long += fmt.Sprintf("; from bpf_prog_info: %d instructions as the kernel rewrote them", v.XlatedInsns)
		if v.JITBytes > 0 {
			long += fmt.Sprintf(", %d bytes of JIT code", v.JITBytes)
		}
	}
	return note{text: text, long: long, matters: true}
}

// changeText is an exact figure's change, old to new, and as a share of
// old ("" where old is 0).
func changeText(old, new uint64) (diff, pct string) {
	d := int64(new) - int64(old)
	if old > 0 {
		pct = fmt.Sprintf("%+.1f %%", 100*float64(d)/float64(old))
	}
	return fmt.Sprintf("%+d", d), pct
}

// verifierChange is the line under a comparison: each exact figure of the
// verifier old → new, with its difference, as veristat -C gives them,
// and with --verbose the verification times with their spread.
func verifierChange(v *results.VerifierChange) note {
	if v == nil {
		return note{}
	}
	b, a := v.Before, v.After
	figure := func(name string, old, new uint64, unit string) string {
		if old == new {
			return fmt.Sprintf("%s %d%s (=)", name, new, unit)
		}
		diff, pct := changeText(old, new)
		if pct != "" {
			pct = ", " + pct
		}
		return fmt.Sprintf("%s %d → %d%s (%s%s)", name, old, new, unit, diff, pct)
	}
	parts := []string{
		figure("insns processed", b.Processed, a.Processed, ""),
		figure("states", b.TotalStates, a.TotalStates, ""),
	}
	if b.JITBytes > 0 && a.JITBytes > 0 {
		parts = append(parts, figure("JIT", uint64(b.JITBytes), uint64(a.JITBytes), " B"))
	}
	text := "verifier: " + strings.Join(parts, ", ")
	long := text + "; " + strings.Join([]string{
		figure("peak states", b.PeakStates, a.PeakStates, ""),
		figure("max states per insn", b.MaxStatesPerInsn, a.MaxStatesPerInsn, ""),
		figure("xlated insns", uint64(b.XlatedInsns), uint64(a.XlatedInsns), ""),
	}, ", ")
	if len(v.BeforeTimes) > 0 && len(v.AfterTimes) > 0 {
		long += fmt.Sprintf("; verification time %s before, %s after", timeText(v.BeforeTimes), timeText(v.AfterTimes))
	}
	return note{text: text, long: long, matters: true}
}
