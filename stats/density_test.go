package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDensity(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	samples := make([]float64, 2000)
	for i := range samples {
		samples[i] = 50 + 4*r.NormFloat64()
	}
	var points []float64
	for x := 20.0; x <= 80; x += 0.5 {
		points = append(points, x)
	}
	d := Density(samples, points, 0.5)
	integral, peakAt, peak := 0.0, 0.0, 0.0
	for i, v := range d {
		integral += v * 0.5
		if v > peak {
			peak, peakAt = v, points[i]
		}
	}
	if math.Abs(integral-1) > 0.02 {
		t.Errorf("density integrates to %.3f, want 1", integral)
	}
	if math.Abs(peakAt-50) > 1.5 {
		t.Errorf("peak at %.1f, want near 50", peakAt)
	}
	// Normal(50, 4) peaks at 1/(4 sqrt(2 pi)) = 0.0997; smoothing lowers it a little.
	if peak < 0.085 || peak > 0.105 {
		t.Errorf("peak %.4f, want about 0.0997", peak)
	}
	// All samples equal: the floor on the bandwidth keeps it finite.
	flat := Density([]float64{7, 7, 7}, []float64{7}, 0.5)
	if want := 1 / (0.5 * math.Sqrt(2*math.Pi)); math.Abs(flat[0]-want) > 1e-9 {
		t.Errorf("constant samples: %v, want %v", flat[0], want)
	}
}
