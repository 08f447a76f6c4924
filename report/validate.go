package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/figures"

	"github.com/olekukonko/tablewriter/tw"
	"github.com/xdpmicro/xdpmicro/results"
)

// Validation is what a ladder of programs of known relative cost says
// about the measurements: the ladder_N programs (N steps each), measured
// together with the floor in each of several separate runs.
type Validation struct {
	Steps []int `json:"steps"`
	// Names are the ladder programs' names, in the order of Steps.
	Names []string `json:"programs"`
	// BaseSteps is the chain every ladder program does before its own
	// steps, so that each step shows. MaxSpread is the least limit of
	// the spread, MinR2 the fit's (package ladder sets them).
	BaseSteps int     `json:"base_steps"`
	MaxSpread float64 `json:"max_spread"`
	MinR2     float64 `json:"min_r2"`
	// Runs holds, per run, each program's estimate and its net of the
	// floor, in the order of Steps.
	Runs []ValidationRun `json:"runs"`
	// PerStep and Intercept fit net = Intercept + PerStep·steps over all
	// runs by least squares; R2 is the fit's
	// coefficient of determination.
	PerStep   float64 `json:"ns_per_step"`
	Intercept float64 `json:"intercept_ns"`
	R2        float64 `json:"r2"`
	// MaxResidual is the largest distance of a run's net from the fit, in ns.
	MaxResidual float64 `json:"max_residual_ns"`
	// Spread is, per program, (max - min) / min of its estimate over the
	// runs, each moved back by its run's shift and factor (RunShifts,
	// RunFactors), and SpreadLimits what it is held to: MaxSpread, or
	// three times the widest relative half-width of its runs' intervals
	// where larger.
	Spread       []float64 `json:"spread"`
	SpreadLimits []float64 `json:"spread_limits"`
	// RunShifts and RunFactors are each run's common move from the first
	// run, estimate ≈ shift + factor × the first run's, which the spread
	// leaves out: the machine's phase, moving every program alike.
	RunShifts  []float64 `json:"run_shifts_ns"`
	RunFactors []float64 `json:"run_factors"`
	// Resolution is the median half-width of the paired interval of two
	// neighbouring programs' difference: the smallest difference told apart.
	Resolution float64 `json:"resolution_ns"`
	// Unjudged are the neighbouring programs whose steps cost less than
	// Resolution: their order is shown, not judged.
	Unjudged []string `json:"unjudged,omitempty"`
	// TimerResolution is the quantum of the timer's samples (1 ns for the
	// kernel's, far less for the stats timer's averages).
	TimerResolution float64 `json:"timer_resolution_ns"`
	// Fine is the fine rungs: the ladder program of bpf.FineBase steps
	// and the same with a few one-instruction fine steps each.
	Fine *FineValidation `json:"fine,omitempty"`
	// Failures says which checks failed; empty when all passed.
	Failures []string `json:"failures,omitempty"`
}

// FineValidation is what the fine rungs say: differences below the
// kernel timer's 1 ns quantum.
type FineValidation struct {
	Base  int   `json:"base_steps"` // the ladder program they build on
	Steps []int `json:"fine_steps"` // fine steps of each rung, ascending, from 1
	// BaseName and Names are the base program's and the rungs' names.
	BaseName string   `json:"base_program"`
	Names    []string `json:"programs"`
	// MaxError bounds each rung's difference from its fine steps' cost,
	// relative to it.
	MaxError float64 `json:"max_error"`
	// Differences holds, per run, each rung's paired difference from the
	// base program, and Neighbours from the rung below (the base for the
	// first).
	Differences [][]results.Estimate `json:"differences"`
	Neighbours  [][]results.Estimate `json:"neighbour_differences"`
	// PerStep fits difference = PerStep·steps over all runs (least squares
	// through the origin).
	PerStep float64 `json:"ns_per_fine_step"`
	// InOrder counts neighbouring rungs (the base first) that came out in
	// order, of Pairs, over all runs.
	InOrder int `json:"in_order"`
	Pairs   int `json:"pairs"`
	// Resolution is the median half-width of the rungs' difference
	// intervals.
	Resolution float64 `json:"resolution_ns"`
	// Checked says the order was checked: only a timer finer than the
	// kernel's 1 ns can see these steps.
	Checked bool `json:"checked"`
	// Unresolved are the rungs whose difference, in some run, was known
	// less finely than its fine steps cost: the loads' placement moves a
	// rung by more than a cycle or two. They are shown, not judged.
	Unresolved []string `json:"unresolved,omitempty"`
}

// ValidationRun is one run of the ladder.
type ValidationRun struct {
	Estimates []results.Estimate `json:"estimates"`
	Net       []results.Estimate `json:"net"`
	// Steps holds the paired difference of each program from the one
	// before it on the ladder (the first is empty).
	Steps []results.Estimate `json:"differences"`
}

// Write shows the ladder as a table and the checks' figures.
func (v *Validation) Write(w io.Writer) error {
	table := newTable(w, tw.AlignLeft)
	header := []any{"program", "steps"}
	for i := range v.Runs {
		header = append(header, fmt.Sprintf("run %d", i+1))
	}
	table.Header(append(header, "net (run 1)", "step from previous (run 1)", "fit", "spread")...)
	for i, steps := range v.Steps {
		row := []string{v.Names[i], strconv.Itoa(steps)}
		for _, run := range v.Runs {
			row = append(row, figures.NS(run.Estimates[i].Point)+" ns")
		}
		first := v.Runs[0]
		step := ""
		if i > 0 {
			d := first.Steps[i]
			step = fmt.Sprintf("%+.2f [%+.2f %+.2f] ns", d.Point, d.Lower, d.Upper)
		}
		row = append(row,
			fmt.Sprintf("%s [%s %s] ns", figures.NS(first.Net[i].Point), figures.NS(first.Net[i].Lower), figures.NS(first.Net[i].Upper)),
			step,
			figures.NS(v.Intercept+v.PerStep*float64(steps))+" ns",
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
	fmt.Fprintf(w, "resolution: neighbouring programs' paired differences are known to ±%.2f ns (median half-width), "+
		"one step being %.2f ns; the timer's quantum is %.2g ns\n", v.Resolution, v.PerStep, v.TimerResolution)
	if len(v.Unjudged) > 0 {
		fmt.Fprintf(w, "order shown but not judged, the steps between them costing less than the resolution: %s\n", strings.Join(v.Unjudged, ", "))
	}
	if f := v.Fine; f != nil {
		if err := f.write(w, v.Runs); err != nil {
			return err
		}
	}
	spread, limit := 0.0, 0.0
	for i, s := range v.Spread {
		spread, limit = max(spread, s), max(limit, v.SpreadLimits[i])
	}
	var moves []string
	for ri := 1; ri < len(v.RunFactors) && ri < len(v.RunShifts); ri++ {
		moves = append(moves, fmt.Sprintf("run %d %+.1f ns ×%.3f", ri+1, v.RunShifts[ri], v.RunFactors[ri]))
	}
	fmt.Fprintf(w, "run-to-run: estimates spread at most %.1f %% over %d runs (limit %g %%, or three times a run's widest half-width: at most %.1f %%), "+
		"beside the runs' common move from run 1, which moved every program alike (the machine's phase): %s\n",
		100*spread, len(v.Runs), 100*v.MaxSpread, 100*limit, strings.Join(moves, ", "))
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

func (f *FineValidation) write(w io.Writer, runs []ValidationRun) error {
	table := newTable(w, tw.AlignLeft)
	header := []any{"fine rung", "fine steps"}
	for i := range runs {
		header = append(header, fmt.Sprintf("run %d: difference from %s", i+1, f.BaseName))
	}
	table.Header(header...)
	for i, fs := range f.Steps {
		row := []string{f.Names[i], strconv.Itoa(fs)}
		for _, diffs := range f.Differences {
			d := diffs[i]
			row = append(row, fmt.Sprintf("%+.2f [%+.2f %+.2f] ns", d.Point, d.Lower, d.Upper))
		}
		if err := table.Append(row); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "fine steps (one instruction each): %.2f ns per fine step, neighbours in order %d of %d, "+
		"differences known to ±%.2f ns (median half-width)\n", f.PerStep, f.InOrder, f.Pairs, f.Resolution)
	if !f.Checked {
		fmt.Fprintln(w, "fine steps are below the kernel timer's 1 ns quantum, and its runs overlap: "+
			"their order is not checked; linear sampling resolves them")
	} else {
		fmt.Fprintf(w, "each fine rung must be slower than the one before and within %g %% of its fine steps' cost, where its interval resolves them\n", 100*f.MaxError)
	}
	if len(f.Unresolved) > 0 {
		fmt.Fprintf(w, "not resolved here, shown but not judged: %s (their differences' intervals, which hold the loads' placement, are wider than what their fine steps cost)\n",
			strings.Join(f.Unresolved, ", "))
	}
	return nil
}

// WriteJSON writes the validation's figures as JSON.
func (v *Validation) WriteJSON(w io.Writer) error { return writeJSON(w, v) }
