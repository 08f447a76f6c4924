package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

func compareCommand() *cobra.Command {
	var out outputFlags
	var cmp compareFlags
	cmd := &cobra.Command{
		Use:   "compare OLD.json NEW.json",
		Short: "Compare two results saved with --format json",
		Long: `Compare two results saved with --format json (or two baselines), case by case.

The last program of each file is compared: the only one, or the "after" build
of a before/after run. Each file is first analysed again from its raw samples
by this build's analysis, as analyze does, each on its own; a file without
them (an older format) is judged by the figures it saved, with a warning.
Samples taken at different times cannot be paired:
results sampled linearly are compared by their slopes, with a bootstrap
test that resamples each side's calls within each repeat level; results
sampled flat by the estimate they were measured for (low by default), with
a bootstrap test on its change, or by --estimator's (mean: the
Mann-Whitney U test).
The default noise threshold is the one across runs, 12 %. A warning says
when the two were measured on different kernels, CPU models, CPUs, timers,
sampling modes or hosts, or with different repeat counts both given.`,
		Example: `  xdpmicro compare old.json new.json
  xdpmicro compare .xdpmicro/main.json new.json --fail-on-regression`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError(fmt.Errorf("compare takes two result files, got %d", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return compareFiles(cmd, args, &out, &cmp) },
	}
	out.register(cmd.Flags())
	describeDefault(cmd.Flags(), "estimator", "the new file's, warning if they differ")
	cmp.register(cmd.Flags())
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(report.KindRun.Formats()))
	return cmd
}

// compareFiles compares the two result files args names, writes the
// comparison, and turns a regression into the exit code asked for.
func compareFiles(cmd *cobra.Command, args []string, out *outputFlags, cmp *compareFlags) error {
	if err := out.checkTargets(); err != nil {
		return err
	}
	statOpts, err := out.statsOptions()
	if err != nil {
		return err
	}
	est, err := out.estimatorValue() // none: the files decide (xdpmicro.CompareSaved)
	if err != nil {
		return err
	}
	opts, err := cmp.options(statOpts, est)
	if err != nil {
		return err
	}
	before, err := results.Read(args[0])
	if err != nil {
		return err
	}
	after, err := results.Read(args[1])
	if err != nil {
		return err
	}
	rep, err := xdpmicro.CompareSaved(before, after, opts)
	if err != nil {
		return err
	}
	out.asides(cmd, rep) // else the table has them
	if err := out.write(cmd, rep); err != nil {
		return err
	}
	return cmp.verdict(rep)
}
