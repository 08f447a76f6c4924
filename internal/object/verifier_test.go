package object

import (
	"reflect"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

func TestParseVerifierLog(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		want      VerifierStats
	}{
		{"6.x", "verification time 1261 usec\nstack depth 0+40\nprocessed 2516 insns (limit 1000000) max_states_per_insn 4 total_states 40 peak_states 34 mark_read 0\n",
			VerifierStats{TimeMicros: 1261, Processed: 2516, TotalStates: 40, PeakStates: 34, MaxStatesPerInsn: 4, MarkRead: 0, StackDepths: []int{0, 40}}},
		{"without mark_read", "verification time 7 usec\nstack depth 8\nprocessed 99 insns (limit 1000000) max_states_per_insn 0 total_states 9 peak_states 9\n",
			VerifierStats{TimeMicros: 7, Processed: 99, TotalStates: 9, PeakStates: 9, MarkRead: -1, StackDepths: []int{8}}},
	} {
		got, err := parseVerifierLog(tc.log)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if _, err := parseVerifierLog("func#0 @0\n"); err == nil {
		t.Error("a log without statistics parsed")
	}
}

// The statistics come with the load that is measured, and agree with
// what the kernel keeps of it apart from the log: bpf_prog_info's
// verified_insns is the verifier's count of instructions processed.
func TestLoadKeepsVerifierStats(t *testing.T) {
	kerneltest.RequireBPF(t)
	l, err := Load(kerneltest.ReadTestObject[Object](t, "flowtable.o"), "flowtable")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	v := l.Verifier
	if v == nil {
		t.Fatal("no verifier statistics")
	}
	info, err := l.Prog.Info()
	if err != nil {
		t.Fatal(err)
	}
	if verified, ok := info.VerifiedInstructions(); ok && uint64(verified) != v.Processed {
		t.Errorf("the log says %d instructions processed, bpf_prog_info %d", v.Processed, verified)
	}
	if v.TotalStates == 0 || v.PeakStates == 0 || v.PeakStates > v.TotalStates {
		t.Errorf("states: %d in all, %d at the peak", v.TotalStates, v.PeakStates)
	}
	// flowtable calls a function of its own (the miss path): two depths.
	if len(v.StackDepths) != 2 {
		t.Errorf("stack depths %v, want one for each of 2 functions", v.StackDepths)
	}
	if v.XlatedInsns <= 0 {
		t.Errorf("%d xlated instructions", v.XlatedInsns)
	}
}

// The log at level 2 accounts for every instruction the verifier
// processed: each walked line, and each state pruned as seen.
func TestVerifierWalk(t *testing.T) {
	kerneltest.RequireBPF(t)
	for _, name := range [][2]string{{"flowtable.o", "flowtable"}, {"calls.o", "xdp_calls"}, {"largearrays.o", "count"}} {
		c, err := Choose(kerneltest.ReadTestObject[Object](t, name[0]), name[1], Settings{})
		if err != nil {
			t.Fatal(err)
		}
		counts, err := VerifierWalk(c.Spec, c.Info.Name)
		if err != nil {
			t.Fatalf("%s: %v", name[1], err)
		}
		l, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		var sum uint64
		for _, n := range counts {
			sum += n
		}
		if sum != l.Verifier.Processed || len(counts) == 0 {
			t.Errorf("%s: the walk counts %d over %d instructions, the measured load's statistics %d processed", name[1], sum, len(counts), l.Verifier.Processed)
		}
		l.Close()
	}
	if _, err := parseWalk("0: (b7) r0 = 2\n1: (95) exit\nprocessed 3 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n"); err == nil {
		t.Error("a log that shows 2 of 3 instructions passed")
	}
}
