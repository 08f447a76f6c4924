package stats

import "fmt"

// A Side is one build's samples of one case, as a comparison takes them:
// the kernel's figures per run, and with linear sampling each placement's
// calls and, when made of the same rounds, its fit.
type Side struct {
	Samples []float64 // the kernel's figures per run, of the first placement
	Timings []Timings // each placement's calls, the first first
	Fits    []*Fit    // each placement's fit; nil when not made alike
}

// A Method is how an estimator judges sides: the kernel's figures by
// their bootstrap, a slope by the fits of its placements. The caller picks
// it with the estimator (Estimator.Method), as benchmath's callers pick an
// assumption, and asks the same two questions of either.
type Method interface {
	// Compare judges the change from before to after; the FitChange is
	// the slopes', empty for the kernel's figures.
	Compare(before, after Side, opts CompareOptions) (Comparison, FitChange, error)
	// Difference is after's estimate less before's, paired round by
	// round: both sides were sampled in the same rounds.
	Difference(before, after Side, opts Options) (Estimate, error)
}

// Method returns e's way of judging sides.
func (e Estimator) Method() Method {
	if e.Fitted() {
		return slopes{ols: e == OLS}
	}
	return figures{e}
}

// figures judges the kernel's figures by e.
type figures struct{ e Estimator }

func (f figures) Compare(before, after Side, opts CompareOptions) (Comparison, FitChange, error) {
	opts.Estimator = f.e
	c, err := Compare(before.Samples, after.Samples, opts)
	return c, FitChange{}, err
}

func (f figures) Difference(before, after Side, opts Options) (Estimate, error) {
	return PairedDifference(before.Samples, after.Samples, f.e, opts)
}

// slopes judges a slope, robust or (ols) least squares.
type slopes struct{ ols bool }

func (s slopes) estimator() Estimator {
	if s.ols {
		return OLS
	}
	return Slope
}

// Compare takes the fits' own resamples when every placement's fit drew
// alike (the same rounds), else fits the calls anew.
func (s slopes) Compare(before, after Side, opts CompareOptions) (Comparison, FitChange, error) {
	opts.Estimator = s.estimator()
	if len(before.Fits) > 0 && len(after.Fits) > 0 {
		c, fc, ok, err := compareLinearFitted(before.Fits, after.Fits, before.Samples, after.Samples, opts)
		if ok || err != nil {
			return c, fc, err
		}
	}
	return compareLinear(before.Timings, after.Timings, before.Samples, after.Samples, opts)
}

// Difference takes the first placements' fits' own resamples when they
// drew alike, else fits their calls anew, pairing whole rounds.
func (s slopes) Difference(before, after Side, opts Options) (Estimate, error) {
	if len(before.Fits) > 0 && len(after.Fits) > 0 && before.Fits[0] != nil && after.Fits[0] != nil {
		if d, ok := after.Fits[0].Minus(before.Fits[0], s.estimator(), opts.Confidence); ok {
			return d, nil
		}
	}
	if len(before.Timings) == 0 || len(after.Timings) == 0 {
		return Estimate{}, fmt.Errorf("%w: a slope needs the calls' timings", ErrTimings)
	}
	fc, err := compareFits(before.Timings[0], after.Timings[0], s.ols, true, FitOptions{Options: opts})
	return fc.Difference, err
}
