package replay

import (
	"math"
	"math/rand/v2"
)

// zipf draws ranks 1 to n with P(k) proportional to k^-s, s > 0, by
// Hörmann and Derflinger's rejection-inversion ("Rejection-inversion to
// generate variates from monotone discrete distributions", ACM TOMACS
// 1996): constant memory and time whatever n, where a table of 2^24
// ranks would take 128 MiB. Go's math/rand/v2 Zipf is the same method but
// wants s > 1; traffic laws of 0.8 to 1 are common, so this one takes any
// s > 0 (H and its inverse written through log1p and expm1, which are
// exact where s is near 1). gonum has no Zipf.
type zipf struct {
	n, s    float64
	hx1, hn float64 // H(1.5) - 1 and H(n + 0.5)
	squeeze float64 // accepts without the H test
	r       *rand.Rand
}

func newZipf(r *rand.Rand, s float64, n int) *zipf {
	z := &zipf{n: float64(n), s: s, r: r}
	z.hx1 = z.bigH(1.5) - 1
	z.hn = z.bigH(z.n + 0.5)
	z.squeeze = 2 - z.bigHInv(z.bigH(2.5)-z.h(2))
	return z
}

// h is the law's density up to a factor: x^-s.
func (z *zipf) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

// bigH is an integral of h: (x^(1-s) - 1) / (1 - s), log x at s = 1.
func (z *zipf) bigH(x float64) float64 {
	lx := math.Log(x)
	return expm1x((1-z.s)*lx) * lx
}

// bigHInv is H's inverse.
func (z *zipf) bigHInv(y float64) float64 {
	t := max(y*(1-z.s), -1) // rounding may take it just past -1
	return math.Exp(log1px(t) * y)
}

// rank draws a rank, 1 to n.
func (z *zipf) rank() int {
	for {
		u := z.hn + z.r.Float64()*(z.hx1-z.hn)
		x := z.bigHInv(u)
		k := math.Floor(x + 0.5)
		k = min(max(k, 1), z.n)
		if k-x <= z.squeeze || u >= z.bigH(k+0.5)-z.h(k) {
			return int(k)
		}
	}
}

// log1px is log(1+x)/x, 1 at 0.
func log1px(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x/2 + x*x/3
}

// expm1x is (e^x - 1)/x, 1 at 0.
func expm1x(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x/2 + x*x/6
}
