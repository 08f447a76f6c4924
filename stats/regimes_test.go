package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// blocks lays out samples in the order taken: runs of fast and slow
// samples, alternating, fast first, of the given lengths, each value drawn
// by draw(slow).
func blocks(lengths []int, draw func(slow bool) float64) []float64 {
	var s []float64
	for i, n := range lengths {
		for range n {
			s = append(s, draw(i%2 == 1))
		}
	}
	return s
}

// tight draws about 23 ns in the fast phase and 40 ns in the slow one,
// with a jitter far below the gap.
func tight(r *rand.Rand) func(slow bool) float64 {
	return func(slow bool) float64 {
		if slow {
			return 40 + 0.05*r.NormFloat64()
		}
		return 23 + 0.05*r.NormFloat64()
	}
}

func TestDetectRegimesTwoGroups(t *testing.T) {
	tests := []struct {
		name     string
		lengths  []int // fast, slow, fast, ...
		switches int
	}{
		{"four rounds", []int{15, 10, 15, 10, 15, 10, 15, 10}, 7},
		{"one switch", []int{60, 40}, 1},
		{"slow at the end of fast", []int{30, 40, 30}, 2},
		{"every sample", slices.Repeat([]int{3, 2}, 20), 39},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			samples := blocks(tt.lengths, tight(r))
			orig := slices.Clone(samples)
			g := DetectRegimes(samples)
			if !slices.Equal(samples, orig) {
				t.Fatal("DetectRegimes modified its input")
			}
			if !g.Bimodal {
				t.Errorf("not bimodal: %+v", g)
			}
			if math.Abs(g.Fast-23) > 0.05 || math.Abs(g.Slow-40) > 0.05 {
				t.Errorf("Fast, Slow = %v, %v; want about 23, 40", g.Fast, g.Slow)
			}
			if g.FastShare != 0.6 {
				t.Errorf("FastShare = %v, want 0.6", g.FastShare)
			}
			if g.Switches != tt.switches {
				t.Errorf("Switches = %d, want %d", g.Switches, tt.switches)
			}
			// Jitter 0.05 over a gap of 17: D = √2·17/(√2·0.05) ≈ 340.
			if g.Separation < 100 || g.Separation > MaxSeparation {
				t.Errorf("Separation = %v, want in the hundreds", g.Separation)
			}
		})
	}
}

// The machine's phases as measured (docs/measurement-notes.md): whole
// nanoseconds near 30 and 45, some samples straddling a switch in between.
func TestDetectRegimesMeasuredPhases(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var samples []float64
	for i := range 60 {
		switch {
		case i%20 < 10:
			samples = append(samples, math.Floor(30+r.NormFloat64()))
		case i%20 < 17:
			samples = append(samples, math.Floor(45+1.5*r.NormFloat64()))
		default:
			samples = append(samples, math.Floor(31+13*r.Float64()))
		}
	}
	g := DetectRegimes(samples)
	if !g.Bimodal || math.Abs(g.Fast-29.5) > 1.5 || math.Abs(g.Slow-44.5) > 2 {
		t.Errorf("%+v, want bimodal near 30 and 45", g)
	}
}

// One regime, however wide, is not two: its halves, cut where they meet,
// are each narrow (Ashman's D about 2.7 for normal data, 3.5 for uniform),
// but nothing thins out between them.
func TestDetectRegimesUnimodal(t *testing.T) {
	distributions := []struct {
		name string
		draw func(r *rand.Rand) float64
	}{
		{"normal(100, 15)", func(r *rand.Rand) float64 { return 100 + 15*r.NormFloat64() }},
		{"whole ns, normal(40, 4)", func(r *rand.Rand) float64 { return math.Floor(40 + 4*r.NormFloat64()) }},
		{"uniform(80, 120)", func(r *rand.Rand) float64 { return 80 + 40*r.Float64() }},
		{"noise only adds: 20 + exponential(3)", func(r *rand.Rand) float64 { return 20 + 3*r.ExpFloat64() }},
		{"lognormal(20, 0.3)", func(r *rand.Rand) float64 { return 20 * math.Exp(0.3*r.NormFloat64()) }},
		{"whole ns, 14 + |normal(0, 1.5)|", func(r *rand.Rand) float64 { return math.Floor(14 + 1.5*math.Abs(r.NormFloat64())) }},
	}
	for _, d := range distributions {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 100))
			samples := make([]float64, 200)
			for i := range samples {
				samples[i] = d.draw(r)
			}
			if g := DetectRegimes(samples); g.Bimodal {
				t.Errorf("%s, seed %d: bimodal: %+v", d.name, seed, g)
			}
		}
	}
}

func TestDetectRegimesNotBimodal(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tests := []struct {
		name    string
		samples []float64
		check   func(t *testing.T, g Regimes)
	}{
		{
			// Two whole nanoseconds, one quantum apart, tightly grouped:
			// as separate as can be, but 24/23 < MinRegimeRatio.
			"one quantum",
			blocks([]int{12, 8, 12, 8}, func(slow bool) float64 {
				if slow {
					return 24
				}
				return 23
			}),
			func(t *testing.T, g Regimes) {
				if g.Fast != 23 || g.Slow != 24 || g.FastShare != 0.6 || g.Separation != MaxSeparation || g.Switches != 3 {
					t.Errorf("%+v, want 23 and 24, 60 %%, separation %v, 3 switches", g, MaxSeparation)
				}
			},
		},
		{
			// Five stray slow samples in 100 are outliers, not a phase.
			"stray slow samples",
			blocks([]int{30, 2, 30, 3, 35}, tight(r)),
			func(t *testing.T, g Regimes) {
				if g.FastShare != 0.95 || math.Abs(g.Slow-40) > 0.1 || g.Switches != 4 {
					t.Errorf("%+v, want the 5 stray samples split off", g)
				}
			},
		},
		{
			// And as many stray fast ones.
			"stray fast samples",
			blocks([]int{5, 95}, tight(r)),
			func(t *testing.T, g Regimes) {
				if g.FastShare != 0.05 {
					t.Errorf("%+v, want FastShare 0.05", g)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := DetectRegimes(tt.samples)
			if g.Bimodal {
				t.Errorf("bimodal: %+v", g)
			}
			tt.check(t, g)
		})
	}
	// A share of exactly MinRegimeShare is enough.
	if g := DetectRegimes(blocks([]int{45, 5}, tight(r))); !g.Bimodal || g.FastShare != 0.9 {
		t.Errorf("10 %% slow: %+v, want bimodal", g)
	}
}

func TestDetectRegimesDegenerate(t *testing.T) {
	for _, n := range []int{0, 1, 2, MinSamples - 1} {
		samples := blocks([]int{n / 2, n - n/2}, tight(rand.New(rand.NewPCG(7, 8))))
		if g := DetectRegimes(samples); g != (Regimes{}) {
			t.Errorf("%d samples: %+v, want the zero Regimes", n, g)
		}
	}
	want := Regimes{Fast: 21, Slow: 21, FastShare: 1}
	if g := DetectRegimes(slices.Repeat([]float64{21}, MinSamples)); g != want {
		t.Errorf("constant samples: %+v, want %+v", g, want)
	}
	// Huge values: the squares overflow; no panic, no claim of regimes.
	huge := blocks([]int{6, 6}, func(slow bool) float64 {
		if slow {
			return 3e300
		}
		return 1e300
	})
	if g := DetectRegimes(huge); g.Fast != 1e300 || g.Slow != 3e300 {
		t.Errorf("huge samples: %+v", g)
	}
}

// Two groups of constant samples have no spread: Separation is capped, so
// that the Regimes, part of every Summary, still marshal to JSON.
func TestDetectRegimesJSON(t *testing.T) {
	samples := blocks([]int{6, 4, 6, 4}, func(slow bool) float64 {
		if slow {
			return 40
		}
		return 23
	})
	g := DetectRegimes(samples)
	want := Regimes{Bimodal: true, Fast: 23, Slow: 40, FastShare: 0.6, Separation: MaxSeparation, Switches: 3}
	if g != want {
		t.Errorf("%+v, want %+v", g, want)
	}
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var back Regimes
	if err := json.Unmarshal(b, &back); err != nil || back != g {
		t.Errorf("JSON round trip: %s gives %+v, %v", b, back, err)
	}
	// One sample alone in a group has no standard deviation; it counts as
	// tight, not as NaN.
	one := append(slices.Repeat([]float64{23}, 10), 40)
	if g := DetectRegimes(one); math.IsNaN(g.Separation) || g.Separation != MaxSeparation {
		t.Errorf("a lone slow sample: Separation %v, want %v", g.Separation, MaxSeparation)
	}
	s, err := Summarize(samples, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if s.Regimes != g {
		t.Errorf("Summary.Regimes = %+v, want DetectRegimes' %+v", s.Regimes, g)
	}
	if _, err := json.Marshal(s); err != nil {
		t.Errorf("Summary of two constant groups: %v", err)
	}
}
