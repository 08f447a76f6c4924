package ladder

import (
	"fmt"
	"math"
	"slices"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
	"gonum.org/v1/gonum/stat"
)

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
func Validate(steps []int, fineBase int, fineSteps []int, runs []*report.Report, opts stats.Options) (*report.Validation, error) {
	v := &report.Validation{Steps: steps, VisibleSteps: VisibleSteps, MaxSpread: MaxSpread, MinR2: MinR2}
	for _, s := range steps {
		v.Names = append(v.Names, bpf.LadderProgram(s))
	}
	var xs, ys []float64
	var halfWidths []float64
	for ri, r := range runs {
		if len(r.Programs) != len(steps)+len(fineSteps) || r.Floor == nil {
			return nil, fmt.Errorf("run %d: want %d ladder programs, %d fine rungs and the floor", ri+1, len(steps), len(fineSteps))
		}
		v.TimerResolution = max(v.TimerResolution, r.Environment.Resolution)
		est := estimatorOf(r)
		var run report.ValidationRun
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
				if d, err = report.PairedDifference(r.Programs[i-1].Results[0], c, est, opts); err != nil {
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
			v.Failures = append(v.Failures, fineFailures(fine)...)
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
			v.Failures = append(v.Failures, fmt.Sprintf("%s: estimates spread %.1f %% over the runs, above %g %%",
				v.Names[i], 100*(hi/lo-1), 100*MaxSpread))
		}
	}
	if v.R2 < MinR2 {
		v.Failures = append(v.Failures, fmt.Sprintf("net cost is not linear in the steps: R² %.4f < %g", v.R2, MinR2))
	}
	return v, nil
}

// validateFine measures the fine rungs against their base, run by run.
func validateFine(steps []int, base int, fineSteps []int, runs []*report.Report, opts stats.Options, timerResolution float64) (*report.FineValidation, error) {
	bi := slices.Index(steps, base)
	if bi < 0 {
		return nil, fmt.Errorf("the fine rungs' base, %s, is not on the ladder", bpf.LadderProgram(base))
	}
	f := &report.FineValidation{Base: base, BaseName: bpf.LadderProgram(base), Steps: fineSteps, MaxError: MaxFineError,
		Checked: timerResolution > 0 && timerResolution < 1}
	for _, s := range fineSteps {
		f.Names = append(f.Names, bpf.FineProgram(s))
	}
	var xs, ys, halfWidths []float64
	for ri, r := range runs {
		est := estimatorOf(r)
		base := r.Programs[bi].Results[0]
		var diffs []stats.Estimate
		prev := 0.0
		for i, fs := range fineSteps {
			rung := r.Programs[len(steps)+i]
			d, err := report.PairedDifference(base, rung.Results[0], est, opts)
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
func fineFailures(f *report.FineValidation) []string {
	var out []string
	for ri, diffs := range f.Differences {
		prev := 0.0
		for i, d := range diffs {
			expected := f.PerStep * float64(f.Steps[i])
			switch {
			case d.Point <= prev:
				out = append(out, fmt.Sprintf("run %d: %s is not slower than the rung before (%+.2f ns against %+.2f)", ri+1, f.Names[i], d.Point, prev))
			case d.Lower > (1+MaxFineError)*expected || d.Upper < (1-MaxFineError)*expected:
				// Off by more than the band with the interval's confidence:
				// a point estimate alone fails on a noisy moment.
				out = append(out, fmt.Sprintf("run %d: %s costs %+.2f [%+.2f %+.2f] ns, more than %g %% off %d fine steps of %.3f ns",
					ri+1, f.Names[i], d.Point, d.Lower, d.Upper, 100*MaxFineError, f.Steps[i], f.PerStep))
			}
			prev = d.Point
		}
	}
	return out
}

// medianOf is the median of xs, which it sorts; 0 for none.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return stats.Quantile(xs, 0.5)
}

// estimatorOf is the estimator a run's report was made for.
func estimatorOf(r *report.Report) stats.Estimator {
	if r.Settings.Estimator == "" {
		return stats.DefaultEstimator
	}
	return r.Settings.Estimator
}

// FineSteps are the fine rungs measured: FineSteps[0] is the base ladder
// program again, measured once as such.
var FineSteps = bpf.FineSteps[1:]

// Programs are what a validation run measures: the ladder programs, in the
// order of bpf.LadderSteps, then the fine rungs, in the order of FineSteps,
// as Validate expects each run's report.
func Programs() []testrun.Program {
	object := testrun.Object{Name: "ladder (bundled)", ELF: bpf.Ladder()}
	var progs []testrun.Program
	for _, steps := range bpf.LadderSteps {
		progs = append(progs, testrun.Program{Label: fmt.Sprint(steps), Object: object, Program: bpf.LadderProgram(steps)})
	}
	for _, steps := range FineSteps {
		progs = append(progs, testrun.Program{Label: fmt.Sprintf("fine %d", steps), Object: object, Program: bpf.FineProgram(steps)})
	}
	return progs
}

// Cases is the one packet case a validation measures: the programs ignore
// the packet, and one case keeps a run short.
func Cases() ([]packets.Case, error) { return packets.Select([]string{packets.None}) }
