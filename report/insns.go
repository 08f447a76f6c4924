package report

import (
	"fmt"
	"slices"
)

// insnsNote says, under a table, what the insns column counts.
const insnsNote = "insns: the BPF instructions each case's checking run executed, counted on an instrumented copy: " +
	"exact and the same on every machine; a helper call counts as one, so time remains the measure of helpers and memory"

// insns is a case's instruction count as the table shows it.
func insns(c Case) string {
	if c.Instructions == 0 {
		return "—"
	}
	return fmt.Sprint(c.Instructions)
}

// counted says whether any case of any program has an instruction count.
func (r *Report) counted() bool {
	for _, p := range r.Programs {
		if slices.ContainsFunc(p.Results, func(c Case) bool { return c.Instructions > 0 }) {
			return true
		}
	}
	return false
}

// noCountNotes gives each distinct reason why a program's cases have no
// instruction count, once, with the cases it applies to when not all.
func noCountNotes(p Program) []string {
	var reasons []string
	cases := map[string][]string{}
	for _, c := range p.Results {
		if c.NoCount == "" {
			continue
		}
		if _, ok := cases[c.NoCount]; !ok {
			reasons = append(reasons, c.NoCount)
		}
		cases[c.NoCount] = append(cases[c.NoCount], c.Name)
	}
	var out []string
	for _, why := range reasons {
		if len(cases[why]) == len(p.Results) {
			out = append(out, "instructions "+why)
			continue
		}
		out = append(out, fmt.Sprintf("%v: instructions %s", cases[why], why))
	}
	return out
}
