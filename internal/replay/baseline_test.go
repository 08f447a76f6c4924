package replay

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
)

// savedReplay is a replay whose replays read means, its one kind and
// path the same, at the floor given.
func savedReplay(floor float64, means ...float64) *results.Replay {
	kind := results.ReplayKind{Name: "XDP_TX: flows: hit", Packets: 10, ReplayMeans: means, Instructions: [2]uint64{56, 56}}
	path := results.ReplayPath{ID: 0, Name: "XDP_TX, 56 insns: flows: hit", Action: "XDP_TX", Packets: 10, ReplayMeans: means, Instructions: 56}
	return &results.Replay{Replays: len(means), ReplayMeans: means, Mean: predict(means), Floor: floor,
		Kinds: []results.ReplayKind{kind}, Paths: []results.ReplayPath{path}}
}

// A saved comparison: the same replays claim nothing; twice the cost is
// a regression, in the mean and in its group; a floor that moved 10 %
// between the runs widens the interval by 3 times that and says so; a
// group on one side only is named as such.
func TestCompareSaved(t *testing.T) {
	a := []float64{100, 104, 98, 101, 97}
	same := compareSaved(savedReplay(90, a...), savedReplay(90, a...), "baseline x", 0).Change
	if same.Verdict != string(results.NoChange) || same.Mean.Point != 0 || same.Kinds[0].Verdict != string(results.NoChange) {
		t.Errorf("the same replays: %+v", same)
	}
	// The host's wander alone: ±(1.96 × 3 % × √2) at least.
	if half := same.Mean.Upper - same.Mean.Point; half < 100*1.96*0.03*math.Sqrt2 {
		t.Errorf("interval ±%.1f %%: narrower than the host's wander", half)
	}
	twice := make([]float64, len(a))
	for i, x := range a {
		twice[i] = 2 * x
	}
	slower := compareSaved(savedReplay(90, a...), savedReplay(90, twice...), "baseline x", 1e7).Change
	if slower.Verdict != string(results.Regressed) || slower.Kinds[0].Verdict != string(results.Regressed) || slower.Paths[0].Verdict != string(results.Regressed) {
		t.Errorf("twice the cost: %s, kind %s, path %s; want regressed", slower.Verdict, slower.Kinds[0].Verdict, slower.Paths[0].Verdict)
	}
	if math.Abs(slower.Mean.Point-100) > 1e-9 || math.Abs(slower.Cores-1e7*slower.MeanNS*1e-9) > 1e-12 {
		t.Errorf("change %+.2f %%, cores %g", slower.Mean.Point, slower.Cores)
	}
	moved := compareSaved(savedReplay(90, a...), savedReplay(99, a...), "baseline x", 0).Change
	if half := moved.Mean.Upper - moved.Mean.Point; half < 30 || len(moved.Notes) != 1 {
		t.Errorf("a floor 10 %% slower: interval ±%.1f %%, notes %q; want ±30 %% or more and a note", half, moved.Notes)
	}
	other := savedReplay(90, a...)
	other.Kinds[0].Name, other.Paths[0].Name, other.Paths[0].First = "XDP_DROP: no map change", "XDP_DROP, 9 insns", 5
	apart := compareSaved(savedReplay(90, a...), other, "baseline x", 0).Change
	if len(apart.Kinds) != 2 || apart.Kinds[0].Verdict != onlyAfter || apart.Kinds[1].Verdict != onlyBefore {
		t.Errorf("kinds on one side only: %+v", apart.Kinds)
	}
}

// A baseline of other traffic is refused as bad input, before timing.
func TestBaselineOtherTraffic(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	o := options(t, "", flowtable(t))
	o.Synthetic = &Synthetic{Case: synthCase(t, "udp-dns"), Flows: 20, Packets: 200, Seed: 1}
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.Synthetic = &Synthetic{Case: synthCase(t, "udp-dns"), Flows: 20, Packets: 200, Seed: 2}
	o.Baseline, o.BaselineName = rep, "baseline seed-1"
	if _, err := Run(context.Background(), o); !errors.Is(err, badinput.Err) {
		t.Errorf("another seed against the baseline: %v, want bad input", err)
	}
	o.Synthetic.Seed = 1
	cmp, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Change == nil || cmp.Change.Against != "baseline seed-1" || cmp.Traffic != rep.Traffic {
		t.Errorf("the same traffic: change %+v, digests %s and %s", cmp.Change, cmp.Traffic, rep.Traffic)
	}
}

// The sequence is at most results.MaxReplayBins bins, whatever the
// packets, each bin's figures net of its replay's floor.
func TestSequenceBins(t *testing.T) {
	for _, n := range []int{1, 999, 1000, 1001, 1_000_000, MaxPackets} {
		c := &countPass{table: newPathTable(), ids: make([]uint16, n)}
		c.table.paths = []*path{{}}
		tm := newTiming(c, c, 2, 0)
		tm.floorSum, tm.floorN = []float64{10, 20}, []int{1, 1}
		for i := range n {
			tm.binSum[0][i/tm.binSize] += 110
			tm.binSum[1][i/tm.binSize] += 130
		}
		bins := tm.sequence()
		total := 0
		for _, b := range bins {
			total += b.Packets
			if b.Mean != 105 || b.Low != 100 || b.High != 110 {
				t.Fatalf("%d packets: bin %+v, want mean 105 from 100 to 110", n, b)
			}
		}
		if len(bins) > results.MaxReplayBins || total != n {
			t.Errorf("%d packets: %d bins holding %d packets", n, len(bins), total)
		}
	}
}
