package xdpmicro

import (
	"context"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/worst"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// WorstSearch is a search for the costliest packets (Worst): the
// program, loaded as Run loads it, the packets it starts from, and when
// to stop.
type WorstSearch struct {
	Program Program
	MapInit *MapInit
	Load    LoadOptions
	// Seeds are the packets the search starts from; each one's context
	// goes with every packet made from it.
	Seeds []packets.Case
	// Budget and Candidates stop the search: after Budget, or after
	// Candidates packets were run, whichever comes first; zero: no limit
	// of that kind (one of them is required).
	Budget     time.Duration
	Candidates uint64
	// Seed seeds the mutations: the same seed tries the same packets in
	// the same order.
	Seed uint64
	// Top is how many distinct paths to keep, the costliest.
	Top int
}

// Defaults of a search, as the command's flags have them.
const (
	DefaultWorstBudget = worst.DefaultBudget
	DefaultWorstSeed   = worst.DefaultSeed
	DefaultWorstTop    = worst.DefaultTop
	// DefaultWorstTiming is the time budget of the timing of the packets
	// found, as the command has it: long enough to rank them.
	DefaultWorstTiming = DefaultBudget
)

// Bounds of a search, checked before anything is loaded: Top, Candidates,
// and Budget (MaxDuration).
const (
	MaxWorstTop        = worst.MaxTop
	MaxWorstCandidates = worst.MaxCandidates
)

// WorstReport is what Worst found: the packets, costliest first, and
// what makes each costly.
type WorstReport = worst.Report

// WorstProgress is how far a search has got.
type WorstProgress = worst.Progress

// WorstObserver hears of a search while it goes, and of the timing after
// it as Run's observer does.
type WorstObserver interface {
	Observer
	Searching(WorstProgress)
}

// Worst searches for the packets that run the most instructions, then
// times the costliest distinct paths with Run, as timing says (the
// program, its maps and the cases are the search's), net of the floor,
// and ranks them both ways; a nil timing ranks them by instructions
// alone. Interrupted, it returns what it has with ctx's
// error: the search's costliest so far, untimed, or the timing's partial
// figures.
func Worst(ctx context.Context, s WorstSearch, timing *Options, obs WorstObserver) (*WorstReport, error) {
	if s.Program.err != nil {
		return nil, s.Program.err
	}
	search := worst.Options{Object: testrun.Object(s.Program.object), Program: s.Program.program, MapInit: s.MapInit, Load: s.Load,
		Seeds: s.Seeds, Budget: s.Budget, Candidates: s.Candidates, Seed: s.Seed, Top: s.Top}
	if obs != nil {
		search.Progress = obs.Searching
	}
	var t Options
	if timing != nil {
		// Checked before the search, which may last long: the cases
		// are the search's, added after it.
		t = *timing
		t.Programs = []Program{s.Program}
		t.Compared, t.Baseline = false, nil
		t.Cases, t.MapInit, t.Load = nil, search.MapInit, search.Load
		var err error
		if t, err = t.Complete(); err != nil {
			return nil, err
		}
	}
	res, err := worst.Search(ctx, search)
	if res == nil {
		return nil, err
	}
	rep := worst.NewReport(res)
	if obs != nil {
		final := worst.Progress{Tried: res.Tried, Paths: res.Paths, Elapsed: res.Elapsed, Budget: search.Budget}
		if len(res.Top) > 0 {
			final.Best = res.Top[0].Instructions
		}
		obs.Searching(final)
	}
	if err != nil || timing == nil || len(rep.Packets) == 0 {
		return rep, err
	}
	t.Cases = rep.Cases()
	var timeObs Observer
	if obs != nil {
		timeObs = obs
	}
	timed, err := Run(ctx, t, timeObs)
	if timed != nil {
		rep.AddTimes(timed)
	}
	return rep, err
}
