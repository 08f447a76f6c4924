package ladder

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

var (
	testSteps     = []int{0, 8, 16, 32}
	testFineSteps = []int{1, 2, 4}
)

// synthetic is a ladder as a machine (or a broken tool) would show it.
type synthetic struct {
	perStep, perFine float64
	// hidden is how many steps of the chain the harness's own time per
	// run hides: a run costs the longer of the two.
	hidden int
	// swap measures the two highest ladder programs under each other's
	// name, swapFine the two lowest fine rungs.
	swap, swapFine bool
	// scale multiplies every program's cost, the floor's too (a slow
	// phase of the machine); skew ladder_32's alone.
	scale, skew float64
	// harness adds to every program's cost (a slow phase of the test-run
	// loop itself).
	harness float64
	// firstFine adds to every fine rung: the first fine step costing more
	// than the others, as on a Xeon host here (0.40 ns, then 0.25).
	firstFine float64
	// fine, where given, is each fine rung's cost over ladder_16 in
	// place of perFine's line, one for each of FineSteps (the real ones).
	fine []float64
}

// fineSteps are the fine rungs a synthetic ladder has.
func (l synthetic) fineSteps() []int {
	if l.fine != nil {
		return FineSteps
	}
	return testFineSteps
}

// testBase is the steps every synthetic ladder program stands on.
const testBase = 8

// ladderRun is a run of a ladder whose programs cost floor + perStep·(the
// steps beyond hidden, of testBase+steps) and whose fine rungs cost
// perFine more per fine step than ladder_16, each sample with up to jitter
// ns of noise added, at the timer quantum q.
func ladderRun(t *testing.T, rng *rand.Rand, l synthetic, jitter, q float64) *results.Run {
	t.Helper()
	cases, err := packets.Select([]string{packets.None})
	if err != nil {
		t.Fatal(err)
	}
	const floor = 7.0
	samples := func(cost float64) []float64 {
		var s []float64
		for range 40 {
			s = append(s, cost+jitter*rng.Float64())
		}
		return s
	}
	program := func(name string, cost float64) results.Program {
		c := cases[0]
		return results.Program{
			Object: "ladder", Info: results.ProgramInfo{Name: name, Type: "XDP"},
			Results: []results.Case{{Name: c.Name, Frame: hex.EncodeToString(c.Frame), Return: 2, Action: "XDP_PASS", Samples: samples(cost)}},
		}
	}
	scale := func(ns float64) float64 { return ns*max(l.scale, 1) + l.harness }
	cost := func(steps int) float64 { return scale(floor + l.perStep*float64(max(testBase+steps-l.hidden, 0))) }
	res := results.Raw{Environment: results.Environment{Kernel: "test", Repeat: 1000, Resolution: q, Timer: "test"}}
	for _, s := range testSteps {
		c := cost(s)
		if s == 32 {
			c *= max(l.skew, 1)
		}
		res.Programs = append(res.Programs, program(fmt.Sprintf("ladder_%d", s), c))
	}
	if l.swap {
		n := len(testSteps)
		res.Programs[n-2].Results, res.Programs[n-1].Results = res.Programs[n-1].Results, res.Programs[n-2].Results
	}
	for i, f := range l.fineSteps() {
		over := l.perFine*float64(f) + l.firstFine
		if l.fine != nil {
			over = l.fine[i]
		}
		res.Programs = append(res.Programs, program(fmt.Sprintf("fine_%d", f), cost(16)+over))
	}
	if l.swapFine {
		n := len(testSteps)
		res.Programs[n].Results, res.Programs[n+1].Results = res.Programs[n+1].Results, res.Programs[n].Results
	}
	floorResult := program("empty_xdp", scale(floor))
	res.Floor = &floorResult
	r, err := engine.New(results.Settings{Estimator: stats.Low, Confidence: 0.95, Resamples: 500}, res, stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestValidateLadder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	opts := stats.DefaultOptions()
	opts.Resamples = 500
	for _, tt := range []struct {
		name        string
		ladder      synthetic
		q           float64
		wantFailure string // empty: none
		wantChecked bool
	}{
		{"a true ladder, fine timer", synthetic{perStep: 1, perFine: 0.25}, 0.001, "", true},
		{"a true ladder, kernel timer", synthetic{perStep: 1, perFine: 0.25}, 1, "", false},
		{"a first fine step that costs more, fine timer", synthetic{perStep: 1, perFine: 0.25, firstFine: 0.15}, 0.001, "", true},
		// As validate read them on an AMD EPYC guest (2026-12): fine_4
		// +0.62 [+0.43 +0.81] ns where the fitted line said 1.19.
		{"fine rungs the harness partly hides, fine timer", synthetic{perStep: 1, perFine: 0.45, fine: []float64{0.19, 0.53, 0.62, 2.75, 6.96}}, 0.001, "", true},
		{"a fine rung that costs far more than its steps, fine timer", synthetic{perStep: 1, perFine: 0.25, fine: []float64{0.25, 0.5, 1, 5, 6}}, 0.001, "fine_8 costs", true},
		{"fine rungs that cost nothing, fine timer", synthetic{perStep: 1, perFine: -0.25}, 0.001, "the fine rungs do not climb", true},
		{"fine rungs swapped, fine timer", synthetic{perStep: 1, perFine: 0.25, swapFine: true}, 0.001, "fine_2 is not slower than the rung below", true},
		{"fine rungs that cost nothing, kernel timer", synthetic{perStep: 1, perFine: -0.25}, 1, "", false},
		{"a clock that does not tick", synthetic{perFine: 0.25}, 0.001, "the ladder does not climb", true},
		{"programs swapped", synthetic{perStep: 1, perFine: 0.25, swap: true}, 0.001, "ladder_32 is not slower than ladder_16", true},
		{"a base the harness hides", synthetic{perStep: 1, perFine: 0.25, hidden: 20}, 0.001, "ladder_0 costs", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var runs []*results.Run
			for range 2 {
				runs = append(runs, ladderRun(t, rng, tt.ladder, 0.05, tt.q))
			}
			v, err := Validate(testSteps, 16, tt.ladder.fineSteps(), runs, opts)
			if err != nil {
				t.Fatal(err)
			}
			if v.Fine == nil || v.Fine.Checked != tt.wantChecked || v.TimerResolution != tt.q {
				t.Fatalf("fine %+v, timer resolution %g", v.Fine, v.TimerResolution)
			}
			failures := strings.Join(v.Failures, "\n")
			if tt.wantFailure == "" && failures != "" || !strings.Contains(failures, tt.wantFailure) {
				t.Errorf("failures %q, want %q", failures, tt.wantFailure)
			}
			if l := tt.ladder; l.perStep > 0 && !l.swap && l.hidden == 0 && (v.PerStep < 0.9*l.perStep || v.PerStep > 1.1*l.perStep) {
				t.Errorf("%.3f ns per step, want %.3f", v.PerStep, l.perStep)
			}
			if d := v.Fine.PerStep - tt.ladder.perFine; tt.ladder.perStep > 0 && !tt.ladder.swap && !tt.ladder.swapFine && tt.ladder.fine == nil && (d < -0.05 || d > 0.05) {
				t.Errorf("%.3f ns per fine step, want %.3f", v.Fine.PerStep, tt.ladder.perFine)
			}
			if want := 2 * len(tt.ladder.fineSteps()); v.Fine.Pairs != want {
				t.Errorf("%d pairs, want %d", v.Fine.Pairs, want)
			}
			if !slices.Contains(v.Fine.Names, "fine_2") || v.Fine.Checked != tt.wantChecked {
				t.Errorf("fine rungs %v, checked %v; want fine_2 among them, checked %v", v.Fine.Names, v.Fine.Checked, tt.wantChecked)
			}
		})
	}
	if _, err := Validate(testSteps, 4, testFineSteps, []*results.Run{ladderRun(t, rng, synthetic{perStep: 1, perFine: 0.25}, 0.05, 1)}, opts); err == nil {
		t.Error("fine rungs on a base not on the ladder: no error")
	}
}

// A run whose every program the machine slowed alike is no spread; one
// program that moved alone is.
func TestValidateSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	opts := stats.DefaultOptions()
	opts.Resamples = 500
	l := synthetic{perStep: 1, perFine: 0.25}
	slow, skewed, slowLoop := l, l, l
	slow.scale, skewed.skew = 1.05, 1.15
	// As .ci/run met it: one run of three slower by some 27 ns in every
	// program, ×1.30 at ladder_0 and ×1.16 at ladder_64.
	slowLoop.harness = 3
	for _, tt := range []struct {
		name   string
		second synthetic
		want   string
	}{
		{"a slow phase", slow, ""},
		{"a slow test-run loop", slowLoop, ""},
		{"one program moved", skewed, "ladder_32: estimates spread"},
	} {
		runs := []*results.Run{ladderRun(t, rng, l, 0.05, 0.001), ladderRun(t, rng, tt.second, 0.05, 0.001)}
		v, err := Validate(testSteps, 16, testFineSteps, runs, opts)
		if err != nil {
			t.Fatal(err)
		}
		failures := strings.Join(v.Failures, "\n")
		if tt.want == "" && failures != "" || !strings.Contains(failures, tt.want) {
			t.Errorf("%s: failures %q, want %q", tt.name, failures, tt.want)
		}
		if f := v.RunFactors[1]; tt.second.scale > 0 && (f < 1.04 || f > 1.06) {
			t.Errorf("%s: the second run's factor %.3f, want about %g", tt.name, f, tt.second.scale)
		}
		if s := v.RunShifts[1]; tt.second.harness > 0 && (s < 2.8 || s > 3.2) {
			t.Errorf("%s: the second run's shift %.2f ns, want about %g", tt.name, s, tt.second.harness)
		}
	}
}

// A validation run measures every ladder program, then every fine rung,
// by the names bpf gives them, as Validate reads the runs.
func TestPrograms(t *testing.T) {
	progs := Programs()
	if len(progs) != len(bpf.LadderSteps)+len(FineSteps) {
		t.Fatalf("%d programs", len(progs))
	}
	for i, s := range bpf.LadderSteps {
		if progs[i].Program != bpf.LadderProgram(s) {
			t.Errorf("program %d is %s, want %s", i, progs[i].Program, bpf.LadderProgram(s))
		}
	}
	for i, s := range FineSteps {
		if p := progs[len(bpf.LadderSteps)+i]; p.Program != bpf.FineProgram(s) {
			t.Errorf("fine rung %d is %s, want %s", i, p.Program, bpf.FineProgram(s))
		}
	}
	if FineSteps[0] == 0 || !slices.Contains(bpf.LadderSteps, bpf.FineBase) {
		t.Errorf("fine steps %v on base %d", FineSteps, bpf.FineBase)
	}
}

// A pair whose steps cost less than the resolution is not judged by its
// cost, but one that reads faster than the rung below by more than the
// resolution still fails: two rungs swapped on a noisy run.
func TestOrderBelowResolution(t *testing.T) {
	within := results.Estimate{Point: 1, Lower: -9, Upper: 11}
	for _, tt := range []struct {
		name string
		top  results.Estimate
		want string
	}{
		{"noise", results.Estimate{Point: -5, Lower: -15, Upper: 5}, ""},
		{"swapped", results.Estimate{Point: -25, Lower: -40, Upper: -10}, "ladder_32 is faster than ladder_16 by more than the resolution"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := &results.Validation{Steps: testSteps, Names: []string{"ladder_0", "ladder_8", "ladder_16", "ladder_32"}, PerStep: 1, Resolution: 20, RunResolution: 20,
				Runs: []results.ValidationRun{{Steps: []results.Estimate{{}, within, within, tt.top}}}}
			failures := strings.Join(orderFailures(v), "\n")
			if tt.want == "" && failures != "" || !strings.Contains(failures, tt.want) {
				t.Errorf("failures %q, want %q", failures, tt.want)
			}
			if len(v.Unjudged) != 3 {
				t.Errorf("not judged %q, want every pair", v.Unjudged)
			}
		})
	}
}

// Runs taken together resolve a step that no run resolves alone, and
// judge it: in order it passes, swapped it fails over the runs.
func TestOrderOverRuns(t *testing.T) {
	steps, names := []int{0, 1, 2, 4}, []string{"ladder_0", "ladder_1", "ladder_2", "ladder_4"}
	at := func(point float64) results.Estimate {
		return results.Estimate{Point: point, Lower: point - 3, Upper: point + 3}
	}
	for _, tt := range []struct {
		name string
		top  float64 // ladder_2 -> ladder_4 in each run; two steps cost 2 ns
		want string
	}{
		{"in order", 2, ""},
		{"swapped", -2, "over the 3 runs: ladder_4 is not slower than ladder_2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := &results.Validation{Steps: steps, Names: names, PerStep: 1}
			for range 3 {
				v.Runs = append(v.Runs, results.ValidationRun{Steps: []results.Estimate{{}, at(1), at(1), at(tt.top)}})
			}
			v.RunResolution = 3
			v.Combined = make([]results.Estimate, len(steps))
			for i := 1; i < len(steps); i++ {
				v.Combined[i] = combine(v.Runs, func(r results.ValidationRun) results.Estimate { return r.Steps[i] })
			}
			v.Resolution = halfWidth(v.Combined[3])
			if want := 3 / math.Sqrt(3); math.Abs(v.Resolution-want) > 1e-9 {
				t.Fatalf("three runs of ±3 ns: ±%.3f ns together, want ±%.3f", v.Resolution, want)
			}
			failures := strings.Join(orderFailures(v), "\n")
			if tt.want == "" && failures != "" || !strings.Contains(failures, tt.want) {
				t.Errorf("failures %q, want %q", failures, tt.want)
			}
			if want := []string{"ladder_0 → ladder_1", "ladder_1 → ladder_2"}; !slices.Equal(v.Unjudged, want) {
				t.Errorf("not judged %q, want %q: two steps resolve over three runs", v.Unjudged, want)
			}
		})
	}
}
