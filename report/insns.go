package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
)

// insnsNote says, under a table, what the insns column counts.
const insnsNote = "insns: the BPF instructions each case's checking run executed, counted on an instrumented copy: " +
	"exact and the same on every machine; a helper call counts as one, so time remains the measure of helpers and memory"

// insns is a case's instruction count as the table shows it, marked
// where its first and later runs take different paths.
func insns(c results.Case) string {
	if c.Instructions == 0 {
		return "—"
	}
	if c.PathChanges() {
		return fmt.Sprint(c.Instructions, " ", pathMark)
	}
	return fmt.Sprint(c.Instructions)
}

// pathMark marks a case whose first run and later ones take different
// paths: its time and instructions are of the state its row names.
const pathMark = "‡"

// pathNote says, for a case whose first and later runs take different
// paths, which one its row's time and instructions are of.
func pathNote(c results.Case) note {
	later := fmt.Sprintf("%d instructions", c.LaterInstructions)
	if c.LaterAction != "" {
		later += ", " + c.LaterAction
	}
	if c.MissRate != nil {
		return mattering("%s %s: each run another of %d flows in turn: %.1f %% of the runs timed missed (a new flow's path, %d instructions; a known flow's %s), as the instrumented copy replayed them; insns is their mean",
			c.Name, pathMark, c.Flows, 100**c.MissRate, c.FirstInstructions, later)
	}
	if c.State == "first" {
		return mattering("%s %s: every run timed is a first one from the maps as loaded (state first; %s): %d instructions; later runs would take %s%s",
			c.Name, pathMark, putBackText(c), c.FirstInstructions, later, recycledText(c))
	}
	return mattering("%s %s: the first run from the maps as loaded takes %d instructions, later runs %s: the time and instructions are of later runs (state steady); --state first times the first",
		c.Name, pathMark, c.FirstInstructions, later)
}

// counted says whether any case of any program has an instruction count.
func (r doc) counted() bool {
	for _, p := range r.Programs {
		if slices.ContainsFunc(p.Results, func(c results.Case) bool { return c.Instructions > 0 }) {
			return true
		}
	}
	return false
}

// noCountNotes gives each distinct reason why a program's cases have no
// instruction count, once, with the cases it applies to when not all.
func noCountNotes(p results.Program) []string {
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

// insnsChange is the case's instruction counts as the comparison table
// shows them: before → after.
func insnsChange(cc results.ComparedCase) string {
	count := func(n uint64) string {
		if n == 0 {
			return "—"
		}
		return fmt.Sprint(n)
	}
	return count(cc.InsnsBefore) + " → " + count(cc.InsnsAfter)
}

// insnsNotes say where the instruction counts and the times disagree, and
// what that means: one note per kind of disagreement, naming its cases.
func (c comparison) insnsNotes() []note {
	var same, hidden []results.ComparedCase
	for _, cc := range c.Cases {
		if !cc.InsnsCounted() {
			continue
		}
		timeChanged := cc.Verdict == results.Improved || cc.Verdict == results.Regressed
		switch {
		case timeChanged && cc.InsnsBefore == cc.InsnsAfter:
			same = append(same, cc)
		// An unsettled case has its note already (unsettledNote): that
		// its time did not change is not yet known.
		case !timeChanged && cc.InsnsBefore != cc.InsnsAfter && c.Settled(cc):
			hidden = append(hidden, cc)
		}
	}
	var out []note
	const sameWhy = "what changed is what they cost (helpers, memory, the JIT's code or its placement) or the machine, not how many ran"
	const hiddenWhy = "they cost less than the threshold, or their cost hides behind others' (helpers, memory)"
	switch {
	case len(same) == 1:
		cc := same[0]
		out = append(out, mattering("%s: time %s (%+.1f %%) with the same %d instructions: %s",
			cc.Name, cc.Verdict, 100*cc.Change.Point, cc.InsnsAfter, sameWhy))
	case len(same) > 1:
		var cases []string
		for _, cc := range same {
			cases = append(cases, fmt.Sprintf("%s %s (%+.1f %%, %d)", cc.Name, cc.Verdict, 100*cc.Change.Point, cc.InsnsAfter))
		}
		out = append(out, mattering("time changed with the same instructions: %s: %s", strings.Join(cases, ", "), sameWhy))
	}
	switch {
	case len(hidden) == 1:
		cc := hidden[0]
		out = append(out, mattering("%s: %+d instructions, but no change in time beyond the noise: %s",
			cc.Name, int64(cc.InsnsAfter)-int64(cc.InsnsBefore), hiddenWhy))
	case len(hidden) > 1:
		var cases []string
		for _, cc := range hidden {
			cases = append(cases, fmt.Sprintf("%s %+d", cc.Name, int64(cc.InsnsAfter)-int64(cc.InsnsBefore)))
		}
		out = append(out, mattering("instructions changed, but not the time beyond the noise: %s: %s", strings.Join(cases, ", "), hiddenWhy))
	}
	return append(out, c.linesChangedNotes()...)
}

// linesChangedNotes name, for each case whose instruction count changed,
// the lines whose counts changed most: by case under --verbose; by
// default one line for the cases that share their lines, as a change of
// one piece of code moves the same lines in every case.
func (c comparison) linesChangedNotes() []note {
	var out []note
	var groups []string              // the lines named, in first-seen order
	casesOf := map[string][]string{} // lines named -> the cases
	for _, cc := range c.Cases {
		if len(cc.LinesChanged) == 0 {
			continue
		}
		var changes, named []string
		for _, l := range cc.LinesChanged {
			changes = append(changes, fmt.Sprintf("%s %+d", l.Line, int64(l.After)-int64(l.Before)))
			named = append(named, l.Line)
		}
		out = append(out, method("%s: %s instructions, most changed on %s", cc.Name, insnsChange(cc), strings.Join(changes, ", ")))
		slices.Sort(named)
		key := strings.Join(named, ", ")
		if casesOf[key] == nil {
			groups = append(groups, key)
		}
		casesOf[key] = append(casesOf[key], cc.Name)
	}
	for _, key := range groups {
		out = append(out, mattering("instructions changed most on %s: %s (by case: --verbose)", key, strings.Join(casesOf[key], ", ")))
	}
	if len(out) > 0 {
		hint := mattering("every line's change, and the machine code: xdpmicro profile --before OLD --after NEW")
		hint.givesWay = true
		out = append(out, hint)
	}
	return out
}

// putBackText says how a first-state case's maps were put back between
// its runs, and what the program's put-back cost beyond the floor's.
func putBackText(c results.Case) string {
	switch {
	case !c.Undone:
		return "one run a call, the maps put back from user space between calls"
	case c.PutBack == 0:
		return "the maps put back before each run inside the kernel, the floor's runs making the same calls on maps of their own"
	}
	return fmt.Sprintf("the maps put back before each run inside the kernel, %s ns a run timed inside BPF, %s ns more than the floor's "+
		"same calls on maps of its own, which the net keeps", printable.NS(c.PutBack), printable.NS(c.PutBackOver))
}

// recycledText names the miss a first-state case timed where its
// put-back deletes a new entry of an LRU map: each run's insert takes
// back the node the delete freed.
func recycledText(c results.Case) string {
	if c.LRUMap == "" {
		return ""
	}
	return fmt.Sprintf("; the miss timed is an LRU's cheapest: each run's insert into %s takes back the node its put-back freed, "+
		"never a refill from the map's global list or an eviction; --state flows=N with N past its %d entries times a full table's, which evicts",
		c.LRUMap, c.LRUEntries)
}
