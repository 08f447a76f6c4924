package testrun

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/stats"
)

// A program that rewrites its frame costs what its twin costs that does
// the same loads and stores without touching the frame: measured one run a
// call, each with a fresh frame, and as repeats through the restorer, the
// figures are of the program, not of the copy of the frame.
func TestRewriterMatchesTwin(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	rewrite, cases := rewriteAndFizz(t)
	measure := func(single bool) (swap, twin, floor CaseResult) {
		res, err := Run(context.Background(), Config{
			Programs: []Program{{Object: rewrite, Program: "swap_macs"}, {Object: rewrite, Program: "same_macs"}},
			Cases:    cases, CPU: -1, Samples: 300, Warmup: 100 * time.Millisecond, Sampling: SamplingLinear,
			SingleRun: single, Restore: !single, Floor: &Object{Name: "floor", ELF: bpf.Floor()}})
		if err != nil {
			t.Fatal(err)
		}
		swap, twin = res.Programs[0].Cases[0], res.Programs[1].Cases[0]
		if swap.Output == nil || twin.Output != nil || swap.Single != single || twin.Single != single || swap.Restored == single || twin.Restored == single {
			t.Fatalf("swap_macs changed the frame %v, same_macs %v; single runs %v, %v; restored %v, %v",
				swap.Output != nil, twin.Output != nil, swap.Single, twin.Single, swap.Restored, twin.Restored)
		}
		return swap, twin, res.Floor.Cases[0]
	}

	// One run a call: the low quantile of the kernel's figures, judged
	// round by round: the two are sampled next to each other, so a slow
	// phase of the machine moves both, where it can move one low quantile
	// and not the other.
	swap, twin, floor := measure(true)
	low := func(c CaseResult) float64 {
		return stats.HarrellDavis(slices.Sorted(slices.Values(c.Samples)), stats.DefaultLowQuantile)
	}
	n := min(len(swap.Samples), len(twin.Samples))
	diffs := make([]float64, n)
	for i := range n {
		diffs[i] = swap.Samples[i] - twin.Samples[i]
	}
	slices.Sort(diffs)
	median := stats.Quantile(diffs, 0.5)
	t.Logf("one run a call, net of the floor (%.2f ns): swap_macs %.2f ns, same_macs %.2f ns; median difference round by round %+.2f ns",
		low(floor), low(swap)-low(floor), low(twin)-low(floor), median)
	if math.Abs(median) > 1.5 {
		t.Errorf("one run a call: swap_macs and its twin differ by %+.2f ns (median of %d rounds): more than 1.5 ns", median, n)
	}

	// Restored: the slopes.
	swap, twin, floor = measure(false)
	slope := func(c CaseResult) float64 {
		t.Helper()
		runs := make([]float64, len(c.Runs))
		for i, r := range c.Runs {
			runs[i] = float64(r)
		}
		s, err := stats.SlopeOf(stats.Timings{Runs: runs, Total: c.Wall}, false, stats.FitOptions{Options: stats.DefaultOptions()})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	diff := slope(swap) - slope(twin)
	t.Logf("restored, net of the floor (%.2f ns): swap_macs %.2f ns, same_macs %.2f ns: %+.2f ns",
		slope(floor), slope(swap)-slope(floor), slope(twin)-slope(floor), diff)
	if math.Abs(diff) > 1 {
		t.Errorf("restored: swap_macs and its twin differ by %+.2f ns: more than 1 ns", diff)
	}
}
