package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/olekukonko/tablewriter/tw"
	"github.com/xdpmicro/xdpmicro/stats"
	"gonum.org/v1/gonum/stat"
)

// Validation is what a ladder of programs of known relative cost says
// about the measurements: the ladder_N programs (N steps each), measured
// together with the floor in each of several separate runs.
type Validation struct {
	Steps []int `json:"steps"`
	// Runs holds, per run, each program's estimate and its net of the
	// floor, in the order of Steps.
	Runs []ValidationRun `json:"runs"`
	// PerStep and Intercept fit net = Intercept + PerStep·steps over all
	// runs by least squares, from VisibleSteps up; R2 is the fit's
	// coefficient of determination.
	PerStep   float64 `json:"ns_per_step"`
	Intercept float64 `json:"intercept_ns"`
	R2        float64 `json:"r2"`
	// MaxResidual is the largest distance of a run's net from the fit, in ns.
	MaxResidual float64 `json:"max_residual_ns"`
	// Spread is, per program, (max - min) / min of its estimate over the runs.
	Spread []float64 `json:"spread"`
	// Resolution is the median half-width of the paired interval of two
	// neighbouring programs' difference: the smallest difference told apart.
	Resolution float64 `json:"resolution_ns"`
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
	// Differences holds, per run, each rung's paired difference from the
	// base program.
	Differences [][]stats.Estimate `json:"differences"`
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
}

// ValidationRun is one run of the ladder.
type ValidationRun struct {
	Estimates []stats.Estimate `json:"estimates"`
	Net       []stats.Estimate `json:"net"`
	// Steps holds the paired difference of each program from the one
	// before it on the ladder (the first is empty).
	Steps []stats.Estimate `json:"differences"`
}

// Validation thresholds.
const (
	// VisibleSteps: below this many steps the chain runs in the shadow of
	// the harness's own ~7 ns per run and costs nothing measurable (an
	// out-of-order CPU overlaps them; measured here: 0 to 4 steps all cost
	// the floor). Linearity and spread are judged from here up, order
	// from half of it.
	VisibleSteps = 16
	// MinR2: each step is the same instructions, so the net cost must be
	// a straight line in the steps.
	MinR2 = 0.99
	// MaxSpread bounds each program's run-to-run spread.
	MaxSpread = 0.03
)

// Validate checks runs of the ladder, each a report whose programs are
// the ladder's in the order of steps, then the fine rungs in the order of
// fineSteps (built on the ladder program of fineBase steps), all measured
// with the floor.
func Validate(steps []int, fineBase int, fineSteps []int, runs []*Report, opts stats.Options) (*Validation, error) {
	v := &Validation{Steps: steps}
	var xs, ys []float64
	var halfWidths []float64
	for ri, r := range runs {
		if len(r.Programs) != len(steps)+len(fineSteps) || r.Floor == nil {
			return nil, fmt.Errorf("run %d: want %d ladder programs, %d fine rungs and the floor", ri+1, len(steps), len(fineSteps))
		}
		v.TimerResolution = max(v.TimerResolution, r.Environment.Resolution)
		est := r.Settings.estimator()
		var run ValidationRun
		for i, p := range r.Programs[:len(steps)] {
			c := p.Results[0]
			if c.Stats == nil || c.Net == nil {
				return nil, fmt.Errorf("run %d, %s: too few samples", ri+1, p.Info.Name)
			}
			run.Estimates = append(run.Estimates, c.Stats.Of(est))
			run.Net = append(run.Net, *c.Net)
			if steps[i] >= VisibleSteps {
				xs, ys = append(xs, float64(steps[i])), append(ys, c.Net.Point)
			}
			var d stats.Estimate
			if i > 0 {
				var err error
				if d, err = pairedDifference(r.Programs[i-1].Results[0], c, est, opts); err != nil {
					return nil, fmt.Errorf("run %d, %s: %w", ri+1, p.Info.Name, err)
				}
				halfWidths = append(halfWidths, (d.Upper-d.Lower)/2)
				if d.Point <= 0 && steps[i] >= VisibleSteps/2 {
					v.Failures = append(v.Failures, fmt.Sprintf("run %d: %s is not slower than %s (%+.2f ns)",
						ri+1, p.Info.Name, r.Programs[i-1].Info.Name, d.Point))
				}
			}
			run.Steps = append(run.Steps, d)
		}
		v.Runs = append(v.Runs, run)
	}
	if len(fineSteps) > 0 {
		fine, err := validateFine(steps, fineBase, fineSteps, runs, opts, v.TimerResolution)
		if err != nil {
			return nil, err
		}
		v.Fine = fine
		if fine.Checked {
			v.Failures = append(v.Failures, fine.failures()...)
		}
	}
	v.Intercept, v.PerStep = stat.LinearRegression(xs, ys, nil, false)
	v.R2 = stat.RSquared(xs, ys, nil, v.Intercept, v.PerStep)
	for i := range xs {
		v.MaxResidual = max(v.MaxResidual, math.Abs(ys[i]-(v.Intercept+v.PerStep*xs[i])))
	}
	v.Resolution = medianOf(halfWidths)
	for i := range steps {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, run := range v.Runs {
			lo, hi = min(lo, run.Estimates[i].Point), max(hi, run.Estimates[i].Point)
		}
		v.Spread = append(v.Spread, hi/lo-1)
		if len(v.Runs) > 1 && hi/lo-1 > MaxSpread && steps[i] >= VisibleSteps {
			v.Failures = append(v.Failures, fmt.Sprintf("ladder_%d: estimates spread %.1f %% over the runs, above %g %%",
				steps[i], 100*(hi/lo-1), 100*MaxSpread))
		}
	}
	if v.R2 < MinR2 {
		v.Failures = append(v.Failures, fmt.Sprintf("net cost is not linear in the steps: R² %.4f < %g", v.R2, MinR2))
	}
	return v, nil
}

// validateFine measures the fine rungs against their base, run by run.
func validateFine(steps []int, base int, fineSteps []int, runs []*Report, opts stats.Options, timerResolution float64) (*FineValidation, error) {
	bi := slices.Index(steps, base)
	if bi < 0 {
		return nil, fmt.Errorf("the fine rungs' base, ladder_%d, is not on the ladder", base)
	}
	f := &FineValidation{Base: base, Steps: fineSteps, Checked: timerResolution > 0 && timerResolution < 1}
	var xs, ys, halfWidths []float64
	for ri, r := range runs {
		est := r.Settings.estimator()
		base := r.Programs[bi].Results[0]
		var diffs []stats.Estimate
		prev := 0.0
		for i, fs := range fineSteps {
			rung := r.Programs[len(steps)+i]
			d, err := pairedDifference(base, rung.Results[0], est, opts)
			if err != nil {
				return nil, fmt.Errorf("run %d, %s: %w", ri+1, rung.Info.Name, err)
			}
			diffs = append(diffs, d)
			xs, ys = append(xs, float64(fs)), append(ys, d.Point)
			halfWidths = append(halfWidths, (d.Upper-d.Lower)/2)
			f.Pairs++
			if d.Point > prev {
				f.InOrder++
			}
			prev = d.Point
		}
		f.Differences = append(f.Differences, diffs)
	}
	_, f.PerStep = stat.LinearRegression(xs, ys, nil, true)
	f.Resolution = medianOf(halfWidths)
	return f, nil
}

// MaxFineError bounds each fine rung's difference from the base, relative
// to what its fine steps should cost: each is one one-cycle instruction
// on the chain, so the cost per fine step fitted over all rungs stands
// for a cycle. A rung fails when its difference's whole interval lies
// outside the band.
const MaxFineError = 0.3

// failures are the fine rungs out of order, or off their expected cost.
func (f *FineValidation) failures() []string {
	var out []string
	for ri, diffs := range f.Differences {
		prev := 0.0
		for i, d := range diffs {
			expected := f.PerStep * float64(f.Steps[i])
			switch {
			case d.Point <= prev:
				out = append(out, fmt.Sprintf("run %d: fine_%d is not slower than the rung before (%+.2f ns against %+.2f)", ri+1, f.Steps[i], d.Point, prev))
			case d.Lower > (1+MaxFineError)*expected || d.Upper < (1-MaxFineError)*expected:
				// Off by more than the band with the interval's confidence:
				// a point estimate alone fails on a noisy moment.
				out = append(out, fmt.Sprintf("run %d: fine_%d costs %+.2f [%+.2f %+.2f] ns, more than %g %% off %d fine steps of %.3f ns",
					ri+1, f.Steps[i], d.Point, d.Lower, d.Upper, 100*MaxFineError, f.Steps[i], f.PerStep))
			}
			prev = d.Point
		}
	}
	return out
}

// pairedDifference is the difference of two programs' estimates from the
// rounds both have samples of: of their slopes, when est is one.
func pairedDifference(before, after Case, est stats.Estimator, opts stats.Options) (stats.Estimate, error) {
	n := min(len(before.Samples), len(after.Samples))
	if !est.Fitted() {
		return stats.PairedDifference(before.Samples[:n], after.Samples[:n], est, opts)
	}
	return fitDifference(before, after, n, est, opts)
}

// medianOf is the median of xs, which it sorts; 0 for none.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return stats.Quantile(xs, 0.5)
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
		row := []string{fmt.Sprintf("ladder_%d", steps), strconv.Itoa(steps)}
		for _, run := range v.Runs {
			row = append(row, ns(run.Estimates[i].Point)+" ns")
		}
		first := v.Runs[0]
		step := ""
		if i > 0 {
			d := first.Steps[i]
			step = fmt.Sprintf("%+.2f [%+.2f %+.2f] ns", d.Point, d.Lower, d.Upper)
		}
		row = append(row,
			fmt.Sprintf("%s [%s %s] ns", ns(first.Net[i].Point), ns(first.Net[i].Lower), ns(first.Net[i].Upper)),
			step,
			ns(v.Intercept+v.PerStep*float64(steps))+" ns",
			fmt.Sprintf("%.1f %%", 100*v.Spread[i]))
		if err := table.Append(row); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "linearity (from %d steps): net = %.2f ns + %.3f ns × steps, R² %.4f, largest residual %.2f ns\n",
		VisibleSteps, v.Intercept, v.PerStep, v.R2, v.MaxResidual)
	fmt.Fprintf(w, "below %d steps the chain hides behind the harness's own time per run: order is checked from %d steps\n",
		VisibleSteps, VisibleSteps/2)
	fmt.Fprintf(w, "resolution: neighbouring programs' paired differences are known to ±%.2f ns (median half-width), "+
		"one step being %.2f ns; the timer's quantum is %.2g ns\n", v.Resolution, v.PerStep, v.TimerResolution)
	if f := v.Fine; f != nil {
		if err := f.write(w, v.Runs); err != nil {
			return err
		}
	}
	// The spread judged: of the programs from VisibleSteps up.
	spread := 0.0
	for i, s := range v.Spread {
		if v.Steps[i] >= VisibleSteps {
			spread = max(spread, s)
		}
	}
	fmt.Fprintf(w, "run-to-run: estimates from %d steps up spread at most %.1f %% over %d runs (limit %g %%)\n",
		VisibleSteps, 100*spread, len(v.Runs), 100*MaxSpread)
	if len(v.Failures) == 0 {
		fmt.Fprintln(w, "validation passed: every program slower than the one before, linear, reproducible")
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
		header = append(header, fmt.Sprintf("run %d: difference from ladder_%d", i+1, f.Base))
	}
	table.Header(header...)
	for i, fs := range f.Steps {
		row := []string{fmt.Sprintf("fine_%d", fs), strconv.Itoa(fs)}
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
		fmt.Fprintf(w, "each fine rung must be slower than the one before and within %g %% of its fine steps' cost\n", 100*MaxFineError)
	}
	return nil
}

// WriteJSON writes the validation's figures as JSON.
func (v *Validation) WriteJSON(w io.Writer) error { return writeJSON(w, v) }
