package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// hdCases are the (n, p) pairs the weight tests run over: tiny and large
// n, the default low quantile, the median and both tails.
func hdCases() []struct {
	n int
	p float64
} {
	var out []struct {
		n int
		p float64
	}
	for _, n := range []int{1, 2, 3, 5, 10, 13, 40, 60, 100, 1000} {
		for _, p := range []float64{0.01, DefaultLowQuantile, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99} {
			out = append(out, struct {
				n int
				p float64
			}{n, p})
		}
	}
	return out
}

func TestHarrellDavisWeights(t *testing.T) {
	for _, c := range hdCases() {
		w := harrellDavisWeights(c.n, c.p)
		if len(w) != c.n {
			t.Fatalf("n %d p %v: %d weights", c.n, c.p, len(w))
		}
		sum := 0.0
		for i, x := range w {
			if !(x >= 0) {
				t.Errorf("n %d p %v: weight %d = %v, want >= 0", c.n, c.p, i, x)
			}
			sum += x
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("n %d p %v: weights sum to 1%+g, want 1", c.n, c.p, sum-1)
		}
		// Beta(a, b) mirrored is Beta(b, a): the weights of 1-p are those
		// of p read backwards.
		m := harrellDavisWeights(c.n, 1-c.p)
		for i := range w {
			if math.Abs(w[i]-m[c.n-1-i]) > 1e-12 {
				t.Errorf("n %d p %v: weight %d = %v, but weight %d of 1-p = %v", c.n, c.p, i, w[i], c.n-1-i, m[c.n-1-i])
				break
			}
		}
	}
}

func TestHarrellDavisWeightsPanic(t *testing.T) {
	for _, c := range []struct {
		n int
		p float64
	}{{0, 0.5}, {10, 0}, {10, 1}, {10, -0.1}, {10, 1.5}, {10, math.NaN()}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("harrellDavisWeights(%d, %v) did not panic", c.n, c.p)
				}
			}()
			harrellDavisWeights(c.n, c.p)
		}()
	}
}

func TestHarrellDavisSimpleCases(t *testing.T) {
	for _, p := range []float64{0.01, DefaultLowQuantile, 0.1, 0.5, 0.9, 0.99} {
		// One sample is its own every quantile.
		if got := HarrellDavis([]float64{42}, p); got != 42 {
			t.Errorf("HarrellDavis([42], %v) = %v, want 42", p, got)
		}
		// A constant sample gives back exactly its value, although the
		// weights sum to 1 only up to rounding.
		for _, n := range []int{2, 10, 40, 61, 1000} {
			if got := HarrellDavis(slices.Repeat([]float64{21}, n), p); got != 21 {
				t.Errorf("HarrellDavis(%d × 21, %v) = %v, want 21", n, p, got)
			}
		}
	}
	// The median of a sample symmetric about its centre is the centre: the
	// weights of p = 0.5 are symmetric, so deviations cancel pair by pair.
	for _, tt := range []struct {
		sorted []float64
		centre float64
	}{
		{[]float64{1, 2, 4, 7, 10, 13, 15, 16}, 8.5},        // even n
		{[]float64{-3, 0, 0.5, 2, 3.5, 4, 7}, 2},            // odd n
		{[]float64{20, 21, 21, 22, 22, 22, 23, 23, 24}, 22}, // whole ns with ties
	} {
		if got := HarrellDavis(tt.sorted, 0.5); math.Abs(got-tt.centre) > 1e-12 {
			t.Errorf("HarrellDavis(%v, 0.5) = %v, want the centre %v", tt.sorted, got, tt.centre)
		}
	}
	// Mirroring the sample mirrors the quantile: HD(x, p) = -HD(-x, 1-p).
	x := slices.Sorted(slices.Values(normalSample(25, 10, 3, 11)))
	neg := make([]float64, len(x))
	for i, v := range x {
		neg[len(x)-1-i] = -v
	}
	for _, p := range []float64{0.02, 0.1, 0.3, 0.5} {
		if a, b := HarrellDavis(x, p), -HarrellDavis(neg, 1-p); math.Abs(a-b) > 1e-12 {
			t.Errorf("p %v: HD(x) = %v, -HD(-x, 1-p) = %v", p, a, b)
		}
	}
}

// betaWeightsByQuadrature computes the Harrell–Davis weights without
// gonum's incomplete beta function: the mass of the Beta(p(n+1),
// (1-p)(n+1)) density on each ((i-1)/n, i/n], by adaptive Simpson
// quadrature of the density itself. It needs both shape parameters at
// least 1, so that the density is bounded.
func betaWeightsByQuadrature(n int, p float64) []float64 {
	a, b := p*float64(n+1), (1-p)*float64(n+1)
	if a < 1 || b < 1 {
		panic("betaWeightsByQuadrature: shape below 1")
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	logNorm := lab - la - lb
	pdf := func(x float64) float64 {
		if x <= 0 || x >= 1 {
			// The limits: 0 unless a shape is exactly 1.
			switch {
			case x <= 0 && a == 1:
				return math.Exp(logNorm)
			case x >= 1 && b == 1:
				return math.Exp(logNorm)
			}
			return 0
		}
		return math.Exp(logNorm + (a-1)*math.Log(x) + (b-1)*math.Log1p(-x))
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = adaptiveSimpson(pdf, float64(i)/float64(n), float64(i+1)/float64(n), 1e-15)
	}
	return w
}

func adaptiveSimpson(f func(float64) float64, a, b, eps float64) float64 {
	fa, fm, fb := f(a), f((a+b)/2), f(b)
	whole := (b - a) / 6 * (fa + 4*fm + fb)
	return simpsonStep(f, a, b, fa, fm, fb, whole, eps, 50)
}

func simpsonStep(f func(float64) float64, a, b, fa, fm, fb, whole, eps float64, depth int) float64 {
	m := (a + b) / 2
	lm, rm := (a+m)/2, (m+b)/2
	flm, frm := f(lm), f(rm)
	left := (m - a) / 6 * (fa + 4*flm + fm)
	right := (b - m) / 6 * (fm + 4*frm + fb)
	if d := left + right - whole; depth <= 0 || math.Abs(d) <= 15*eps {
		return left + right + d/15
	}
	return simpsonStep(f, a, m, fa, flm, fm, left, eps/2, depth-1) +
		simpsonStep(f, m, b, fm, frm, fb, right, eps/2, depth-1)
}

// TestHarrellDavisAgainstQuadrature checks the weights, and the estimate
// of a fixed vector, against the density integrated numerically.
func TestHarrellDavisAgainstQuadrature(t *testing.T) {
	x := []float64{31, 22, 25, 22, 23, 47, 24, 22, 29, 23, 26, 35, 22, 24, 23, 28, 22, 40, 25, 23}
	tests := []struct {
		n int
		p float64
	}{
		{12, 0.1},  // a = 1.3: the density is steep at 0
		{12, 0.25}, // 3.25, 9.75
		{12, 0.5},
		{12, 0.9}, // b = 1.3
		{20, 0.3},
		{20, 0.5},
		{49, 0.02}, // a = 1 exactly: the density is largest at 0
		{99, 0.1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n=%d,p=%v", tt.n, tt.p), func(t *testing.T) {
			want := betaWeightsByQuadrature(tt.n, tt.p)
			got := harrellDavisWeights(tt.n, tt.p)
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-10 {
					t.Errorf("weight %d = %.15g, quadrature %.15g", i, got[i], want[i])
				}
			}
			sample := make([]float64, tt.n)
			for i := range sample {
				sample[i] = x[i%len(x)] + float64(i/len(x)) // distinct enough, not sorted
			}
			slices.Sort(sample)
			hd := HarrellDavis(sample, tt.p)
			if ref := weightedSum(sample, want); math.Abs(hd-ref) > 1e-9 {
				t.Errorf("HarrellDavis = %.12g, by quadrature %.12g", hd, ref)
			}
		})
	}
	// A hand check: for n = 2, p = 0.5 the density is Beta(1.5, 1.5),
	// symmetric, so each half holds exactly 1/2.
	if w := harrellDavisWeights(2, 0.5); math.Abs(w[0]-0.5) > 1e-15 || math.Abs(w[1]-0.5) > 1e-15 {
		t.Errorf("weights of n = 2, p = 0.5: %v, want [0.5 0.5]", w)
	}
	// For a = 1 the CDF is 1-(1-x)^b: n = 3, p = 0.25 gives Beta(1, 3), so
	// the first weight is 1-(2/3)^3 = 19/27.
	if w := harrellDavisWeights(3, 0.25); math.Abs(w[0]-19.0/27) > 1e-14 {
		t.Errorf("first weight of n = 3, p = 0.25: %v, want 19/27", w[0])
	}
}

func TestHarrellDavisMonotoneInP(t *testing.T) {
	for _, sorted := range [][]float64{
		slices.Sorted(slices.Values(normalSample(50, 100, 10, 3))), // distinct
		{20, 20, 21, 21, 21, 22, 22, 23, 25, 30, 31, 44},           // ties
	} {
		prev := math.Inf(-1)
		for k := 1; k < 100; k++ {
			p := float64(k) / 100
			got := HarrellDavis(sorted, p)
			if !(got > prev) {
				t.Errorf("HarrellDavis(p = %v) = %v, not above %v at p = %v", p, got, prev, float64(k-1)/100)
			}
			if got < sorted[0] || got > sorted[len(sorted)-1] {
				t.Errorf("HarrellDavis(p = %v) = %v outside the sample's range", p, got)
			}
			prev = got
		}
	}
}

// TestHarrellDavisKnownDistributions: on large samples the estimate lands
// within four standard errors, sqrt(p(1-p)/n)/f(q), of the true quantile.
func TestHarrellDavisKnownDistributions(t *testing.T) {
	const n = 4000
	r := rand.New(rand.NewPCG(21, 22))
	exp, norm := make([]float64, n), make([]float64, n)
	for i := range n {
		exp[i] = r.ExpFloat64() // rate 1
		norm[i] = 50 + 4*r.NormFloat64()
	}
	slices.Sort(exp)
	slices.Sort(norm)
	unit := distuv.UnitNormal
	for _, p := range []float64{0.02, 0.1, 0.25, 0.5, 0.9} {
		se := math.Sqrt(p * (1 - p) / n)
		// Exponential(1): q = -ln(1-p), density there 1-p.
		q := -math.Log1p(-p)
		if got := HarrellDavis(exp, p); math.Abs(got-q) > 4*se/(1-p) {
			t.Errorf("exponential p %v: %v, want %v ± %.3g", p, got, q, 4*se/(1-p))
		}
		// Normal(50, 4).
		z := unit.Quantile(p)
		q = 50 + 4*z
		tol := 4 * se / (unit.Prob(z) / 4)
		if got := HarrellDavis(norm, p); math.Abs(got-q) > tol {
			t.Errorf("normal p %v: %v, want %v ± %.3g", p, got, q, tol)
		}
	}
}

// ditheredFloors are n whole-nanosecond samples of a true time c read
// through one quantum of evenly spread jitter: floor(c + u) for u evenly
// in [0, 1). Their mean is c; a share frac(c) of them is one above
// floor(c).
func ditheredFloors(n int, c float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.Floor(c + (float64(i)+0.5)/float64(n))
	}
	return s
}

// TestHarrellDavisBelowQuantum: on whole nanoseconds a type 7 quantile
// sticks to whole values, while Harrell–Davis lands between them and
// follows the true time as it moves by tenths of a quantum.
func TestHarrellDavisBelowQuantum(t *testing.T) {
	const k = 23.0
	// An odd n, so that the type 7 median is a sample, always whole.
	const n = 31
	sorted := ditheredFloors(n, k+0.3) // 22 × 23, 9 × 24
	if q := Quantile(sorted, 0.5); q != k {
		t.Fatalf("type 7 median = %v, want %v", q, k)
	}
	if hd := HarrellDavis(sorted, 0.5); !(hd > k && hd < k+1) {
		t.Errorf("HarrellDavis median of floors of %v = %v, want strictly between %v and %v", k+0.3, hd, k, k+1)
	}

	// Random jitter of one quantum around the same true time.
	r := rand.New(rand.NewPCG(8, 9))
	jittered := make([]float64, 40)
	for i := range jittered {
		jittered[i] = math.Floor(k + 0.3 + r.Float64())
	}
	slices.Sort(jittered)
	if q := Quantile(jittered, 0.5); q != math.Trunc(q) {
		t.Errorf("type 7 median of whole values = %v, not whole", q)
	}
	if hd := HarrellDavis(jittered, 0.5); !(hd > k && hd < k+1) {
		t.Errorf("HarrellDavis median of %v = %v, want strictly between %v and %v", jittered, hd, k, k+1)
	}

	// The true time moves up by tenths: the estimate rises every step,
	// the type 7 median only once, by a whole quantum.
	prevHD, jumps := math.Inf(-1), 0
	prevQ := Quantile(ditheredFloors(n, k+0.2), 0.5)
	for tenths := 3; tenths <= 8; tenths++ {
		c := float64(tenths) / 10
		s := ditheredFloors(n, k+c)
		hd, q := HarrellDavis(s, 0.5), Quantile(s, 0.5)
		if !(hd > prevHD) {
			t.Errorf("true time %v: HarrellDavis %v, not above %v", k+c, hd, prevHD)
		}
		if q != prevQ {
			jumps++
		}
		prevHD, prevQ = hd, q
	}
	if jumps != 1 {
		t.Errorf("type 7 median changed %d times over %v..%v, want once", jumps, k+0.3, k+0.8)
	}
}
