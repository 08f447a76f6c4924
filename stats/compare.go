package stats

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"golang.org/x/perf/benchmath"
	"gonum.org/v1/gonum/stat"
)

// Verdict is the outcome of a comparison, by a code (the one saved
// results hold).
type Verdict string

// The verdicts, from the "after" build's point of view.
const (
	Improved    Verdict = "improved"
	Regressed   Verdict = "regressed"
	NoChange    Verdict = "no_change"    // not distinguishable at the significance level
	WithinNoise Verdict = "within_noise" // distinguishable, but smaller than the noise threshold or one quantum
)

// Test names the test behind a comparison's p-value by a code; package
// results says each in words.
type Test string

// The tests behind the p-value.
const (
	// PairedTest is used for samples taken interleaved, one of each build
	// per round: the per-round differences cancel drift shared by both.
	PairedTest Test = "paired_sign_flip"
	// UnpairedTest is used for samples taken at different times.
	UnpairedTest Test = "mann_whitney_u"
	// BootstrapTest is used for every estimator but the mean.
	BootstrapTest Test = "bootstrap"
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
	// ThresholdChosen says NoiseThreshold is the tool's default, not the
	// caller's: a comparison of separate runs over their loads, which
	// judges by the runs' own intervals, then takes a finer one
	// (AcrossLoadsNoiseThreshold).
	ThresholdChosen bool
	// Estimator is the statistic whose change decides the verdict; empty
	// means Mean.
	Estimator Estimator
}

func (o CompareOptions) estimator() Estimator {
	if o.Estimator == "" {
		return Mean
	}
	return o.Estimator
}

// ErrCompare reports options or samples that Compare cannot use.
var ErrCompare = badinput.New("cannot compare")

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
	Mean   Estimate
	Median Estimate
	// Change is the relative change of the Estimator, which decides the
	// verdict; Difference is its absolute change, after - before, in the
	// samples' unit.
	Estimator  Estimator
	Change     Estimate
	Difference Estimate
	P          float64
	Test       Test
	Verdict    Verdict
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
	if _, err := ParseEstimator(string(opts.estimator())); err != nil {
		return Comparison{}, fmt.Errorf("%w: %w", ErrCompare, err)
	}
	if opts.Paired && len(before) != len(after) {
		return Comparison{}, fmt.Errorf("%w: paired samples of %d and %d", ErrCompare, len(before), len(after))
	}
	est := opts.estimator()
	sorted := slices.Sorted(slices.Values(before))
	var low hdWeights
	if est == Low {
		low = newHDWeights(len(sorted), opts.lowQuantile())
	}
	// The chosen estimator's too: a minimum of 0 made the change +Inf.
	if stat.Mean(before, nil) <= 0 || Quantile(sorted, 0.5) <= 0 || est.point(sorted, low) <= 0 {
		return Comparison{}, fmt.Errorf("%w: a relative change needs a positive baseline", ErrCompare)
	}

	var c Comparison
	var ch changes
	if opts.Paired {
		c, ch = bootstrapPaired(before, after, opts.Options, est)
	} else {
		c, ch = bootstrapUnpaired(before, after, opts.Options, est)
	}
	switch {
	case est != Mean:
		// Rank and sign tests speak of the whole distribution or of the
		// mean; the bootstrap speaks of the statistic itself.
		c.P, c.Test = bootstrapP(ch.change), BootstrapTest
	case opts.Paired:
		c.P, c.Test = signFlipP(before, after, opts.Options), PairedTest
	default:
		thresholds := benchmath.Thresholds{CompareAlpha: opts.Significance}
		// NewSample sorts its values in place: give it copies.
		c.P = benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(before), &thresholds), benchmath.NewSample(slices.Clone(after), &thresholds)).P
		c.Test = UnpairedTest
	}
	c.Verdict = Judge(c.P, c.Change, c.Difference, opts)
	return c, nil
}

// bootstrapP is the two-sided bootstrap p-value of a change: twice the
// share of the bootstrap distribution on the far side of zero.
func bootstrapP(dist []float64) float64 {
	below, above := 0, 0
	for _, x := range dist {
		if x <= 0 {
			below++
		}
		if x >= 0 {
			above++
		}
	}
	// Counting the observed arrangement itself keeps p above zero.
	p := 2 * float64(min(below, above)+1) / float64(len(dist)+1)
	return min(p, 1)
}

// Judge is the verdict on a comparison's p, relative change and
// difference under opts.
func Judge(p float64, change, difference Estimate, opts CompareOptions) Verdict {
	switch {
	case p >= opts.Significance:
		return NoChange
	case change.Lower > opts.NoiseThreshold && difference.Lower > opts.Quantum:
		return Regressed
	case change.Upper < -opts.NoiseThreshold && difference.Upper < -opts.Quantum:
		return Improved
	}
	return WithinNoise
}

// changes accumulates the bootstrap distributions of a comparison.
type changes struct {
	est                        Estimator
	lowBefore, lowAfter        hdWeights // Harrell–Davis weights per side
	mean, median, change, diff []float64
}

func newChanges(n int, est Estimator, nBefore, nAfter int, opts Options) changes {
	ch := changes{est: est}
	if est == Low {
		ch.lowBefore = newHDWeights(nBefore, opts.lowQuantile())
		ch.lowAfter = ch.lowBefore
		if nAfter != nBefore {
			ch.lowAfter = newHDWeights(nAfter, opts.lowQuantile())
		}
	}
	return ch.withRoom(n)
}

// withRoom returns changes of the same estimator and weights, with room
// for n resamples.
func (ch changes) withRoom(n int) changes {
	ch.mean, ch.median, ch.change, ch.diff = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	return ch
}

// add records resample k; it sorts before and after in place.
func (ch changes) add(k int, before, after []float64) {
	slices.Sort(before)
	slices.Sort(after)
	ch.addSorted(k, before, after)
}

// addSorted records resample k of sorted samples.
func (ch changes) addSorted(k int, before, after []float64) {
	mb, ma := stat.Mean(before, nil), stat.Mean(after, nil)
	eb, ea := mb, ma
	if ch.est != Mean {
		eb, ea = ch.est.pointSorted(before, ch.lowBefore), ch.est.pointSorted(after, ch.lowAfter)
	}
	ch.record(k, mb, ma, median(before), median(after), eb, ea)
}

// addTallied records resample k of tallied samples.
func (ch changes) addTallied(k int, before, after tally) {
	mb, ma := before.mean(), after.mean()
	eb, ea := mb, ma
	if ch.est != Mean {
		eb, ea = ch.est.pointTallied(before, ch.lowBefore), ch.est.pointTallied(after, ch.lowAfter)
	}
	ch.record(k, mb, ma, before.quantile(0.5), after.quantile(0.5), eb, ea)
}

// record stores resample k's changes from its means, medians and
// estimates before and after.
func (ch changes) record(k int, meanBefore, meanAfter, medianBefore, medianAfter, estBefore, estAfter float64) {
	ch.mean[k] = meanAfter/meanBefore - 1
	ch.median[k] = medianAfter/medianBefore - 1
	ch.change[k] = estAfter/estBefore - 1
	ch.diff[k] = estAfter - estBefore
}

func (ch changes) interval(before, after []float64, opts Options) Comparison {
	point := ch.withRoom(1)
	point.add(0, slices.Clone(before), slices.Clone(after))
	c := opts.Confidence
	return Comparison{
		Mean:       percentileInterval(point.mean[0], ch.mean, c),
		Median:     percentileInterval(point.median[0], ch.median, c),
		Estimator:  ch.est,
		Change:     percentileInterval(point.change[0], ch.change, c),
		Difference: percentileInterval(point.diff[0], ch.diff, c),
	}
}

// bootstrapPaired resamples rounds: a drawn round brings both its samples,
// so that what the two builds shared stays shared.
func bootstrapPaired(before, after []float64, opts Options, est Estimator) (Comparison, changes) {
	pt := tallyPairs(before, after)
	how := chooseResampling(len(before), pt.sizes, len(pt.before.values)+len(pt.after.values))
	return bootstrapPairedBy(before, after, pt, opts, est, how)
}

// bootstrapPairedBy is bootstrapPaired resampling as how says; pt is the
// tally of the pairs. Tallied, a group is a distinct pair of values:
// rounds that took the same two values are interchangeable.
func bootstrapPairedBy(before, after []float64, pt pairTally, opts Options, est Estimator, how resampling) (Comparison, changes) {
	ch := newChanges(opts.Resamples, est, len(before), len(after), opts)
	if how.expand {
		ch.resamplePairsExpanded(before, after, opts)
	} else {
		ch.resamplePairsTallied(pt, opts, how.binomials)
	}
	return ch.interval(before, after, opts), ch
}

// resamplePairsExpanded draws each resample as a count per round and
// writes it out in each side's sorted order, the counting sort Bootstrap
// uses, so that it costs O(n) and not two sorts.
func (ch changes) resamplePairsExpanded(before, after []float64, opts Options) {
	n := len(before)
	draws := newResampler(identity(n), nil, 0, opts.Seed)
	orderB, orderA := sortedOrder(before), sortedOrder(after)
	sortedB, sortedA := gather(before, orderB), gather(after, orderA)
	counts, countsB, countsA := make([]int, n), make([]int, n), make([]int, n)
	b, a := make([]float64, n+unrolled), make([]float64, n+unrolled)
	for k := range opts.Resamples {
		draws.draw(counts)
		for i, j := range orderB {
			countsB[i] = counts[j]
		}
		for i, j := range orderA {
			countsA[i] = counts[j]
		}
		expand(b, sortedB, countsB)
		expand(a, sortedA, countsA)
		ch.addSorted(k, b[:n], a[:n])
	}
}

// resamplePairsTallied draws each resample as a count per distinct pair
// and adds them up into counts per value on either side.
func (ch changes) resamplePairsTallied(pt pairTally, opts Options, binomials int) {
	draws := newResampler(pt.pairOf, pt.sizes, binomials, opts.Seed)
	counts := make([]int, len(pt.sizes))
	countsB, countsA := make([]int, len(pt.before.values)), make([]int, len(pt.after.values))
	for k := range opts.Resamples {
		draws.draw(counts)
		clear(countsB)
		clear(countsA)
		for p, c := range counts {
			countsB[pt.beforeOf[p]] += c
			countsA[pt.afterOf[p]] += c
		}
		ch.addTallied(k, pt.before.withCounts(countsB), pt.after.withCounts(countsA))
	}
}

// pairTally groups the rounds of paired samples by their pair of values.
type pairTally struct {
	before, after tally // each side's values and counts
	sizes         []int // rounds of each distinct pair
	// beforeOf and afterOf give each distinct pair's value on either side,
	// as an index into that side's tally.
	beforeOf, afterOf []int32
	pairOf            []int32 // each round's distinct pair
}

func tallyPairs(before, after []float64) pairTally {
	pt := pairTally{
		before: tallySorted(slices.Sorted(slices.Values(before))),
		after:  tallySorted(slices.Sorted(slices.Values(after))),
		pairOf: make([]int32, len(before)),
	}
	seen := map[[2]int32]int32{}
	for i := range before {
		key := [2]int32{pt.before.groupOf(before[i]), pt.after.groupOf(after[i])}
		p, ok := seen[key]
		if !ok {
			p = int32(len(pt.sizes))
			seen[key] = p
			pt.sizes = append(pt.sizes, 0)
			pt.beforeOf, pt.afterOf = append(pt.beforeOf, key[0]), append(pt.afterOf, key[1])
		}
		pt.sizes[p]++
		pt.pairOf[i] = p
	}
	return pt
}

// sortedOrder returns the indices of x in ascending order of their values.
func sortedOrder(x []float64) []int {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(x[i], x[j]) })
	return order
}

// gather returns x's values at the indices, in that order.
func gather(x []float64, indices []int) []float64 {
	out := make([]float64, len(indices))
	for i, j := range indices {
		out[i] = x[j]
	}
	return out
}

// bootstrapUnpaired resamples each side on its own, each from a stream of
// its own, as counts over its distinct values.
func bootstrapUnpaired(before, after []float64, opts Options, est Estimator) (Comparison, changes) {
	ch := newChanges(opts.Resamples, est, len(before), len(after), opts)
	tb := tallySorted(slices.Sorted(slices.Values(before)))
	ta := tallySorted(slices.Sorted(slices.Values(after)))
	// Each side is tallied, however few its ties: that costs at most about
	// twice a resample written out, and spares sorting a drawn slice.
	howB := chooseResampling(tb.n, tb.counts, len(tb.counts))
	howA := chooseResampling(ta.n, ta.counts, len(ta.counts))
	drawB, drawA := tb.resampler(opts.Seed, howB.binomials), ta.resampler(opts.Seed^afterSeed, howA.binomials)
	cb, ca := make([]int, len(tb.counts)), make([]int, len(ta.counts))
	for k := range opts.Resamples {
		drawB.draw(cb)
		drawA.draw(ca)
		ch.addTallied(k, tb.withCounts(cb), ta.withCounts(ca))
	}
	return ch.interval(before, after, opts), ch
}

// afterSeed sets the after side's stream apart from the before side's.
const afterSeed = 0x6166746572 // "after"

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
