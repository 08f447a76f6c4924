package stats

import (
	"math/rand/v2"
	"testing"
)

func TestTukey(t *testing.T) {
	// 25 values, so type 7 puts Q1 at h = 24*0.25 = 6 and Q3 at h = 18,
	// exact ranks: Q1 = 10, Q3 = 20, IQR = 10. Fences:
	//   low severe  Q1 - 3*IQR   = -20
	//   low mild    Q1 - 1.5*IQR = -5
	//   high mild   Q3 + 1.5*IQR = 35
	//   high severe Q3 + 3*IQR   = 50
	// Hence -30 is low severe; -20 (on the severe fence) and -6 are low
	// mild; -5 and 35 (on the mild fences) are not outliers; 36, 40 and
	// 50 (on the severe fence) are high mild; 51 and 60 are high severe.
	sorted := []float64{
		-30, -20, -6, -5, 0, 5, // below Q1
		10,                                         // Q1, index 6
		11, 12, 13, 14, 15, 15, 15, 16, 17, 18, 19, // between
		20,                     // Q3, index 18
		35, 36, 40, 50, 51, 60, // above Q3
	}
	want := Outliers{
		LowSevere: 1, LowMild: 2, HighMild: 3, HighSevere: 2,
		Fences: [4]float64{-20, -5, 35, 50},
	}

	// Order must not matter, and the caller's slice must be left alone.
	shuffled := append([]float64(nil), sorted...)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(shuffled), func(i, j int) {
		shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
	})
	before := append([]float64(nil), shuffled...)

	for name, in := range map[string][]float64{"sorted": sorted, "shuffled": shuffled} {
		t.Run(name, func(t *testing.T) {
			got := Tukey(in)
			if got != want {
				t.Errorf("Tukey = %+v, want %+v", got, want)
			}
			if got.Total() != 8 {
				t.Errorf("Total = %d, want 8", got.Total())
			}
		})
	}
	for i := range before {
		if shuffled[i] != before[i] {
			t.Fatalf("Tukey modified its input")
		}
	}
}

func TestTukeyNoOutliers(t *testing.T) {
	tests := []struct {
		name    string
		samples []float64
	}{
		{"empty", nil},
		{"constant", []float64{21, 21, 21, 21, 21}},
		{"uniform", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tukey(tt.samples); got.Total() != 0 {
				t.Errorf("Tukey(%v) = %+v, want no outliers", tt.samples, got)
			}
		})
	}
}
