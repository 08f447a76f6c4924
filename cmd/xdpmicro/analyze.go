package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// analyzeFlags are analyze's flags: bench's output and statistics, each
// defaulting to the file's own, and the phase history to recall from.
type analyzeFlags struct {
	out     outputFlags
	cmp     compareFlags
	history string
}

func analyzeCommand() *cobra.Command {
	var f analyzeFlags
	cmd := &cobra.Command{
		Use:   "analyze RUN.json",
		Short: "Analyse a run saved with --format json again, from its raw samples",
		Long: `Analyse a run saved with --format json (or a baseline) again, from the raw
samples it holds, by this build's analysis, and write the report as bench
writes a run it has just measured: every load's samples, the floor's and the
environment are read from the file, and every figure is found anew (each
case's estimate over its loads, its interval, the net of the floor, the fast
phase). A run saved by an older build is judged by today's estimator. A
before/after run is compared again, interleaved as it was measured; a
comparison of two runs measured apart is analysed as its later run.

The statistics default to the file's own: its confidence, resamples,
estimator and low quantile, and its comparison's significance and noise
threshold. The run stands on its own, scaled to no phase history, unless
--history names one: then it is scaled to the fast phase that history
recalls for this boot, CPU and design, as the history stood when the run
began (the file is only read).`,
		Example: `  xdpmicro analyze run.json
  xdpmicro analyze run.json --format json -o again.json
  xdpmicro analyze run.json --estimator mean --confidence 0.99 --wide`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("analyze takes one saved run, got %d", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, args[0]) },
	}
	f.register(cmd)
	return cmd
}

// register adds analyze's flags: bench's output flags, its statistics
// and comparison flags with the file's defaults, and --history.
func (f *analyzeFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.out.register(fl)
	f.out.registerLowQuantile(fl)
	fl.StringVar(&f.history, "history", "", "scale the run to the fast phase the phase history `FILE` recalls for this boot, "+
		"as it stood when the run began; the file is only read")
	describeDefault(fl, "history", "none: the run stands on its own")
	f.cmp.register(fl)
	for _, name := range []string{"confidence", "resamples", "estimator", "low-quantile", "significance"} {
		describeDefault(fl, name, "the file's")
	}
	describeDefault(fl, "noise-threshold", "the file's; with another --estimator, auto")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(report.KindRun.Formats()))
}

// run analyses the saved run at path again and writes the report; a
// regression of a before/after run is the exit code asked for.
func (f *analyzeFlags) run(cmd *cobra.Command, path string) error {
	if err := f.out.checkTargets(); err != nil {
		return err
	}
	opts, err := f.options(cmd)
	if err != nil {
		return err
	}
	saved, err := results.Read(path)
	if err != nil {
		return err
	}
	rep, err := xdpmicro.Analyze(context.Background(), saved, opts, noticeObserver{noticeTo(cmd.ErrOrStderr())})
	if errors.Is(err, results.ErrBadResult) {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return err
	}
	f.out.asides(cmd, rep) // else the table has them
	if err := f.out.write(cmd, rep); err != nil {
		return err
	}
	return f.cmp.verdict(rep)
}

// options are the flags as xdpmicro.AnalyzeOptions take them: each one
// not given zero, the file's.
func (f *analyzeFlags) options(cmd *cobra.Command) (xdpmicro.AnalyzeOptions, error) {
	statOpts, err := f.out.statsOptions()
	if err != nil {
		return xdpmicro.AnalyzeOptions{}, err
	}
	est, err := f.out.estimatorValue()
	if err != nil {
		return xdpmicro.AnalyzeOptions{}, err
	}
	cmpOpts, err := f.cmp.options(statOpts, est)
	if err != nil {
		return xdpmicro.AnalyzeOptions{}, err
	}
	given := cmd.Flags().Changed
	o := xdpmicro.AnalyzeOptions{Estimator: est, History: f.history}
	if given("confidence") {
		o.Stats.Confidence = statOpts.Confidence
	}
	if given("resamples") {
		o.Stats.Resamples = statOpts.Resamples
	}
	if given("low-quantile") {
		o.Stats.LowQuantile = statOpts.LowQuantile
	}
	if given("significance") {
		o.Significance = cmpOpts.Significance
	}
	if given("noise-threshold") {
		o.NoiseThreshold = cmpOpts.NoiseThreshold // auto is zero: the file's
	}
	return o, nil
}
