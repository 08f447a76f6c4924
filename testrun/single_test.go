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

// A program that rewrites its frame, measured one run a call, costs what
// its twin costs that does the same loads and stores without touching the
// frame: single runs measure the program, not the copy of the frame.
func TestRewriterMatchesTwin(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	rewrite, cases := rewriteAndFizz(t)
	res, err := Run(context.Background(), Config{
		Programs: []Program{{Object: rewrite, Program: "swap_macs"}, {Object: rewrite, Program: "same_macs"}},
		Cases:    cases, CPU: -1, Samples: 300, Warmup: 100 * time.Millisecond,
		Floor: &Object{Name: "floor", ELF: bpf.Floor()}})
	if err != nil {
		t.Fatal(err)
	}
	swap, twin := res.Programs[0].Cases[0], res.Programs[1].Cases[0]
	if swap.Output == nil || twin.Output != nil || !swap.Single || !twin.Single {
		t.Fatalf("swap_macs changed the frame %v, same_macs %v; single runs %v, %v", swap.Output != nil, twin.Output != nil, swap.Single, twin.Single)
	}
	// The tool's figure for a single-run case: the low quantile of the
	// kernel's figures, less the floor's.
	low := func(c CaseResult) float64 {
		s := slices.Sorted(slices.Values(c.Samples))
		return stats.HarrellDavis(s, stats.DefaultLowQuantile)
	}
	floor := low(res.Floor.Cases[0])
	netSwap, netTwin := low(swap)-floor, low(twin)-floor
	// Judged round by round: the two are sampled next to each other, so
	// a slow phase of the machine moves both, where it can move one low
	// quantile and not the other.
	n := min(len(swap.Samples), len(twin.Samples))
	diffs := make([]float64, n)
	for i := range n {
		diffs[i] = swap.Samples[i] - twin.Samples[i]
	}
	slices.Sort(diffs)
	median := stats.Quantile(diffs, 0.5)
	t.Logf("net of the floor (%.2f ns): swap_macs %.2f ns, same_macs %.2f ns; median difference round by round %+.2f ns",
		floor, netSwap, netTwin, median)
	if math.Abs(median) > 1.5 {
		t.Errorf("swap_macs and its twin differ by %+.2f ns (median of %d rounds): more than 1.5 ns", median, n)
	}
}
