package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// options checks bench's flags, each where the user can be told which,
// and turns them into the root package's Options: the programs, the cases, the
// map-init file and the baseline read, nothing measured.
func (f benchFlags) options(cmd *cobra.Command, args []string) (xdpmicro.Options, error) {
	if err := f.check(cmd); err != nil {
		return xdpmicro.Options{}, err
	}
	statOpts, err := f.output.statsOptions()
	if err != nil {
		return xdpmicro.Options{}, err
	}
	est, err := f.output.estimatorValue()
	if err != nil {
		return xdpmicro.Options{}, err
	}
	compareOpts, err := f.comparison.options(statOpts, est)
	if err != nil {
		return xdpmicro.Options{}, err
	}
	progs, defaults, err := f.programs(args)
	if err != nil {
		return xdpmicro.Options{}, err
	}
	cases, err := f.selection.cases(cmd, defaults)
	if err != nil {
		return xdpmicro.Options{}, err
	}
	var states []string
	if f.states != "" {
		states = strings.Split(f.states, ",") // checked once, by Complete
	}
	o := xdpmicro.Options{
		Programs: progs, Compared: f.before != "", Cases: cases, States: states, Load: f.load.options(), CPU: f.cpu.option(), Warmup: warmupOption(f.warmup),
		Samples: f.samples, Repeat: f.repeat, Sampling: f.sampling, Timer: f.timer, Placements: f.placements,
		Live: f.live, LiveBatch: f.liveBatch,
		SingleRun: f.singleRun, Restore: f.restore, NoFloor: !f.floor, NoAnchor: !f.anchor, History: f.history,
		Estimator: est, Stats: statOpts, Compare: compareOpts,
		Settings: results.Settings{Program: f.program, Sizes: f.selection.sizes},
		Started:  invoked, Precision: xdpmicro.FixedSamples,
	}
	if fl := cmd.Flags(); !fl.Changed("samples") || fl.Changed("precision") || fl.Changed("time") {
		o.Precision, o.Budget = f.precision, f.budget // else exactly --samples rounds
	}
	if err := f.readFiles(&o); err != nil {
		return xdpmicro.Options{}, err
	}
	return o, nil
}

// warmupOption is --warmup as the options take it: their zero is the
// default, so --warmup 0 (one round) is NoWarmup.
func warmupOption(d time.Duration) time.Duration {
	if d == 0 {
		return xdpmicro.NoWarmup
	}
	return d
}

// readFiles reads into o the map-init file and the baseline asked for.
func (f benchFlags) readFiles(o *xdpmicro.Options) error {
	var err error
	if f.mapInit != "" {
		if o.MapInit, err = xdpmicro.ReadMapInit(f.mapInit); err != nil {
			return err
		}
	}
	if f.baseline != "" {
		// Read before measuring: a missing baseline should not cost a run.
		if o.Baseline, err = results.LoadBaseline(f.dir, f.baseline); errors.Is(err, results.ErrNoBaseline) {
			return fmt.Errorf("%w (save one with --save-baseline %s)", err, f.baseline)
		} else if err != nil {
			return err
		}
		o.BaselineName = results.Baseline + " " + f.baseline
	}
	return nil
}

// check refuses, before anything is read or measured, the flags that
// cannot hold, naming them.
func (f benchFlags) check(cmd *cobra.Command) error {
	if err := f.output.checkTargets(); err != nil {
		return err
	}
	if f.save != "" {
		if err := checkDirTarget("baseline-dir", f.dir); err != nil {
			return err
		}
		if _, err := results.BaselinePath(f.dir, f.save); err != nil {
			return err
		}
	}
	if err := f.cpu.check(); err != nil {
		return err
	}
	if err := f.load.check(); err != nil {
		return err
	}
	switch {
	case f.singleRun && f.restore:
		return usageError(errors.New("--single-run and --restore are two ways to give every run a fresh frame: choose one"))
	case f.sampling != testrun.SamplingLinear && f.sampling != testrun.SamplingFlat:
		return usageError(fmt.Errorf("--sampling %q: want %s or %s", f.sampling, testrun.SamplingLinear, testrun.SamplingFlat))
	case !(f.precision > 0 && f.precision < 1):
		return usageError(fmt.Errorf("--precision %g: want a fraction in (0, 1), e.g. 0.02 for ±2 %%", f.precision))
	}
	return f.checkBounds(cmd)
}

// checkBounds refuses, before anything is read or loaded, a number or a
// duration past its flag's bounds.
func (f benchFlags) checkBounds(cmd *cobra.Command) error {
	if err := checkDuration("warmup", f.warmup, true, "100ms"); err != nil {
		return err
	}
	if cmd.Flags().Changed("samples") {
		if err := checkCount("samples", f.samples, xdpmicro.MinSamples, xdpmicro.MaxSamples); err != nil {
			return err
		}
	}
	if err := checkCount("placements", f.placements, 0, xdpmicro.MaxPlacements); err != nil {
		return err
	}
	if err := checkCount("batch-size", f.liveBatch, 0, xdpmicro.MaxLiveBatch); err != nil {
		return err
	}
	return f.kernel.check()
}
