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
	// Failures says which checks failed; empty when all passed.
	Failures []string `json:"failures,omitempty"`
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
// the ladder's in the order of steps, measured with the floor.
func Validate(steps []int, runs []*Report, opts stats.Options) (*Validation, error) {
	v := &Validation{Steps: steps}
	var xs, ys []float64
	var halfWidths []float64
	for ri, r := range runs {
		if len(r.Programs) != len(steps) || r.Floor == nil {
			return nil, fmt.Errorf("run %d: want %d ladder programs and the floor", ri+1, len(steps))
		}
		est := r.Settings.estimator()
		var run ValidationRun
		for i, p := range r.Programs {
			c := p.Results[0]
			if c.Stats == nil || c.Net == nil {
				return nil, fmt.Errorf("run %d, %s: too few samples", ri+1, p.Info.Name)
			}
			run.Estimates = append(run.Estimates, c.Stats.Estimates.Of(est))
			run.Net = append(run.Net, *c.Net)
			if steps[i] >= VisibleSteps {
				xs, ys = append(xs, float64(steps[i])), append(ys, c.Net.Point)
			}
			var d stats.Estimate
			if i > 0 {
				prev := r.Programs[i-1].Results[0].Samples
				n := min(len(prev), len(c.Samples))
				var err error
				if d, err = stats.PairedDifference(prev[:n], c.Samples[:n], est, opts); err != nil {
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
	v.Intercept, v.PerStep = stat.LinearRegression(xs, ys, nil, false)
	v.R2 = stat.RSquared(xs, ys, nil, v.Intercept, v.PerStep)
	for i := range xs {
		v.MaxResidual = max(v.MaxResidual, math.Abs(ys[i]-(v.Intercept+v.PerStep*xs[i])))
	}
	slices.Sort(halfWidths)
	if len(halfWidths) > 0 {
		v.Resolution = stats.Quantile(halfWidths, 0.5)
	}
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
		"one step being %.2f ns; samples are whole ns, so where a program's samples all read the same value "+
		"the interval shrinks to it and steps below the 1 ns quantum go unseen\n", v.Resolution, v.PerStep)
	spread := slices.Max(v.Spread)
	fmt.Fprintf(w, "run-to-run: estimates spread at most %.1f %% over %d runs\n", 100*spread, len(v.Runs))
	if len(v.Failures) == 0 {
		fmt.Fprintln(w, "validation passed: every program slower than the one before, linear, reproducible")
		return nil
	}
	for _, f := range v.Failures {
		fmt.Fprintln(w, "FAILED: "+f)
	}
	return nil
}

// WriteJSON writes the validation's figures as JSON.
func (v *Validation) WriteJSON(w io.Writer) error { return writeJSON(w, v) }
