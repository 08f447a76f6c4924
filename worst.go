package xdpmicro

import (
	"context"

	"github.com/xdpmicro/xdpmicro/internal/worst"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// WorstObserver hears of a search while it goes, and of the timing after
// it as Run's observer does.
type WorstObserver interface {
	Observer
	Searching(worst.Progress)
}

// Worst searches for the packets that run the most instructions, then
// times the costliest distinct paths with Run, as timing says (the
// program, its maps and the cases are the search's), net of the floor,
// and ranks them both ways; a nil timing ranks them by instructions
// alone. Interrupted, it returns what it has with ctx's
// error: the search's costliest so far, untimed, or the timing's partial
// figures.
func Worst(ctx context.Context, search worst.Options, timing *Options, obs WorstObserver) (*worst.Report, error) {
	if obs != nil {
		search.Progress = obs.Searching
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
	t := *timing
	t.Programs = []testrun.Program{{Object: search.Object, Program: search.Program}}
	t.Compared, t.Baseline = false, nil
	t.Cases, t.MapInit, t.Load = rep.Cases(), search.MapInit, search.Load
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
