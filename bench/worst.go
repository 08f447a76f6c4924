package bench

import (
	"context"

	"github.com/xdpmicro/xdpmicro/internal/worst"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// WorstOptions is a search for the costliest packets of a program, and
// the timing of those it finds.
type WorstOptions struct {
	Search worst.Options
	// Time is how the packets found are timed, as Run times cases: the
	// program, its maps and the cases are the search's. NoTime ranks
	// them by instructions alone.
	Time   Options
	NoTime bool
}

// WorstObserver hears of a search while it goes, and of the timing after
// it as Run's observer does.
type WorstObserver interface {
	Observer
	Searching(worst.Progress)
}

// Worst searches for the packets that run the most instructions, then
// times the costliest distinct paths with Run, net of the floor, and
// ranks them both ways. Interrupted, it returns what it has with ctx's
// error: the search's costliest so far, untimed, or the timing's partial
// figures.
func Worst(ctx context.Context, o WorstOptions, obs WorstObserver) (*worst.Report, error) {
	search := o.Search
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
	if err != nil || o.NoTime || len(rep.Packets) == 0 {
		return rep, err
	}
	t := o.Time
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
