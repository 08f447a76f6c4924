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

// GroupedLevels is the number of levels of a group of loads: its loads'
// slopes need only be as precise as the loads differ, and the fewest
// calls every level needs make the group's rounds.
const GroupedLevels = 5

// callsPerLevel is the calls a level is planned with: a fixed number of
// samples too small for DefaultLevels gets fewer levels, and so does a
// given repeat whose rounds the time budget cannot hold at DefaultLevels.
const callsPerLevel = 10

// minCallsPerLevel is the fewest calls of a level the fit takes (stats'
// MinPerLevel, which a test holds it to): sampling never ends before every
// level has them.
const minCallsPerLevel = 5

// maxLinearOverhead is the most a call may cost beyond its runs for the
// wall clock to be used: above it, as for XDP calls that change the
// dispatcher (anchors off or refused), the call's own jitter of
// milliseconds would swamp a sample of a fraction of one.
const maxLinearOverhead = 50 * time.Microsecond

// Clock names the clock the wall time of a call is read with.
const Clock = "CLOCK_MONOTONIC (Go's monotonic clock, read through the vDSO on the measuring thread)"

// linearPlan is the repeat of each round of linear sampling.
type linearPlan struct {
	first  uint32 // the first level's repeat
	step   uint32
	levels int
	rng    *rand.Rand
	cycle  int   // the cycle order was shuffled for
	order  []int // levels of the current cycle, 1-based
}

// planLinear chooses the levels, or says why the calls are too costly
// for the wall clock. A chosen repeat is the mean of levels step·1 …
// step·levels, so that the mean sample is as long as a flat one. A given
// repeat is the top level, so that no call runs more often than asked,
// and the first is a tenth of it however few the levels: the slope then
// stands on the widest base the calls allow. perRun is each unit's probed
// time per run.
func (s *sampler) planLinear(perRun []float64) (*linearPlan, string) {
	if o := s.dispatcher.Overhead; o > maxLinearOverhead {
		return nil, fmt.Sprintf("linear sampling needs calls that cost under %s beyond their runs; they cost %s (%s)",
			maxLinearOverhead, o.Round(100*time.Microsecond), s.dispatcher.Why)
	}
	given := s.cfg.Repeat != 0
	if given && s.repeat < 2*minChosenRepeat {
		return nil, fmt.Sprintf("repeat %d leaves no room for two levels of at least %d runs", s.repeat, minChosenRepeat)
	}
	levels := s.cfg.Levels
	if levels == 0 {
		levels = DefaultLevels
		if s.cfg.Grouped {
			levels = GroupedLevels
		}
		switch {
		case s.cfg.Enough == nil:
			levels = max(min(levels, s.cfg.Samples/callsPerLevel), 2)
		case given:
			levels = s.levelsWithin(perRun)
		}
	}
	p := &linearPlan{levels: levels, cycle: -1, order: make([]int, levels),
		// A fixed seed: the same schedule every run, so that runs differ
		// by the machine only.
		rng: rand.New(rand.NewPCG(0x11ea7, 0x5eed))}
	if given {
		p.first, p.step = givenLevels(s.repeat, levels)
		p.levels = min(levels, int(s.repeat-p.first)/int(p.step)+1)
		p.order = p.order[:p.levels]
	} else {
		p.step = max(uint32(2*float64(s.repeat)/float64(levels+1)+0.5), minChosenRepeat)
		p.step = min(p.step, MaxRepeat/uint32(levels))
		p.first = p.step
	}
	for i := range p.order {
		p.order[i] = i + 1
	}
	return p, ""
}

// givenLevels returns the first level and the step of levels levels from
// a tenth of repeat (at least minChosenRepeat, which keeps XDP on the
// dispatcher path every other call takes) up to repeat.
func givenLevels(repeat uint32, levels int) (first, step uint32) {
	first = max(repeat/DefaultLevels, minChosenRepeat)
	step = max((repeat-first)/uint32(levels-1), 1)
	return first, step
}

// meanRepeat is the mean repeat of a round.
func (p *linearPlan) meanRepeat() float64 {
	return float64(p.first) + float64(p.step)*float64(p.levels-1)/2
}

// levelsWithin returns the most levels, down to 2, whose rounds the time
// budget holds callsPerLevel times each at the given repeat.
func (s *sampler) levelsWithin(perRun []float64) int {
	for levels := DefaultLevels; levels > 2; levels-- {
		first, step := givenLevels(s.repeat, levels)
		mean := float64(first) + float64(step)*float64(levels-1)/2
		if s.roundCost(perRun, mean)*time.Duration(levels*callsPerLevel) <= s.spare() {
			return levels
		}
	}
	return 2
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
	return p.first + p.step*uint32(p.order[round%p.levels]-1)
}
