package results

import "fmt"

// ProgramInfo describes a program inside an object.
type ProgramInfo struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Section string `json:"section"`
}

// Effect is a change that one run of a case made to a map.
type Effect struct {
	Map    string `json:"map"`
	Change string `json:"change"` // pushed, set or deleted
	Key    string `json:"key,omitempty"`
	Value  string `json:"value,omitempty"`
	// CPU is the CPU whose value of a per-CPU map changed.
	CPU *int `json:"cpu,omitempty"`
}

// ContextChange is a field of the context that the checking run's program
// changed: the kernel runs every repeat of a call on one context, so from
// the second run on the program sees its own change.
type ContextChange struct {
	Field string `json:"field"`
	In    uint64 `json:"in"`
	Out   uint64 `json:"out"`
}

// String names the map as a map: "verdicts: pushed" alone read like the
// verdict of a comparison.
func (e Effect) String() string {
	cpu := ""
	if e.CPU != nil {
		cpu = fmt.Sprintf(" (CPU %d)", *e.CPU)
	}
	switch {
	case e.Key == "":
		return fmt.Sprintf("map %s: %s %s", e.Map, e.Change, e.Value)
	case e.Change == "deleted":
		return fmt.Sprintf("map %s: deleted [%s]", e.Map, e.Key)
	}
	return fmt.Sprintf("map %s: [%s] %s %s%s", e.Map, e.Key, e.Change, e.Value, cpu)
}

// String is the change as the report's notes show it: the field, its
// value before -> after.
func (c ContextChange) String() string {
	return fmt.Sprintf("%s %#x -> %#x", c.Field, c.In, c.Out)
}

// The names of the sampling modes and timers, as saved results hold them.
const (
	SamplingLinear = "linear"
	SamplingFlat   = "flat"
	TimerStats     = "stats"
)

// Raw is a run's raw results, as package analysis takes them (its
// New): where and how it measured, and each program's cases with their
// samples (Stats and Net empty: analysis computes them). Programs hold their other loads in
// Placements; Floor is the empty program, if it was measured.
type Raw struct {
	Environment Environment
	Programs    []Program
	Floor       *Program
	Partial     bool
}
