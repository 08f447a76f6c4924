package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestQuantile(t *testing.T) {
	// Type 7: h = (n-1)p, then interpolate between sorted[⌊h⌋] and the
	// next. The [1 2 3 4] rows are numpy.percentile's documented default
	// (method="linear") results: percentile([1,2,3,4], 25) == 1.75.
	tests := []struct {
		name   string
		sorted []float64
		p      float64
		want   float64
	}{
		{"min", []float64{1, 2, 3, 4}, 0, 1},
		{"q1", []float64{1, 2, 3, 4}, 0.25, 1.75},        // h = 0.75: 1 + 0.75*(2-1)
		{"median even", []float64{1, 2, 3, 4}, 0.5, 2.5}, // h = 1.5
		{"q3", []float64{1, 2, 3, 4}, 0.75, 3.25},        // h = 2.25: 3 + 0.25*(4-3)
		{"max", []float64{1, 2, 3, 4}, 1, 4},
		{"median odd", []float64{1, 3, 7}, 0.5, 3},      // h = 1, exact rank
		{"p40", []float64{15, 20, 35, 40, 50}, 0.4, 29}, // h = 1.6: 20 + 0.6*15
		{"p90", []float64{15, 20, 35, 40, 50}, 0.9, 46}, // h = 3.6: 40 + 0.6*10
		{"ties", []float64{21, 22, 22, 23}, 0.5, 22},    // h = 1.5 between equal 22s
		{"single", []float64{42}, 0.3, 42},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quantile(tt.sorted, tt.p); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Quantile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestQuantilePanics(t *testing.T) {
	for _, tt := range []struct {
		name   string
		sorted []float64
		p      float64
	}{
		{"empty", nil, 0.5},
		{"negative p", []float64{1}, -0.1},
		{"p above 1", []float64{1}, 1.1},
		{"NaN p", []float64{1}, math.NaN()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Quantile(%v, %v) did not panic", tt.sorted, tt.p)
				}
			}()
			Quantile(tt.sorted, tt.p)
		})
	}
}

// TestMAD checks the bisection in mad against the obvious definition:
// the median of the sorted absolute deviations.
func TestMAD(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 40; n++ {
		for trial := range 100 {
			x := make([]float64, n)
			for i := range x {
				if trial%2 == 0 {
					// Small integers, like whole-nanosecond samples: many ties.
					x[i] = float64(20 + r.IntN(6))
				} else {
					x[i] = 20 + r.NormFloat64()
				}
			}
			switch r.IntN(4) {
			case 0:
				x[r.IntN(n)] = 1000 // a far outlier on one side
			case 1:
				x[r.IntN(n)] = -1000
			}
			slices.Sort(x)
			med := median(x)

			dev := make([]float64, n)
			for i, v := range x {
				dev[i] = math.Abs(v - med)
			}
			slices.Sort(dev)
			want := median(dev)

			if got := mad(x, med); got != want {
				t.Fatalf("mad(%v) = %v, want %v", x, got, want)
			}
		}
	}
}
