package testrun

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Linear sampling (Criterion's default): the samples of a case run
// step, 2·step, …, levels·step times, and its time per run is the slope of
// the call's wall time over its repeat. The kernel reports a whole number
// of nanoseconds per run; the wall clock reads the whole call to the
// nanosecond, and the slope leaves the call's fixed cost in the intercept,
// so that differences of a fraction of a nanosecond per run show.
//
// Every round takes one level for all its units, so that the builds and
// the floor of a round stay paired; each cycle of levels rounds visits
// every level once, in an order shuffled anew, so that no level always
// meets the same phase of the machine.

// SamplingMode is how the repeats of a case's samples are chosen, as
// Criterion names it.
type SamplingMode string

const (
	SamplingFlat   SamplingMode = "flat"   // every sample runs Repeat times; the kernel's figure
	SamplingLinear SamplingMode = "linear" // repeats step·1 … step·levels; the slope of wall time
)

// DefaultLevels is the number of repeat levels of linear sampling.
const DefaultLevels = 10

// callsPerLevel is the fewest calls a level is planned with when the
// number of samples is fixed: a fixed number too small for DefaultLevels
// gets fewer levels. The fit takes at least 5 a level (stats' minPerLevel);
// the low quantile of 5, under load, was once all disturbed calls.
const callsPerLevel = 10

// maxLinearOverhead is the most a call may cost beyond its runs for the
// wall clock to be used: above it, as for XDP calls that change the
// dispatcher (anchors off or refused), the call's own jitter of
// milliseconds would swamp a sample of a fraction of one.
const maxLinearOverhead = 50 * time.Microsecond

// Clock names the clock the wall time of a call is read with.
const Clock = "CLOCK_MONOTONIC (Go's monotonic clock, read through the vDSO on the measuring thread)"

// Sampling is how the samples were taken.
type Sampling struct {
	Mode SamplingMode // SamplingFlat or SamplingLinear
	// Why says why sampling is flat when linear was asked.
	Why string
	// Step and Levels are linear sampling's repeats: step·1 … step·levels.
	Step   uint32
	Levels int
	Clock  string
	// SingleCalls is how many calls of one run each make a sample of a
	// case sampled one run a call (CaseResult.Single).
	SingleCalls int
}

// linearPlan is the repeat of each round of linear sampling.
type linearPlan struct {
	step   uint32
	levels int
	rng    *rand.Rand
	cycle  int   // the cycle order was shuffled for
	order  []int // levels of the current cycle, 1-based
}

// planLinear chooses the step from the chosen repeat, so that the mean
// sample is as long as a flat one, or says why the calls are too costly
// for the wall clock.
func (s *sampler) planLinear() (*linearPlan, string) {
	if o := s.dispatcher.Overhead; o > maxLinearOverhead {
		return nil, fmt.Sprintf("linear sampling needs calls that cost under %s beyond their runs; they cost %s (%s)",
			maxLinearOverhead, o.Round(100*time.Microsecond), s.dispatcher.Why)
	}
	levels := s.cfg.Levels
	if levels == 0 {
		levels = DefaultLevels
		if s.cfg.Enough == nil {
			levels = max(min(levels, s.cfg.Samples/callsPerLevel), 2)
		}
	}
	step := max(uint32(2*float64(s.repeat)/float64(levels+1)+0.5), minChosenRepeat)
	step = min(step, MaxRepeat/uint32(levels))
	p := &linearPlan{step: step, levels: levels, cycle: -1, order: make([]int, levels),
		// A fixed seed: the same schedule every run, so that runs differ
		// by the machine only.
		rng: rand.New(rand.NewPCG(0x11ea7, 0x5eed))}
	for i := range p.order {
		p.order[i] = i + 1
	}
	return p, ""
}

// repeatOf returns the repeat of every sample of round.
func (s *sampler) repeatOf(round int) uint32 {
	p := s.linear
	if p == nil {
		return s.repeat
	}
	if c := round / p.levels; c != p.cycle {
		p.rng.Shuffle(len(p.order), func(i, j int) { p.order[i], p.order[j] = p.order[j], p.order[i] })
		p.cycle = c
	}
	return p.step * uint32(p.order[round%p.levels])
}
