package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
)

// writeValidationText shows the ladder as a table and the checks' figures.
func writeValidationText(w io.Writer, v *results.Validation) error {
	table := printable.FigureTable(w, tw.AlignLeft)
	header := []any{"program", "steps"}
	for i := range v.Runs {
		header = append(header, fmt.Sprintf("run %d", i+1))
	}
	stepHeader := "step from previous (run 1)"
	if len(v.Runs) == 1 {
		stepHeader = "step from previous"
	} else if len(v.Combined) == len(v.Steps) {
		stepHeader = fmt.Sprintf("step from previous (%s together)", runsNamed(len(v.Runs)))
	}
	table.Header(append(header, "net (run 1)", stepHeader, "fit", "spread")...)
	for i, steps := range v.Steps {
		row := []string{v.Names[i], strconv.Itoa(steps)}
		for _, run := range v.Runs {
			row = append(row, printable.NS(run.Estimates[i].Point)+" ns")
		}
		first := v.Runs[0]
		step := ""
		if i > 0 {
			d := first.Steps[i]
			if len(v.Runs) > 1 && len(v.Combined) == len(v.Steps) {
				d = v.Combined[i]
			}
			step = fmt.Sprintf("%+.2f [%+.2f %+.2f] ns", d.Point, d.Lower, d.Upper)
		}
		row = append(row,
			fmt.Sprintf("%s [%s %s] ns", printable.NS(first.Net[i].Point), printable.NS(first.Net[i].Lower), printable.NS(first.Net[i].Upper)),
			step,
			printable.NS(v.Intercept+v.PerStep*float64(steps))+" ns",
			fmt.Sprintf("%.1f %%", 100*v.Spread[i]))
		if err := table.Append(row); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "linearity: net = %.2f ns + %.3f ns × steps (the mean of each run's own line), R² %.4f (the worst run's), largest residual %.2f ns; every program stands on %d base steps, "+
		"so that its chain is longer than the test-run loop's own time per run\n",
		v.Intercept, v.PerStep, v.R2, v.MaxResidual, v.BaseSteps)
	inOne := ""
	if len(v.Runs) > 1 {
		inOne = fmt.Sprintf("; ±%.2f ns in one", v.RunResolution)
	}
	fmt.Fprintf(w, "resolution: neighbouring programs' paired differences are known to ±%.2f ns over %s (median half-width%s), "+
		"one step being %.2f ns; the timer's quantum is %.2g ns\n", v.Resolution, runsNamed(len(v.Runs)), inOne, v.PerStep, v.TimerResolution)
	if len(v.Unjudged) > 0 {
		fmt.Fprintf(w, "order shown but not judged, the steps between them costing less than the resolution: %s\n", strings.Join(v.Unjudged, ", "))
	}
	if f := v.Fine; f != nil {
		if err := writeFineValidation(w, f, v.Runs); err != nil {
			return err
		}
	}
	spread := 0.0
	for _, s := range v.Spread {
		spread = max(spread, s)
	}
	var moves []string
	for ri := 1; ri < len(v.RunFactors) && ri < len(v.RunShifts); ri++ {
		moves = append(moves, fmt.Sprintf("run %d %+.1f ns ×%.3f", ri+1, v.RunShifts[ri], v.RunFactors[ri]))
	}
	fmt.Fprintf(w, "run-to-run: estimates spread at most %.1f %% over %d runs (limit %g %%), "+
		"beside the runs' common move from run 1, which moved every program alike (the machine's phase): %s\n",
		100*spread, len(v.Runs), 100*v.MaxSpread, strings.Join(moves, ", "))
	if len(v.Failures) == 0 {
		order := "every program slower than the one before"
		if len(v.Unjudged) > 0 {
			order = "every program slower than the one before where the steps between resolve"
		}
		fmt.Fprintf(w, "validation passed: %s, linear, reproducible\n", order)
		return nil
	}
	for _, f := range v.Failures {
		fmt.Fprintln(w, "FAILED: "+f)
	}
	return nil
}

func writeFineValidation(w io.Writer, f *results.FineValidation, runs []results.ValidationRun) error {
	table := printable.FigureTable(w, tw.AlignLeft)
	header := []any{"fine rung", "fine steps"}
	for i := range runs {
		header = append(header, fmt.Sprintf("run %d: difference from %s", i+1, f.BaseName))
	}
	combined := len(runs) > 1 && len(f.Combined) == len(f.Steps)
	if combined {
		header = append(header, runsNamed(len(runs))+" together")
	}
	table.Header(header...)
	for i, fs := range f.Steps {
		row := []string{f.Names[i], strconv.Itoa(fs)}
		for _, diffs := range f.Differences {
			d := diffs[i]
			row = append(row, fmt.Sprintf("%+.2f [%+.2f %+.2f] ns", d.Point, d.Lower, d.Upper))
		}
		if combined {
			d := f.Combined[i]
			row = append(row, fmt.Sprintf("%+.2f [%+.2f %+.2f] ns", d.Point, d.Lower, d.Upper))
		}
		if err := table.Append(row); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "fine steps (one instruction each): %.2f ns per fine step (%+.2f ns beside them), neighbours in order %d of %d, "+
		"differences known to ±%.2f ns over %s (median half-width)\n", f.PerStep, f.Intercept, f.InOrder, f.Pairs, f.Resolution, runsNamed(len(runs)))
	if !f.Checked {
		fmt.Fprintln(w, "fine steps are below the kernel timer's 1 ns quantum, and its runs overlap: "+
			"their order is not checked; linear sampling resolves them")
	} else {
		fmt.Fprintf(w, "each fine rung must be slower than the one before and within %g %% of its fine steps' cost, where its interval resolves them and the line's offset is less than half of it\n", 100*f.MaxError)
	}
	if len(f.Unresolved) > 0 {
		fmt.Fprintf(w, "not resolved here, shown but not judged: %s (their differences' intervals, which hold the loads' placement, are wider than what their fine steps cost)\n",
			strings.Join(f.Unresolved, ", "))
	}
	return nil
}

// writeValidationJSON writes the validation's figures as JSON, escaped as
// internal/printable escapes JSON.
func writeValidationJSON(w io.Writer, v *results.Validation) error { return printable.JSON(w, v) }

// runsNamed is "the 3 runs", or "the run".
func runsNamed(n int) string {
	if n == 1 {
		return "the run"
	}
	return fmt.Sprintf("the %d runs", n)
}
