package xdpmicro

import (
	"context"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/stats"
)

// v3's costliest paths by instructions, timed: in time the costliest
// pushes to the queue, and every path that pushes nothing, however many
// instructions it runs, is cheaper than every one that pushes (a helper
// call counts as one instruction, and costs tens of ns). The margin is
// several times the noise: v4's none class runs 3 ns net, its pushes 27.
func TestWorstV3Timed(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	seeds, err := packets.Select(packets.Names())
	if err != nil {
		t.Fatal(err)
	}
	search := WorstSearch{Program: Build("v3"), Seeds: seeds, Candidates: 30_000, Seed: 1, Top: 6}
	timing := &Options{Warmup: NoWarmup, Precision: stats.DefaultPrecision, Budget: 2 * time.Second, Stats: stats.DefaultOptions()}
	rep, err := Worst(context.Background(), search, timing, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Timed || len(rep.Packets) != 6 {
		t.Fatalf("timed %v, %d packets", rep.Timed, len(rep.Packets))
	}
	lowestPush, highestQuiet := 0, len(rep.Packets)+1
	for _, p := range rep.Packets {
		if p.ByTime == 0 || p.Net == nil {
			t.Fatalf("%s not timed", p.Name)
		}
		if len(p.Effects) > 0 {
			lowestPush = max(lowestPush, p.ByTime)
		} else {
			highestQuiet = min(highestQuiet, p.ByTime)
		}
		if p.ByTime == 1 && len(p.Effects) == 0 {
			t.Errorf("the costliest in time, %s, pushes nothing", p.Name)
		}
	}
	if highestQuiet > len(rep.Packets) || lowestPush == 0 {
		t.Fatalf("among the 6 costliest paths, none that pushes and none that does not: %+v", rep.Packets)
	}
	if highestQuiet <= lowestPush {
		t.Errorf("a packet that pushes nothing ranks %d by time, one that pushes %d", highestQuiet, lowestPush)
	}
	if rep.Packets[0].Costly == nil && rep.Packets[0].ByTime < len(rep.Packets) {
		t.Errorf("%s: nothing said of what makes it costly", rep.Packets[0].Name)
	}
}
