package htmlpage

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// For normal samples Sheather and Jones's bandwidth approaches the
// asymptotically optimal one, (4/3n)^(1/5) σ = 1.06 σ n^(-1/5).
func TestBandwidthNormal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	samples := make([]float64, 2000)
	for i := range samples {
		samples[i] = 50 + 2*r.NormFloat64()
	}
	want := 1.06 * 2 * math.Pow(2000, -0.2)
	if h := kdeBandwidth(samples, 0); math.Abs(h/want-1) > 0.15 {
		t.Errorf("bandwidth %.4f, want about %.4f", h, want)
	}
}

// A run's samples: a spike 0.06 ns wide where the machine added nothing,
// and 40 % of them in a tail 20 ns long. The curve must keep the
// spike's height, which Silverman's rule over the samples' spread (and,
// before it, a floor of half a nanosecond) flattens to a tenth.
func TestDensityKeepsSpike(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const share, centre, width = 0.6, 19.2, 0.03
	var samples []float64
	for range 1500 {
		if r.Float64() < share {
			samples = append(samples, centre+width*r.NormFloat64())
		} else {
			samples = append(samples, centre+0.5+r.ExpFloat64()*5)
		}
	}
	slices.Sort(samples)
	truth := share / (width * math.Sqrt(2*math.Pi))
	peakOf := func(h float64) (at, height float64) {
		var points []float64
		for x := 18.5; x <= 20; x += 0.002 {
			points = append(points, x)
		}
		for i, d := range kdeDensity(samples, points, h) {
			if d > height {
				at, height = points[i], d
			}
		}
		return at, height
	}
	h := kdeBandwidth(samples, 0)
	at, height := peakOf(h)
	if math.Abs(at-centre) > width || height < 0.8*truth || height > 1.1*truth {
		t.Errorf("bandwidth %.4f: peak %.2f at %.3f, want about %.2f at %.2f", h, height, at, truth, centre)
	}
	if _, flat := peakOf(silverman(samples)); flat > 0.2*truth {
		t.Errorf("Silverman's rule keeps the spike (%.2f of %.2f): the case for Sheather–Jones is gone", flat, truth)
	}
	// The tail, a smooth exponential, is drawn without a peak every few
	// samples: the kernels widen where the samples are sparse.
	var tail []float64
	for x := centre + 1; x < centre+15; x += 0.01 {
		tail = append(tail, x)
	}
	if n := localMaxima(kdeDensity(samples, tail, h)); n > 5 {
		t.Errorf("%d peaks in the tail, want a smooth decline", n)
	}
}

func localMaxima(d []float64) int {
	n := 0
	for i := 1; i < len(d)-1; i++ {
		if d[i] > d[i-1] && d[i] >= d[i+1] {
			n++
		}
	}
	return n
}

// Two regimes a nanosecond apart stay two peaks, with a valley between.
func TestDensitySeparatesRegimes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var samples []float64
	for i := range 1200 {
		samples = append(samples, 19+float64(i%2)+0.05*r.NormFloat64())
	}
	slices.Sort(samples)
	h := kdeBandwidth(samples, 0)
	d := kdeDensity(samples, []float64{19, 19.5, 20}, h)
	if d[1] > 0.1*min(d[0], d[2]) {
		t.Errorf("bandwidth %.3f: density %.3f between peaks of %.3f and %.3f", h, d[1], d[0], d[2])
	}
}

// The bandwidth is never finer than the data's resolution, and samples
// that are all equal, or too few, still get one.
func TestBandwidthFloor(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	samples := make([]float64, 500)
	for i := range samples {
		samples[i] = 10 + 0.001*r.NormFloat64()
	}
	if h := kdeBandwidth(samples, 0.01); h != 0.01 {
		t.Errorf("bandwidth %v below the resolution 0.01", h)
	}
	if h := kdeBandwidth([]float64{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}, 0.5); h != 0.5 {
		t.Errorf("constant samples: bandwidth %v, want the resolution", h)
	}
	if h := kdeBandwidth([]float64{1, 2, 3}, 0); !(h > 0) {
		t.Errorf("three samples: bandwidth %v", h)
	}
}

// The curve is a density: its area is 1, the far sample's kernel as wide
// as its distance to its neighbours.
func TestDensityArea(t *testing.T) {
	samples := []float64{1, 2, 2, 3, 3, 3, 4, 4, 5, 100}
	var points []float64
	for x := -600.0; x <= 800; x += 0.05 {
		points = append(points, x)
	}
	area := 0.0
	for _, d := range kdeDensity(samples, points, 0.4) {
		area += d * 0.05
	}
	if math.Abs(area-1) > 1e-3 {
		t.Errorf("area %.4f, want 1", area)
	}
}
