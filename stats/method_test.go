package stats

import (
	"math/rand/v2"
	"testing"
)

// An estimator's method answers as the functions it stands for: the
// kernel's figures by their bootstrap, a slope from its fits' resamples
// when they drew alike and from the calls otherwise, and both find a
// change that is there.
func TestMethod(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	opts := fitOptions()
	before, after := linearCalls(r, 400, 10, 500, 900, 50), linearCalls(r, 400, 10, 500, 900, 55)
	after.Runs = before.Runs // the same rounds
	fb, err := FitLinear(before, opts)
	if err != nil {
		t.Fatal(err)
	}
	fa, err := FitLinear(after, opts)
	if err != nil {
		t.Fatal(err)
	}
	perRun := func(tm Timings) []float64 {
		s := make([]float64, len(tm.Runs))
		for i := range s {
			s[i] = tm.Total[i] / tm.Runs[i]
		}
		return s
	}
	b := Side{Samples: perRun(before), Timings: []Timings{before}, Fits: []*Fit{&fb}}
	a := Side{Samples: perRun(after), Timings: []Timings{after}, Fits: []*Fit{&fa}}

	want, _ := fa.Minus(&fb, Slope, opts.Confidence)
	if got, err := Slope.Method().Difference(b, a, opts.Options); err != nil || got != want {
		t.Errorf("slope difference from the fits: %+v, %v; want %+v", got, err, want)
	}
	refit, err := comparePairedFits(before, after, false, opts)
	if err != nil {
		t.Fatal(err)
	}
	noFits := func(s Side) Side { s.Fits = nil; return s }
	if got, err := Slope.Method().Difference(noFits(b), noFits(a), opts.Options); err != nil || got != refit.Difference {
		t.Errorf("slope difference from the calls: %+v, %v; want %+v", got, err, refit.Difference)
	}
	if d, _ := Slope.Method().Difference(b, a, opts.Options); !(d.Lower > 3 && d.Upper < 7) {
		t.Errorf("a 5 ns change read %+v", d)
	}

	co := CompareOptions{Options: opts.Options, Significance: 0.05, NoiseThreshold: 0.02, Quantum: 1, Paired: true}
	c, fc, err := Slope.Method().Compare(b, a, co)
	if err != nil || c.Estimator != Slope || c.Verdict != Regressed || fc.Change.Point <= 0 {
		t.Errorf("slope comparison: %+v, %+v, %v", c, fc, err)
	}
	co.Estimator = Low
	want2, err := Compare(b.Samples, a.Samples, co)
	if err != nil {
		t.Fatal(err)
	}
	co.Estimator = ""
	got2, _, err := Low.Method().Compare(b, a, co)
	if err != nil || got2 != want2 {
		t.Errorf("low comparison %+v, %v; want %+v", got2, err, want2)
	}
}
