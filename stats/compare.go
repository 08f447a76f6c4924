package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/gonum/stat"
)

// Verdict is the outcome of a comparison, in the words of the JSON report.
type Verdict string

// The verdicts, from the "after" build's point of view.
const (
	Improved    Verdict = "improved"
	Regressed   Verdict = "regressed"
	NoChange    Verdict = "no_change"    // not distinguishable at the significance level
	WithinNoise Verdict = "within_noise" // distinguishable, but smaller than the noise threshold or one quantum
)

// Sentence says the verdict as Criterion.rs does.
func (v Verdict) Sentence() string {
	switch v {
	case Improved:
		return "Performance has improved."
	case Regressed:
		return "Performance has regressed."
	case WithinNoise:
		return "Change within noise threshold."
	}
	return "No change in performance detected."
}

// The tests behind the p-value.
const (
	// PairedTest is used for samples taken interleaved, one of each build
	// per round: the per-round differences cancel drift shared by both.
	PairedTest = "paired sign-flip permutation test on per-round differences of the samples"
	// UnpairedTest is used for samples taken at different times.
	UnpairedTest = "Mann-Whitney U test"
)

// CompareOptions are the options of Compare.
type CompareOptions struct {
	Options
	// Significance is the p-value below which a change is distinguishable.
	Significance float64
	// NoiseThreshold is the relative change (0.02 = 2 %) that a change's
	// whole confidence interval must exceed to count as a regression or an
	// improvement.
	NoiseThreshold float64
	// Quantum is the resolution of a sample, in its unit (1 ns: the kernel
	// reports whole nanoseconds per run). A change is not reported unless
	// its interval excludes one quantum either way: two programs whose true
	// times differ by a hair can floor to neighbouring whole nanoseconds on
	// every sample, which is a step of the quantum, not a finding.
	Quantum float64
	// Paired says before[i] and after[i] were taken in the same round.
	Paired bool
}

// ErrCompare reports options or samples that Compare cannot use.
var ErrCompare = errors.New("cannot compare")

// Validate checks the options.
func (o CompareOptions) Validate() error {
	if err := o.Options.Validate(); err != nil {
		return err
	}
	if !(o.Significance > 0 && o.Significance < 1) {
		return fmt.Errorf("%w: significance %v is not in (0, 1)", ErrCompare, o.Significance)
	}
	if !(o.NoiseThreshold >= 0 && o.NoiseThreshold < 1) {
		return fmt.Errorf("%w: noise threshold %v is not in [0, 1)", ErrCompare, o.NoiseThreshold)
	}
	if o.Quantum < 0 {
		return fmt.Errorf("%w: negative quantum %v", ErrCompare, o.Quantum)
	}
	return nil
}

// Comparison says how "after" differs from "before".
type Comparison struct {
	// Mean and Median are relative changes, after/before - 1, with
	// bootstrap confidence intervals.
	Mean   Estimate `json:"mean_change"`
	Median Estimate `json:"median_change"`
	// Difference is after's mean minus before's, in the samples' unit.
	Difference Estimate `json:"mean_difference"`
	P          float64  `json:"p"`
	Test       string   `json:"test"`
	Verdict    Verdict  `json:"verdict"`
}

// Compare compares two samples of the same case.
func Compare(before, after []float64, opts CompareOptions) (Comparison, error) {
	if err := opts.Validate(); err != nil {
		return Comparison{}, err
	}
	for _, s := range [][]float64{before, after} {
		if _, err := prepare(s, opts.Options); err != nil {
			return Comparison{}, err
		}
	}
	if opts.Paired && len(before) != len(after) {
		return Comparison{}, fmt.Errorf("%w: paired samples of %d and %d", ErrCompare, len(before), len(after))
	}
	if stat.Mean(before, nil) <= 0 || Quantile(slices.Sorted(slices.Values(before)), 0.5) <= 0 {
		return Comparison{}, fmt.Errorf("%w: a relative change needs a positive baseline", ErrCompare)
	}

	var c Comparison
	if opts.Paired {
		c = bootstrapPaired(before, after, opts.Options)
		c.P = signFlipP(before, after, opts.Options)
		c.Test = PairedTest
	} else {
		c = bootstrapUnpaired(before, after, opts.Options)
		thresholds := benchmath.Thresholds{CompareAlpha: opts.Significance}
		c.P = benchmath.AssumeNothing.Compare(benchmath.NewSample(before, &thresholds), benchmath.NewSample(after, &thresholds)).P
		c.Test = UnpairedTest
	}
	c.Verdict = verdict(c, opts)
	return c, nil
}

func verdict(c Comparison, opts CompareOptions) Verdict {
	switch {
	case c.P >= opts.Significance:
		return NoChange
	case c.Mean.Lower > opts.NoiseThreshold && c.Difference.Lower > opts.Quantum:
		return Regressed
	case c.Mean.Upper < -opts.NoiseThreshold && c.Difference.Upper < -opts.Quantum:
		return Improved
	}
	return WithinNoise
}

// changes accumulates the bootstrap distributions of a comparison.
type changes struct{ mean, median, diff []float64 }

func newChanges(n int) changes {
	return changes{make([]float64, n), make([]float64, n), make([]float64, n)}
}

func (ch changes) add(k int, before, after []float64) {
	mb, ma := stat.Mean(before, nil), stat.Mean(after, nil)
	slices.Sort(before)
	slices.Sort(after)
	ch.mean[k] = ma/mb - 1
	ch.median[k] = median(after)/median(before) - 1
	ch.diff[k] = ma - mb
}

func (ch changes) interval(before, after []float64, c float64) Comparison {
	b, a := slices.Clone(before), slices.Clone(after)
	point := newChanges(1)
	point.add(0, b, a)
	return Comparison{
		Mean:       percentileInterval(point.mean[0], ch.mean, c),
		Median:     percentileInterval(point.median[0], ch.median, c),
		Difference: percentileInterval(point.diff[0], ch.diff, c),
	}
}

// bootstrapPaired resamples rounds: a drawn round brings both its samples,
// so that what the two builds shared stays shared.
func bootstrapPaired(before, after []float64, opts Options) Comparison {
	n := len(before)
	r := rand.New(rand.NewPCG(opts.Seed, pcgStream))
	ch := newChanges(opts.Resamples)
	b, a := make([]float64, n), make([]float64, n)
	for k := range opts.Resamples {
		for i := range n {
			j := r.IntN(n)
			b[i], a[i] = before[j], after[j]
		}
		ch.add(k, b, a)
	}
	return ch.interval(before, after, opts.Confidence)
}

// bootstrapUnpaired resamples each side on its own.
func bootstrapUnpaired(before, after []float64, opts Options) Comparison {
	r := rand.New(rand.NewPCG(opts.Seed, pcgStream))
	ch := newChanges(opts.Resamples)
	b, a := make([]float64, len(before)), make([]float64, len(after))
	for k := range opts.Resamples {
		for i := range b {
			b[i] = before[r.IntN(len(before))]
		}
		for i := range a {
			a[i] = after[r.IntN(len(after))]
		}
		ch.add(k, b, a)
	}
	return ch.interval(before, after, opts.Confidence)
}

// signFlipP is the two-sided p-value of the paired permutation test: under
// the null hypothesis that the builds do not differ, each round's
// difference is as likely to have either sign, so the observed mean
// difference is compared with the means of randomly sign-flipped ones.
func signFlipP(before, after []float64, opts Options) float64 {
	d := make([]float64, len(before))
	for i := range d {
		d[i] = after[i] - before[i]
	}
	observed := math.Abs(stat.Mean(d, nil))
	// Rounding noise must not make an identical sum look more extreme.
	const slack = 1e-9
	r := rand.New(rand.NewPCG(opts.Seed^0x5eed, pcgStream))
	extreme := 0
	for range opts.Resamples {
		sum := 0.0
		for _, x := range d {
			if r.Uint64()&1 == 1 {
				sum += x
			} else {
				sum -= x
			}
		}
		if math.Abs(sum/float64(len(d))) >= observed-slack {
			extreme++
		}
	}
	// Counting the observed arrangement itself keeps p above zero.
	return float64(extreme+1) / float64(opts.Resamples+1)
}
