package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// pairedSample draws n pairs sharing part of their noise, as rounds of two
// builds do: whole ns around 40 and 42 with that spread, or continuous with
// a spread of 3 when spread is 0.
func pairedSample(n int, spread float64, seed uint64) (before, after []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	before, after = make([]float64, n), make([]float64, n)
	sd, round := spread, math.Floor
	if spread == 0 {
		sd, round = 3, func(x float64) float64 { return x }
	}
	for i := range n {
		shared := r.NormFloat64()
		before[i] = round(40 + sd*(0.7*shared+0.7*r.NormFloat64()))
		after[i] = round(42 + sd*(0.7*shared+0.7*r.NormFloat64()))
	}
	return before, after
}

// The resamplings the tests force: written out, tallied and drawn all by
// index, tallied and drawn all by binomials but the last group.
var (
	expandEach = resampling{expand: true}
	byIndex    = resampling{}
)

func allBinomials(groups int) resampling { return resampling{binomials: groups - 1} }

// randomTally draws k distinct values, negative and positive, whole or
// fractional, with counts of up to 6, some of them 0 as in a resample.
func randomTally(r *rand.Rand, k int) tally {
	t := tally{values: make([]float64, k), counts: make([]int, k)}
	whole := r.IntN(2) == 0
	v := -50 + 100*r.Float64()
	for j := range k {
		step := 0.01 + 3*r.Float64()
		if whole {
			v, step = math.Floor(v), float64(1+r.IntN(3))
		}
		t.values[j] = v
		v += step
		t.counts[j] = r.IntN(7)
		t.n += t.counts[j]
	}
	if t.n == 0 {
		t.counts[r.IntN(k)] = 1
		t.n = 1
	}
	return t
}

// expanded writes each value of t out as often as it occurs: sorted.
func (t tally) expanded() []float64 {
	var x []float64
	for j, c := range t.counts {
		for range c {
			x = append(x, t.values[j])
		}
	}
	return x
}

// The statistics of a tally are those of its sample written out: the
// order statistics to the bit, sums to rounding.
func TestTallyStatsMatchSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	odd, even := 0, 0
	for _, k := range []int{1, 2, 3, 5, 30, 200} {
		for range 300 {
			tl := randomTally(r, k)
			x := tl.expanded()
			n := len(x)
			if n%2 == 1 {
				odd++
			} else {
				even++
			}
			scale := max(math.Abs(x[0]), math.Abs(x[n-1]), 1)
			near := func(name string, got, want float64) {
				t.Helper()
				if math.Abs(got-want) > 1e-12*scale {
					t.Fatalf("k %d, n %d, %s = %v, want %v (values %v, counts %v)", k, n, name, got, want, tl.values, tl.counts)
				}
			}
			exact := func(name string, got, want float64) {
				t.Helper()
				if got != want {
					t.Fatalf("k %d, n %d, %s = %v, want exactly %v (values %v, counts %v)", k, n, name, got, want, tl.values, tl.counts)
				}
			}
			mean, sd := tl.meanStdDev()
			wantMean, wantSD := stat.MeanStdDev(x, nil)
			near("mean", mean, wantMean)
			near("mean()", tl.mean(), wantMean)
			if n > 1 {
				near("std dev", sd, wantSD)
			}
			for _, p := range []float64{0, 0.02, 0.25, 0.5, 0.9, 1} {
				exact(fmt.Sprintf("quantile(%v)", p), tl.quantile(p), Quantile(x, p))
			}
			med := median(x)
			exact("mad", tl.mad(med), mad(x, med))
			exact("smallest", tl.smallest(), x[0])
			for _, p := range []float64{0.02, 0.1, 0.5} {
				w := newHDWeights(n, p)
				full := weightedSum(x, harrellDavisWeights(n, p))
				exact(fmt.Sprintf("hdWeights.weightedSum(%v)", p), w.weightedSum(x), full)
				near(fmt.Sprintf("weightedSum(%v)", p), tl.weightedSum(w), full)
			}
		}
	}
	if odd == 0 || even == 0 {
		t.Errorf("%d odd and %d even sample sizes, want both", odd, even)
	}
}

// A low quantile's weights run into a long stretch of exact zeros before
// the last; hdWeights skips it. Both forms of the sum skip it for a tally
// of as many groups as samples too.
func TestHDWeightsSkipZeros(t *testing.T) {
	w := newHDWeights(2000, DefaultLowQuantile)
	if len(w.head) > 200 || w.last == 0 {
		t.Errorf("head of %d weights, last %v: want a short head and a stray last weight", len(w.head), w.last)
	}
	all := harrellDavisWeights(2000, DefaultLowQuantile)
	for i, x := range all[len(w.head) : 2000-1] {
		if x != 0 {
			t.Fatalf("weight %d is %v inside the skipped run", len(w.head)+i, x)
		}
	}
	x, _ := pairedSample(2000, 0, 3)
	slices.Sort(x)
	x[len(x)-1] = 1e18 // the last weight must still count
	want := weightedSum(x, all)
	if got := w.weightedSum(x); got != want {
		t.Errorf("hdWeights.weightedSum = %v, want %v", got, want)
	}
	if got := tallySorted(x).weightedSum(w); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("tally.weightedSum = %v, want %v", got, want)
	}
}

// Drawing by index maps the very indices a written-out resample draws to
// their groups, so with the same seed the two give the same statistics,
// resample by resample.
func TestTalliedResamplesMatchExpanded(t *testing.T) {
	opts := DefaultOptions()
	opts.Resamples = 300
	for _, n := range []int{301, 300} {
		x, _ := pairedSample(n, 2, 5)
		slices.Sort(x)
		low := newHDWeights(n, opts.lowQuantile())
		want := resampleExpanded(x, low, opts)
		got := resampleTallied(tallySorted(x), low, opts, byIndex)
		for k := range want {
			g, w := got[k], want[k]
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"mean", g.mean, w.mean}, {"std dev", g.stdDev, w.stdDev}, {"median", g.median, w.median},
				{"mad", g.mad, w.mad}, {"low", g.low, w.low}, {"min", g.min, w.min},
			} {
				if math.Abs(f.got-f.want) > 1e-12*math.Abs(f.want) {
					t.Fatalf("n %d, resample %d: %s %v, written out %v", n, k, f.name, f.got, f.want)
				}
			}
		}
	}
	before, after := pairedSample(400, 2, 6)
	for _, e := range Estimators() {
		pt := tallyPairs(before, after)
		_, want := bootstrapPairedBy(before, after, pt, opts, e, expandEach)
		_, got := bootstrapPairedBy(before, after, pt, opts, e, byIndex)
		for name, d := range map[string][2][]float64{
			"mean": {got.mean, want.mean}, "median": {got.median, want.median},
			"change": {got.change, want.change}, "difference": {got.diff, want.diff},
		} {
			for k := range d[0] {
				if math.Abs(d[0][k]-d[1][k]) > 1e-12*max(math.Abs(d[1][k]), 1) {
					t.Fatalf("%s paired, resample %d: %s %v, written out %v", e, k, name, d[0][k], d[1][k])
				}
			}
		}
	}
}

// Resampled counts are multinomial: they sum to n, and each group's count
// has mean np and variance np(1-p), two groups' covariance -np_ip_j. Five
// standard errors is far from what a wrong share of the draws gives.
func TestResamplerMoments(t *testing.T) {
	const draws = 20000
	for _, sizes := range [][]int{
		{1, 2, 7, 40, 300, 1650}, // tiny shares, then binomials of large n
		{3, 5, 10, 12},           // binomials of n < 25
		{17},
	} {
		n := 0
		var groupOf []int32
		for j, s := range sizes {
			n += s
			for range s {
				groupOf = append(groupOf, int32(j))
			}
		}
		for _, binomials := range []int{0, 2, len(sizes) - 1} {
			if binomials < 0 || binomials >= len(sizes) {
				continue
			}
			m := newResampler(groupOf, sizes, binomials, 99)
			k := len(sizes)
			sum, sumSq := make([]float64, k), make([]float64, k)
			cross := 0.0 // of the last two groups
			counts := make([]int, k)
			for range draws {
				m.draw(counts)
				total := 0
				for j, c := range counts {
					total += c
					sum[j] += float64(c)
					sumSq[j] += float64(c * c)
				}
				if total != n {
					t.Fatalf("sizes %v: counts %v sum to %d, want %d", sizes, counts, total, n)
				}
				if k > 1 {
					cross += float64(counts[k-2] * counts[k-1])
				}
			}
			for j, s := range sizes {
				p := float64(s) / float64(n)
				mean, variance := float64(n)*p, float64(n)*p*(1-p)
				gotMean := sum[j] / draws
				gotVar := sumSq[j]/draws - gotMean*gotMean
				if k == 1 {
					if gotMean != float64(n) || gotVar != 0 {
						t.Errorf("one group of %d: mean %v, variance %v", n, gotMean, gotVar)
					}
					continue
				}
				kurtosis := 3 + (1-6*p*(1-p))/variance
				if se := math.Sqrt(variance / draws); math.Abs(gotMean-mean) > 5*se {
					t.Errorf("sizes %v, %d binomials: group %d mean %v, want %v ± %v", sizes, binomials, j, gotMean, mean, 5*se)
				}
				if se := variance * math.Sqrt((kurtosis-1)/draws); math.Abs(gotVar-variance) > 5*se {
					t.Errorf("sizes %v, %d binomials: group %d variance %v, want %v ± %v", sizes, binomials, j, gotVar, variance, 5*se)
				}
			}
			if k > 1 {
				pi, pj := float64(sizes[k-2])/float64(n), float64(sizes[k-1])/float64(n)
				mi, mj := sum[k-2]/draws, sum[k-1]/draws
				cov, want := cross/draws-mi*mj, -float64(n)*pi*pj
				vi, vj := float64(n)*pi*(1-pi), float64(n)*pj*(1-pj)
				if se := math.Sqrt((vi*vj + want*want) / draws); math.Abs(cov-want) > 5*se {
					t.Errorf("sizes %v, %d binomials: covariance of the last two %v, want %v ± %v", sizes, binomials, cov, want, 5*se)
				}
			}
		}
	}
}

// Indices are uniform, also where a plain multiply would favour some: for
// n = 3·2²⁹, floor(x·n/2³²) hits indices ≡ 2 (mod 3) a quarter of the time
// rather than a third.
func TestIndexSourceUniform(t *testing.T) {
	for _, tt := range []struct {
		n, buckets int
	}{
		{3, 3}, {7, 7}, {2000, 2000}, {3 << 29, 3},
	} {
		s := newIndexSource(rand.NewPCG(7, 7), tt.n)
		draws := max(200*tt.buckets, 30000)
		hits := make([]int, tt.buckets)
		for range draws / 2 {
			bits := s.pcg.Uint64()
			for _, b := range []uint32{uint32(bits), uint32(bits >> 32)} {
				i := int(s.scale(b))
				if i < 0 || i >= tt.n {
					t.Fatalf("n %d: index %d", tt.n, i)
				}
				hits[i%tt.buckets]++
			}
		}
		chi2, expected := 0.0, float64(draws)/float64(tt.buckets)
		for _, h := range hits {
			chi2 += (float64(h) - expected) * (float64(h) - expected) / expected
		}
		chi := distuv.ChiSquared{K: float64(tt.buckets - 1)}
		if limit := chi.Quantile(1 - 1e-4); chi2 > limit {
			t.Errorf("n %d: χ² %v over %d buckets, above %v", tt.n, chi2, tt.buckets, limit)
		}
	}
	// count draws as many indices as asked, odd or even.
	for draws := range 5 {
		counts := make([]int, 1)
		newIndexSource(rand.NewPCG(1, 1), 3).count(counts, make([]int32, 3), draws)
		if counts[0] != draws {
			t.Errorf("counted %d of %d draws", counts[0], draws)
		}
	}
}

// ks is the Kolmogorov–Smirnov distance between the empirical
// distributions of a and b, which it sorts.
func ks(a, b []float64) float64 {
	slices.Sort(a)
	slices.Sort(b)
	d, i, j := 0.0, 0, 0
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}

// Every resampling draws from the same bootstrap distribution: on the same
// data, with seeds of their own, the resampled statistics pass a two-sample
// Kolmogorov–Smirnov test, and the intervals agree within Monte-Carlo error.
func TestResamplingsAgree(t *testing.T) {
	opts := DefaultOptions()
	opts.Resamples = 4000
	// The distance two samples of 4000 from one distribution exceed
	// with probability 1e-4.
	limit := math.Sqrt(-math.Log(1e-4/2)/2) * math.Sqrt(2.0/float64(opts.Resamples))
	for _, spread := range []float64{0.6, 4} {
		x, _ := pairedSample(600, spread, 8)
		slices.Sort(x)
		low := newHDWeights(len(x), opts.lowQuantile())
		tl := tallySorted(x)
		hows := []resampling{expandEach, byIndex, allBinomials(len(tl.values)), {binomials: 2}}
		dists := make([][]sampleStats, len(hows))
		for i, how := range hows {
			o := opts
			o.Seed += uint64(i)
			if how.expand {
				dists[i] = resampleExpanded(x, low, o)
			} else {
				dists[i] = resampleTallied(tl, low, o, how)
			}
		}
		column := func(ss []sampleStats, of func(sampleStats) float64) []float64 {
			out := make([]float64, len(ss))
			for k, s := range ss {
				out[k] = of(s)
			}
			return out
		}
		for name, of := range map[string]func(sampleStats) float64{
			"mean":    func(s sampleStats) float64 { return s.mean },
			"std dev": func(s sampleStats) float64 { return s.stdDev },
			"median":  func(s sampleStats) float64 { return s.median },
			"mad":     func(s sampleStats) float64 { return s.mad },
			"low":     func(s sampleStats) float64 { return s.low },
			"min":     func(s sampleStats) float64 { return s.min },
		} {
			for i, how := range hows[1:] {
				if d := ks(column(dists[0], of), column(dists[i+1], of)); d > limit {
					t.Errorf("spread %v: %s: resampling %+v is %.4f from the written-out one, above %.4f", spread, name, how, d, limit)
				}
			}
		}

		// The ends of the mean's and standard deviation's intervals move
		// by about 1 % of the width from one set of 10000 resamples to
		// another. The other statistics take a few values on so few
		// distinct samples, and their ends jump between them.
		full := DefaultOptions()
		want := bootstrapBy(x, tl, full, expandEach)
		for _, how := range hows[1:] {
			full.Seed++
			got := bootstrapBy(x, tl, full, how)
			for name, e := range map[string][2]Estimate{"mean": {got.Mean, want.Mean}, "std dev": {got.StdDev, want.StdDev}} {
				g, w := e[0], e[1]
				tol := 0.05 * (w.Upper - w.Lower)
				if g.Point != w.Point || math.Abs(g.Lower-w.Lower) > tol || math.Abs(g.Upper-w.Upper) > tol {
					t.Errorf("spread %v: resampling %+v: %s %+v, written out %+v", spread, how, name, g, w)
				}
			}
		}
	}
}

// Unpaired, each side is resampled on its own: its tallied distributions
// of changes are those of resamples drawn sample by sample and sorted, and
// a sample compared with itself still varies from resample to resample.
func TestUnpairedResampling(t *testing.T) {
	opts := DefaultOptions()
	opts.Resamples = 3000
	limit := math.Sqrt(-math.Log(1e-4/2)/2) * math.Sqrt(2.0/float64(opts.Resamples))
	before, _ := pairedSample(300, 1.5, 10)
	after, _ := pairedSample(250, 1.5, 11)
	for _, e := range Estimators() {
		_, got := bootstrapUnpaired(before, after, opts, e)
		want := newChanges(opts.Resamples, e, len(before), len(after), opts)
		r := rand.New(rand.NewPCG(12, 13))
		b, a := make([]float64, len(before)), make([]float64, len(after))
		for k := range opts.Resamples {
			for i := range b {
				b[i] = before[r.IntN(len(b))]
			}
			for i := range a {
				a[i] = after[r.IntN(len(a))]
			}
			want.add(k, b, a)
		}
		for name, d := range map[string][2][]float64{
			"mean": {got.mean, want.mean}, "median": {got.median, want.median},
			"change": {got.change, want.change}, "difference": {got.diff, want.diff},
		} {
			if dist := ks(d[0], d[1]); dist > limit {
				t.Errorf("%s: %s changes %.4f from those of sorted resamples, above %.4f", e, name, dist, limit)
			}
		}
		if e == Min || e == Median {
			continue // a few values: one may be every resample's
		}
		c, err := Compare(before, slices.Clone(before), CompareOptions{Options: opts, Significance: 0.05, Estimator: e})
		if err != nil {
			t.Fatal(err)
		}
		if !(c.Change.Lower < 0 && 0 < c.Change.Upper) {
			t.Errorf("%s: a sample against itself, unpaired: change %+v, want an interval around 0", e, c.Change)
		}
	}
}

// The cost model draws groups of over binomialCost samples as binomials,
// the rest by index, and writes out continuous samples, one or paired.
func TestChooseResampling(t *testing.T) {
	repeat := func(size, groups int) []int { return slices.Repeat([]int{size}, groups) }
	peaked := append([]int{300, 1000, 500, 100}, repeat(10, 10)...) // 3 of them over 110
	for _, tt := range []struct {
		name       string
		n          int
		sizes      []int
		statGroups int
		want       resampling
	}{
		{"5 values", 2000, repeat(400, 5), 5, allBinomials(5)},
		{"peaked", 2000, peaked, len(peaked), resampling{binomials: 3}},
		{"30 values", 2000, repeat(67, 30), 30, byIndex},
		{"400 pairs of 60 values", 2000, repeat(5, 400), 60, byIndex},
		{"continuous", 2000, repeat(1, 2000), 2000, expandEach},
		{"continuous pairs", 2000, repeat(1, 2000), 4000, expandEach},
		{"40 of 5 values", 40, repeat(8, 5), 5, byIndex},
		{"constant", 40, repeat(40, 1), 1, byIndex},
	} {
		if got := chooseResampling(tt.n, tt.sizes, tt.statGroups); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// A constant sample's every estimate is the constant, with no width; so
// is a constant offset between paired samples, whichever way they are
// resampled: the offset is exact when it keeps the values in one binade.
func TestConstantsExact(t *testing.T) {
	for _, v := range []float64{21, -3.5, 1e6 + 0.25, 0.1} {
		for _, n := range []int{10, 11, 2000} {
			est, err := Bootstrap(slices.Repeat([]float64{v}, n), DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			for name, e := range map[string]Estimate{"mean": est.Mean, "median": est.Median, "std dev": est.StdDev, "mad": est.MAD, "low": est.Low, "min": est.Min} {
				want := v
				switch {
				case name == "std dev" || name == "mad":
					want = 0
				case name == "mean" && v == 0.1:
					want = e.Point // a sum of tenths is not a tenth times n
				}
				if e != (Estimate{want, want, want}) {
					t.Errorf("%d × %v: %s %+v, want %v without width", n, v, name, e, want)
				}
			}
		}
	}

	hows := map[resampling]bool{}
	for _, spread := range []float64{0.6, 4, 0} {
		before, _ := pairedSample(2000, spread, 9)
		after := make([]float64, len(before))
		for i, x := range before {
			if spread == 0 {
				x = math.Round(x*1024) / 1024 // sums of these are exact
			}
			before[i] = min(max(x, 33), 60)
			after[i] = before[i] + 3
		}
		pt := tallyPairs(before, after)
		how := chooseResampling(len(before), pt.sizes, len(pt.before.values)+len(pt.after.values))
		hows[how] = true
		for _, e := range Estimators() {
			d, err := PairedDifference(before, after, e, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if d != (Estimate{3, 3, 3}) {
				t.Errorf("spread %v, resampling %+v: %s difference %+v, want exactly 3", spread, how, e, d)
			}
		}
	}
	if len(hows) != 3 {
		t.Errorf("resamplings %v, want all three", hows)
	}
}

// On whole nanoseconds, which a bootstrap by binomials resamples, the mean's
// 95 % interval covers the true mean about 95 % of the time.
func TestTalliedCoverage(t *testing.T) {
	const (
		trials = 200
		n      = 1000
		mu     = 40.3
		sigma  = 1.2
	)
	// The mean of floor(X) for X normal: Σ k P(k ≤ X < k+1).
	truth := 0.0
	norm := distuv.Normal{Mu: mu, Sigma: sigma}
	for k := 30.0; k < 51; k++ {
		truth += k * (norm.CDF(k+1) - norm.CDF(k))
	}
	opts := DefaultOptions()
	opts.Resamples = 1000
	covered := 0
	for i := range trials {
		r := rand.New(rand.NewPCG(uint64(i), 77))
		x := make([]float64, n)
		for j := range x {
			x[j] = math.Floor(norm.Mu + norm.Sigma*r.NormFloat64())
		}
		slices.Sort(x)
		if i == 0 {
			if tl := tallySorted(x); chooseResampling(n, tl.counts, len(tl.counts)).binomials == 0 {
				t.Fatalf("%d samples of %d values are not resampled by binomials", n, len(tl.counts))
			}
		}
		est, err := Bootstrap(x, opts)
		if err != nil {
			t.Fatal(err)
		}
		if est.Mean.Lower <= truth && truth <= est.Mean.Upper {
			covered++
		}
	}
	rate := float64(covered) / trials
	t.Logf("coverage %.3f of the true mean %.4f", rate, truth)
	if rate < 0.90 || rate > 0.99 {
		t.Errorf("95%% mean interval covered the true mean in %.1f%% of trials, want 90%%–99%%", 100*rate)
	}
}

// tieCases are samples of 2000 as the kernel reports them, with about 5
// and about 30 distinct values, and continuous ones without ties.
var tieCases = []struct {
	name   string
	spread float64
}{
	{"k5", 0.6},
	{"k30", 4},
	{"continuous", 0},
}

func BenchmarkSummarizeTies(b *testing.B) {
	for _, tc := range tieCases {
		samples, _ := pairedSample(2000, tc.spread, 1)
		b.Run(tc.name, func(b *testing.B) {
			opts := DefaultOptions()
			for b.Loop() {
				if _, err := Summarize(samples, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tallySorted(slices.Sorted(slices.Values(samples))).values)), "distinct")
		})
	}
}

func BenchmarkPairedDifferenceTies(b *testing.B) {
	for _, tc := range tieCases {
		before, after := pairedSample(2000, tc.spread, 2)
		b.Run(tc.name, func(b *testing.B) {
			opts := DefaultOptions()
			for b.Loop() {
				if _, err := PairedDifference(before, after, Low, opts); err != nil {
					b.Fatal(err)
				}
			}
			pt := tallyPairs(before, after)
			b.ReportMetric(float64(len(pt.before.values)), "distinct")
			b.ReportMetric(float64(len(pt.sizes)), "pairs")
		})
	}
}

// BenchmarkResampling times 1000 resamples of n = 2000 each way, for the
// cost model of chooseResampling.
func BenchmarkResampling(b *testing.B) {
	opts := DefaultOptions()
	opts.Resamples = 1000
	for _, spread := range []float64{0.6, 4, 40, 400, 0} {
		x, y := pairedSample(2000, spread, 3)
		sorted := slices.Sorted(slices.Values(x))
		tl, pt := tallySorted(sorted), tallyPairs(x, y)
		k, pairs := len(tl.values), len(pt.sizes)
		for name, how := range map[string][2]resampling{
			"expanded":  {expandEach, expandEach},
			"index":     {byIndex, byIndex},
			"binomials": {allBinomials(k), allBinomials(pairs)},
			"chosen": {
				chooseResampling(2000, tl.counts, k),
				chooseResampling(2000, pt.sizes, len(pt.before.values)+len(pt.after.values)),
			},
		} {
			b.Run(fmt.Sprintf("one/k%d/%s", k, name), func(b *testing.B) {
				for b.Loop() {
					bootstrapBy(sorted, tl, opts, how[0])
				}
			})
			b.Run(fmt.Sprintf("paired/k%d/%s", pairs, name), func(b *testing.B) {
				for b.Loop() {
					bootstrapPairedBy(x, y, pt, opts, Low, how[1])
				}
			})
		}
	}
}
