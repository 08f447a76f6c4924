package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// programNames are the programs OBJECT's --program chooses when it
// chooses several, as go test -bench . runs every benchmark; nil when the
// run measures one, named in opts. A bundled build names its own.
func (f benchFlags) programNames(cmd *cobra.Command, opts *xdpmicro.Options) ([]string, error) {
	names, skipped, err := xdpmicro.Choose(*opts)
	if err != nil {
		return nil, f.load.hint(err)
	}
	if len(names) == 1 {
		// Only where --program chose it: a bundled build before names its
		// own (rung0 against rung2 is fine_0 against fine_2, not fine_2
		// twice).
		for i, p := range opts.Programs {
			if p.Name() == f.program {
				opts.Programs[i] = p.Named(names[0])
			}
		}
		return nil, nil
	}
	switch {
	case f.save != "":
		return nil, usageError(errors.New("--save-baseline saves one program's results: choose it with --program"))
	case f.baseline != "":
		return nil, usageError(errors.New("--baseline compares one program: choose it with --program"))
	case f.output.html != "":
		return nil, usageError(errors.New("--report draws one program: choose it with --program"))
	}
	// Bad options are the same for every program: one line, exit 2,
	// before any is measured.
	if _, err := opts.Complete(); err != nil {
		return nil, f.load.hint(err)
	}
	for _, p := range skipped {
		fmt.Fprintf(cmd.ErrOrStderr(), "xdpmicro: note: %s (%s) is not measured: %s\n", report.PrintableLine(p.Name), p.Type, report.PrintableLine(notMeasured(p)))
	}
	return names, nil
}

// notMeasured says why a program was passed over.
func notMeasured(p xdpmicro.ProgramInfo) string {
	if p.Supported() {
		return "the kernel will not test-run a " + p.ForMap() + " program (--attach-type xdp loads it as plain XDP)"
	}
	return "not a type xdpmicro measures"
}

// runEach measures each program in turn, a table each, and reports the
// programs that failed after the others' results: exit 1 if any did.
func runEach(cmd *cobra.Command, f benchFlags, opts xdpmicro.Options, names []string) error {
	ctx, stop, caught := signalContext(cmd.ErrOrStderr())
	defer stop()
	outcomes := measureEach(ctx, cmd, f, opts, names)
	var reps []*results.Run
	var failed []string
	for _, o := range outcomes {
		switch {
		case o.Report != nil && o.Report.Partial:
			fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: interrupted; partial results follow, nothing written to --output")
			report.Output{View: f.output.view()}.Fallback(cmd.OutOrStdout(), report.OfRuns(append(reps, o.Report)))
			return interrupted{signal: int(caught())}
		case o.Err != nil && caught() != 0 && xdpmicro.Interrupted(o.Err):
			fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: interrupted; nothing written")
			return interrupted{signal: int(caught())}
		case o.Err != nil:
			fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: program "+report.PrintableLine(oneLine(f.load.hint(o.Err)))) // the object's names
			failed = append(failed, o.Program)
		default:
			reps = append(reps, o.Report)
		}
	}
	if err := f.writeEach(cmd, reps); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d programs failed: %s", len(failed), len(names), strings.Join(failed, ", "))
	}
	return nil
}

// writeEach writes the reports as finish writes one, and judges each
// comparison.
func (f benchFlags) writeEach(cmd *cobra.Command, reps []*results.Run) error {
	if len(reps) == 0 {
		return nil
	}
	if _, err := report.KindRuns.Parse(f.output.format); err != nil {
		return err
	}
	for _, r := range reps {
		f.output.asides(cmd, r)
	}
	if err := f.output.target().Write(cmd.OutOrStdout(), report.OfRuns(reps)); err != nil {
		return err
	}
	for _, r := range reps {
		if err := f.comparison.verdict(r); err != nil {
			return err
		}
	}
	return nil
}

// programOutcome is one program's run of several.
type programOutcome struct {
	Program string
	Report  *results.Run
	Err     error
}

// measureEach measures each named program of the measured object in
// turn, each with a budget of its own, until ctx ends.
func measureEach(ctx context.Context, cmd *cobra.Command, f benchFlags, opts xdpmicro.Options, names []string) []programOutcome {
	var out []programOutcome
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		obs, end := observe(cmd, f.quiet)
		one := opts
		one.Programs = slices.Clone(opts.Programs)
		for i, p := range one.Programs {
			one.Programs[i] = p.Named(name)
		}
		one.Settings.Program = name
		one.Started = time.Now()
		rep, err := xdpmicro.Run(ctx, one, obs)
		end()
		if err != nil {
			err = fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, programOutcome{Program: name, Report: rep, Err: err})
	}
	return out
}
