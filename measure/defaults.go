package measure

import "time"

// Adaptive sampling's defaults, chosen from measurements
// (docs/measurement-notes.md). With anchored calls the bundled program's
// five classes and the floor reach ±1 % on this project's machines within
// the minimum sampling time; the budget bounds a machine that never
// settles.
const (
	DefaultBudget = 5 * time.Second
	DefaultWarmup = 100 * time.Millisecond
	// MinSamplingTime is sampled before precision is judged: the machine's
	// phases last up to about a second, and a low quantile judged on a
	// shorter stretch could be one phase's alone.
	MinSamplingTime = time.Second
	// MinAdaptiveRounds are taken before precision is judged, however
	// long the rounds.
	MinAdaptiveRounds = 30
	// DefaultPlacements is how many times each build of a comparison by
	// slope is loaded: two loads of one program differ by up to a few per
	// cent, and eight of each bound that in the comparison.
	DefaultPlacements = 8
)
