package testrun

import "time"

// Adaptive sampling's defaults, chosen from measurements
// (docs/measurement-notes.md). With anchored calls the bundled program's
// five classes and the floor reach ±1 % on this project's machines within
// the minimum sampling time; the budget bounds a machine that never
// settles.
const (
	DefaultBudget = 5 * time.Second
	// DefaultBenchBudget is the budget of a program measured alone, loading
	// and analysis included: loads, not time, narrow its interval, and a
	// person waits for it; a comparison keeps DefaultBudget to settle its
	// verdicts.
	DefaultBenchBudget = 2 * time.Second
	DefaultWarmup      = 100 * time.Millisecond
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
	// DefaultLoads is how many times a program measured alone is loaded:
	// its figures are the mean over its loads, their interval Student's t
	// over them, which narrows as the square root of the loads. On this
	// project's hosts one load's slope spread 1.3-2.1 % (s.d.) around the
	// mean of 16, own noise included.
	DefaultLoads = 16
	// DispatcherMax is how many programs the kernel's XDP dispatcher holds
	// (BPF_DISPATCHER_MAX): anchors hold at most that many at once.
	DispatcherMax = 48
)

// dispatcherSpare is the room in the XDP dispatcher a run leaves to others:
// programs attached to interfaces in native mode, another xdpmicro run on
// the other CPUs.
const dispatcherSpare = 4

// MostLoads is the most loads of each of programs programs that fit the
// XDP dispatcher at once beside the floor's (FloorLoads) and what others
// may hold, at least one.
func MostLoads(programs int) int {
	k := 1
	for (k+1)*programs+FloorLoads(k+1) <= DispatcherMax-dispatcherSpare {
		k++
	}
	return k
}

// FloorLoads is how many times the floor is loaded beside programs loaded
// placements times each: a quarter as often, at least twice once a program
// is loaded more than once, so that the net holds the floor's placement.
func FloorLoads(placements int) int {
	if placements <= 1 {
		return 1
	}
	return max(2, (placements+3)/4)
}
