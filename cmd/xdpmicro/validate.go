package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/ladder"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/stats"
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
	json      bool
	output    outputFlags
}

func validateCommand() *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Measure a ladder of programs of known relative cost and check the measurements",
		Long: `Measure the bundled ladder: XDP programs doing 0, 1, 2, 4, 8, 16, 32 and 64
dependent multiply-adds (ladder_N), and its fine rungs: ladder_64 with 1, 2,
4, 8 and 16 one-cycle shifts more on the same dependency chain (fine_N), all
in the same rounds with the empty program, by linear sampling, in --runs
separate runs (each loads everything anew).

Then check: every ladder program from 8 steps up is slower than the one
before (below that the chain hides behind the harness's own time per run);
the net cost is linear in the steps from 16 up (R² at least 0.99); each
estimate from 16 steps up is within 3 % from run to run; every fine rung is
slower than the one before, and within 30 % of its fine steps' cost at the
fitted cost per fine step. It prints the figures: ns per step and per fine
step, the fit, the resolution reached and the spread.

Exit code 1 if a check fails.`,
		Args: atMostArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return validate(cmd, f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.runs, "runs", 3, "measure the whole ladder in `N` separate runs, each loading everything anew")
	f.cpu.register(fl)
	fl.Float64Var(&f.precision, "precision", stats.DefaultPrecision, "sample each run until every estimate's interval is within ±`P` (relative), or --time is spent")
	fl.DurationVar(&f.budget, "time", testrun.DefaultBudget, "the time budget `D` of each run: calibration, warm-up and sampling")
	registerTimer(fl, &f.timer)
	fl.BoolVar(&f.json, "json", false, "the ladder's figures as JSON")
	f.output.register(fl)
	return cmd
}

func validate(cmd *cobra.Command, f validateFlags) error {
	if f.runs < 1 {
		return usageError{fmt.Errorf("--runs %d: want at least 1", f.runs)}
	}
	if err := f.output.checkTargets(); err != nil {
		return err
	}
	if err := f.cpu.check(); err != nil {
		return err
	}
	opts, err := f.output.statsOptions()
	if err != nil {
		return err
	}
	est, err := f.output.estimatorValue(stats.Slope)
	if err != nil {
		return err
	}
	bench := benchFlags{precision: f.precision, budget: f.budget}
	plan, err := bench.plan(cmd, est, opts, 1, 0)
	if err != nil {
		return err
	}
	cases, err := ladder.Cases()
	if err != nil {
		return err
	}
	progs := ladder.Programs()
	ctx, stop, caught := signalContext()
	defer stop()
	var runs []*report.Report
	cpu := int(f.cpu)
	for i := range f.runs {
		res, err := testrun.Run(ctx, testrun.Config{
			Programs: progs, Cases: cases, CPU: cpu, Warmup: testrun.DefaultWarmup,
			Samples: plan.samples, Enough: plan.enough, Budget: plan.budget, MinTime: plan.minTime, Timer: f.timer,
			Sampling: testrun.SamplingLinear,
			Floor:    &testrun.Object{Name: "floor (bundled)", ELF: bpf.Floor()},
			Notice:   noticeTo(cmd.ErrOrStderr()),
		})
		if res.Partial || (caught() != 0 && errors.Is(err, context.Canceled)) {
			return interrupted{signal: int(caught())}
		}
		if errors.Is(err, testrun.ErrConfig) {
			return usageError{err}
		}
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		rep, err := report.New(report.Settings{Estimator: est, Confidence: opts.Confidence, Resamples: opts.Resamples}, toReport(res), opts)
		if err != nil {
			return err
		}
		runs = append(runs, rep)
		// Every run on the first one's CPU: the runs' spread is a check,
		// and CPUs differ. Between runs another xdpmicro run may take it;
		// then the next run waits for it rather than move.
		cpu = res.Environment.CPU
	}
	v, err := ladder.Validate(bpf.LadderSteps, bpf.FineBase, ladder.FineSteps, runs, opts)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.json {
		err = v.WriteJSON(out)
	} else {
		err = v.Write(out)
		env := runs[0].Environment
		fmt.Fprintf(out, "estimator %s · timer %s · CPU %d · repeat %d · %s\n", est, env.Timer, env.CPU, env.Repeat, env.Kernel)
	}
	if err != nil {
		return err
	}
	if len(v.Failures) > 0 {
		return fmt.Errorf("%w: %d check(s), see above", errValidation, len(v.Failures))
	}
	return nil
}
