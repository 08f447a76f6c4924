package xdpmicro

import (
	"context"
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/profile"
)

// ProfileReport is what Profile returns: each program's profile and, for
// two, their difference.
type ProfileReport = profile.Report

// Profile runs every case once through each program's instrumented copy,
// as bench counts instructions, and attributes each case's instructions to
// the program's lines and functions; with two programs (before, then
// after), it compares them. Of o it takes the programs, the cases, the
// maps, the loading and the CPU; nothing is timed.
func Profile(ctx context.Context, o Options, obs Observer) (*ProfileReport, error) {
	switch {
	case len(o.Programs) == 0 || len(o.Programs) > 2:
		return nil, fmt.Errorf("%w: %d programs to profile: want one, or two to compare", ErrOptions, len(o.Programs))
	case len(o.Cases) == 0:
		return nil, fmt.Errorf("%w: no packet case", ErrOptions)
	}
	c, err := o.config() // the checks every run's options pass
	if err != nil {
		return nil, err
	}
	var notice func(string)
	if obs != nil {
		notice = obs.Notice
	}
	return engine.Profile(ctx, c, notice)
}
