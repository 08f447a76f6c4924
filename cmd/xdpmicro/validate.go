package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// errValidation marks a validation whose checks failed: a failed run.
var errValidation = errors.New("validation failed")

type validateFlags struct {
	runs      int
	cpu       cpuFlag
	precision float64
	budget    time.Duration
	timer     testrun.Timer
	// stats holds --confidence, --resamples and --estimator: validate
	// takes bench's, and none of its report's.
	stats  outputFlags
	format string
	output string
}

func validateCommand() *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Measure a ladder of programs of known relative cost and check the measurements",
		Long: `Measure the bundled ladder: XDP programs doing 0, 1, 2, 4, 8, 16, 32 and 64
dependent multiply-adds (ladder_N) on top of a base chain of ` + fmt.Sprint(bpf.LadderBase) + `, and its fine
rungs: ladder_0 with 1, 2, 4, 8 and 16 one-cycle shifts more on the same
chain (fine_N), all in the same rounds with the empty program, by linear
sampling, in --runs separate runs (each loads everything anew). The base
chain is longer than the test-run loop's own time per run, so that every
step shows: an out-of-order core runs the two side by side.

Then check: ladder_0 costs more than the empty program; every ladder
program is slower than the one before (a difference fails when its
interval cannot hold half its steps' fitted cost); the net cost is linear
in the steps (R² at least 0.99); each estimate is within 3 % from run to
run, or twice its runs' widest interval on a noisier machine; every fine
rung is slower than the one before, and within 30 % of its fine steps'
cost on the fitted line, where the line's offset is less than half of it. It prints the figures: ns per step
and per fine step, the fit, the resolution reached and the spread.

Exit code 1 if a check fails.`,
		Args: atMostArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return validate(cmd, f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.runs, "runs", xdpmicro.DefaultValidateRuns, fmt.Sprintf("measure the whole ladder in `N` separate runs, each loading everything anew; at most %d", xdpmicro.MaxValidateRuns))
	f.cpu.register(fl)
	fl.Float64Var(&f.precision, "precision", xdpmicro.Defaults().Precision, "sample each run until every estimate's interval is within ±`P` (relative), or --time is spent")
	fl.DurationVar(&f.budget, "time", 0, "the time budget `D` of each run: calibration, warm-up and sampling; at most "+shortDuration(maxDuration))
	describeDefault(fl, "time", ladderDefaults().Budget.String())
	registerTimer(fl, &f.timer)
	f.stats.registerBootstrap(fl)
	f.stats.registerEstimator(fl)
	describeDefault(fl, "estimator", string(xdpmicro.DefaultEstimator(testrun.SamplingLinear)))
	fl.StringVar(&f.format, "format", string(report.Text), "write the figures in `FORMAT`: "+report.KindValidation.Help())
	fl.StringVarP(&f.output, "output", "o", "", "write the figures to `FILE`, atomically, instead of standard output")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(report.KindValidation.Formats()))
	return cmd
}

func validate(cmd *cobra.Command, f validateFlags) error {
	o, err := f.options()
	if err != nil {
		return err
	}
	ctx, stop, caught := signalContext(cmd.ErrOrStderr())
	defer stop()
	obs, stopProgress := observe(cmd, true)
	defer stopProgress()
	v, runs, err := xdpmicro.Validate(ctx, o, f.runs, obs)
	if caught() != 0 && xdpmicro.Interrupted(err) {
		return interrupted{signal: int(caught())}
	}
	if err != nil {
		return err
	}
	out := report.Output{Format: report.Format(f.format), Path: f.output}
	if err := out.Write(cmd.OutOrStdout(), report.OfValidation(v, runs[0].Settings.Estimator, runs[0].Environment)); err != nil {
		return err
	}
	if len(v.Failures) > 0 {
		where := "above"
		if f.output != "" {
			where = f.output
		}
		return fmt.Errorf("%w: %d check(s), see %s", errValidation, len(v.Failures), where)
	}
	return nil
}

// options checks validate's flags and turns them into the options of
// every run (xdpmicro.Validate measures the ladder).
func (f validateFlags) options() (xdpmicro.Options, error) {
	if err := checkCount("runs", f.runs, 1, xdpmicro.MaxValidateRuns); err != nil {
		return xdpmicro.Options{}, err
	}
	if _, err := report.KindValidation.Parse(f.format); err != nil {
		return xdpmicro.Options{}, usageError(fmt.Errorf("--format: %w", err))
	}
	if err := checkFileTarget("output", f.output); err != nil {
		return xdpmicro.Options{}, err
	}
	if f.precision < 0 || f.precision >= 1 {
		return xdpmicro.Options{}, usageError(fmt.Errorf("--precision %g: want a fraction in (0, 1), or 0 for a fixed number of samples", f.precision))
	}
	if err := f.cpu.check(); err != nil {
		return xdpmicro.Options{}, err
	}
	opts, err := f.stats.statsOptions()
	if err != nil {
		return xdpmicro.Options{}, err
	}
	est, err := f.stats.estimatorValue()
	if err != nil {
		return xdpmicro.Options{}, err
	}
	o := xdpmicro.Options{}
	o.CPU, o.Precision, o.Budget, o.Timer, o.Estimator, o.Stats = f.cpu.option(), f.precision, f.budget, f.timer, est, opts
	if f.precision == 0 {
		o.Precision = xdpmicro.FixedSamples // the options' zero is the default
	}
	return o, nil
}

// ladderDefaults are a validation run's options as Complete fills them.
func ladderDefaults() xdpmicro.Options {
	o, err := xdpmicro.Ladder(xdpmicro.Options{})
	if err == nil {
		o, err = o.Complete()
	}
	if err != nil {
		return xdpmicro.Defaults()
	}
	return o
}
