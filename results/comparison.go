package results

import (
	"fmt"
	"slices"

	"github.com/xdpmicro/xdpmicro/stats"
)

// How the two sides of a comparison were measured.
const (
	Interleaved = "interleaved" // one run, samples of both builds alternating
	Baseline    = "baseline"    // a run against a baseline saved earlier
	Files       = "files"       // two saved results
)

// Comparison holds a before/after comparison of every case.
type Comparison struct {
	Mode           string         `json:"mode"`
	Before         string         `json:"before"`
	After          string         `json:"after"`
	Test           string         `json:"test"`
	Significance   float64        `json:"significance"`
	NoiseThreshold float64        `json:"noise_threshold"`
	Quantum        float64        `json:"quantum_ns"`
	Estimator      string         `json:"estimator"`
	Cases          []ComparedCase `json:"cases"`
	// Warnings say why the two sides may not be comparable.
	Warnings []string `json:"warnings,omitempty"`
	// Live, when set, says the comparison is of one program's test run
	// (before) against its live frames (after): the change is what its
	// action costs.
	Live *Live `json:"live,omitempty"`
	// ChangeSpread, for a run scaled to the fast phase recalled from
	// earlier runs, is the factor within which each change's size holds
	// there (its intervals were widened by it); 0 otherwise. Package
	// analysis sets it when it judges an interleaved run; not saved.
	ChangeSpread float64 `json:"-"`
	// Verifier holds what the verifier told of each side's loads, where
	// both sides' loads told it (saved reports before it did not).
	Verifier *VerifierChange `json:"verifier,omitempty"`
}

// VerifierChange is the verifier's figures before and after: the exact
// ones of a load of each build, and the verification times of all the
// loads of each (VerificationTimes), which vary.
type VerifierChange struct {
	Before      Verifier `json:"before"`
	After       Verifier `json:"after"`
	BeforeTimes []uint64 `json:"before_time_us"`
	AfterTimes  []uint64 `json:"after_time_us"`
}

// Live is how live frames were run: batches of Batch frames, arriving on
// Target (a veth pair of the run's own), the peer's and the stack's
// counters confirming where they went.
type Live struct {
	Batch  int    `json:"batch_size"`
	Target string `json:"target"`
}

// ComparedCase is one case's comparison: the estimated time per run of
// each side, and the change with its verdict.
type ComparedCase struct {
	Name   string   `json:"name"`
	Source string   `json:"source,omitempty"`
	Before Estimate `json:"before"`
	After  Estimate `json:"after"`
	// Placements is how many loads of each build were compared, and
	// PlacementSpread the largest relative difference between two loads
	// of one build (max/min - 1); zero for one load each.
	Placements      int     `json:"placements,omitempty"`
	PlacementSpread float64 `json:"placement_spread,omitempty"`
	// ActionBefore and ActionAfter are the checking runs' actions, when
	// they differ: the builds treat the packet differently, which is more
	// than a change of speed.
	ActionBefore string `json:"action_before,omitempty"`
	ActionAfter  string `json:"action_after,omitempty"`
	// InsnsBefore and InsnsAfter are the BPF instructions each side's
	// checking run executed, where counted: an exact change, which no
	// noise threshold applies to.
	InsnsBefore uint64 `json:"instructions_before,omitempty"`
	InsnsAfter  uint64 `json:"instructions_after,omitempty"`
	// LinesChanged are, where the instruction counts differ, the source
	// lines whose counts changed most (xdpmicro profile gives them all).
	LinesChanged []LineChange `json:"lines_changed,omitempty"`
	// Action and Live, with live frames: the case's action, which live
	// frames carried out, and its time with them (After again).
	Action string    `json:"action,omitempty"`
	Live   *Estimate `json:"live,omitempty"`
	CaseComparison
}

// LineChange is a source line's executed instructions before and after.
type LineChange struct {
	Line   string `json:"line"` // file:line
	Before uint64 `json:"before"`
	After  uint64 `json:"after"`
}

// ActionChanged says the builds returned different actions for the case.
func (cc ComparedCase) ActionChanged() bool { return cc.ActionBefore != cc.ActionAfter }

// Regressed reports whether any case regressed in time, or returned
// another action after than before.
func (c *Comparison) Regressed() bool {
	return slices.ContainsFunc(c.Cases, func(cc ComparedCase) bool { return cc.Verdict == stats.Regressed || cc.ActionChanged() })
}

// RegressedCases names the cases that regressed or changed action.
func (c *Comparison) RegressedCases() []string {
	var names []string
	for _, cc := range c.Cases {
		if cc.Verdict == stats.Regressed || cc.ActionChanged() {
			names = append(names, cc.Name)
		}
	}
	return names
}

// Tally counts the cases by verdict in a line: "2 improved, 0 regressed,
// 3 no change".
func (c *Comparison) Tally() string {
	count := map[stats.Verdict]int{}
	actions := 0
	for _, cc := range c.Cases {
		count[cc.Verdict]++
		if cc.ActionChanged() {
			actions++
		}
	}
	s := fmt.Sprintf("%d improved, %d regressed, %d no change, %d within noise", count[stats.Improved], count[stats.Regressed],
		count[stats.NoChange], count[stats.WithinNoise])
	if actions > 0 {
		s += fmt.Sprintf("; %d changed action", actions)
	}
	return s
}

// InsnsCounted says both sides of the case have an instruction count.
func (cc ComparedCase) InsnsCounted() bool { return cc.InsnsBefore > 0 && cc.InsnsAfter > 0 }

// InsnsRegressed says the case executed more instructions after than
// before: exact, so no threshold applies.
func (cc ComparedCase) InsnsRegressed() bool {
	return cc.InsnsCounted() && cc.InsnsAfter > cc.InsnsBefore
}

// InsnsRegressed reports whether any case executed more instructions
// after than before, or returned another action.
func (c *Comparison) InsnsRegressed() bool {
	return slices.ContainsFunc(c.Cases, func(cc ComparedCase) bool { return cc.InsnsRegressed() || cc.ActionChanged() })
}

// Uncounted names the cases that lack an instruction count on either
// side.
func (c *Comparison) Uncounted() []string {
	var out []string
	for _, cc := range c.Cases {
		if !cc.InsnsCounted() {
			out = append(out, cc.Name)
		}
	}
	return out
}

// InsnsRegressedCases names the cases that executed more instructions
// after than before, or returned another action.
func (c *Comparison) InsnsRegressedCases() []string {
	var names []string
	for _, cc := range c.Cases {
		if cc.InsnsRegressed() || cc.ActionChanged() {
			names = append(names, cc.Name)
		}
	}
	return names
}

// The verifier's figures a gate may judge (--fail-on), by name.
const (
	VerifiedInsns = "verified-insns"
	States        = "states"
	JITSize       = "jit-size"
)

// VerifierFigures are the names of the verifier's figures a gate judges.
var VerifierFigures = []string{VerifiedInsns, States, JITSize}

// Figure is one exact figure of the verifier before and after, by name
// (VerifierFigures); false for an unknown name.
func (v VerifierChange) Figure(name string) (before, after uint64, ok bool) {
	switch name {
	case VerifiedInsns:
		return v.Before.Processed, v.After.Processed, true
	case States:
		return v.Before.TotalStates, v.After.TotalStates, true
	case JITSize:
		return uint64(v.Before.JITBytes), uint64(v.After.JITBytes), true
	}
	return 0, 0, false
}

// Grew says whether a figure grew by more than allowed, a fraction of
// its old value (0: any growth), and how, as "265 → 300 (+13.2 %)".
func (v VerifierChange) Grew(name string, allowed float64) (string, bool) {
	before, after, ok := v.Figure(name)
	if !ok || after <= before || float64(after) <= float64(before)*(1+allowed) {
		return "", false
	}
	how := fmt.Sprintf("%d → %d", before, after)
	if before > 0 {
		how += fmt.Sprintf(" (%+.1f %%)", 100*(float64(after)/float64(before)-1))
	}
	return how, true
}
