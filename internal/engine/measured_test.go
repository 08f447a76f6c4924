package engine

import (
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// schemaOf carries everything report shows: the frame a program left,
// the other action of later runs, map effects, the environment's parts.
func TestMeasuredOf(t *testing.T) {
	cases, err := packets.Select([]string{packets.Fizz})
	if err != nil {
		t.Fatal(err)
	}
	in := cases[0]
	out := append([]byte{0xff}, in.Frame[1:]...)
	cpu := 1
	res := testrun.Result{
		Environment: results.Environment{Kernel: "k", Repeat: 7, Sampling: results.Sampling{Mode: string(testrun.SamplingLinear), Step: 100, Levels: 10},
			Dispatcher: results.Dispatcher{Anchored: true, Overhead: 2 * time.Microsecond}, MachineLoad: results.MachineLoad{Preemptions: 3},
			CPU: 0, CPULock: &results.CPULock{Path: "@xdpmicro-cpu0", Preferred: 1, HeldByOthers: []int{1}, Waited: time.Second}},
		Programs: []testrun.ProgramResult{{Label: "after", Info: testrun.ProgramInfo{Name: "p", Type: ebpf.XDP},
			Cases: []testrun.CaseResult{{Case: in, Return: 3, Action: "XDP_TX", Samples: []float64{1, 2}, Output: out,
				OtherReturns: 5, OtherReturn: 2, Effects: []testrun.Effect{{Map: "m", Change: "set", Key: "0", Value: "1", CPU: &cpu}},
				ContextChanges: []testrun.ContextChange{{Field: "mark", In: 1, Out: 2}}}},
			Placements: []testrun.ProgramResult{{Label: "after"}}}},
		Floor: &testrun.ProgramResult{Label: "floor"},
	}
	m := schemaOf(res)
	c := m.Programs[0].Results[0]
	switch {
	case m.Environment.Sampling.Step != 100 || !m.Environment.Dispatcher.Anchored || m.Environment.MachineLoad.Preemptions != 3:
		t.Errorf("environment: %+v", m.Environment)
	case m.Environment.CPULock == nil || fmt.Sprint(*m.Environment.CPULock) != fmt.Sprint(*res.Environment.CPULock):
		t.Errorf("CPU lock: %+v, want %+v", m.Environment.CPULock, res.Environment.CPULock)
	case c.Name != "fizz" || c.Source != in.Source.String() || c.Frame != hex.EncodeToString(in.Frame) || c.Length != len(in.Frame):
		t.Errorf("case: %+v", c)
	case c.OutputFrame != hex.EncodeToString(out) || c.OutputChanges != "bytes 0 differ" || c.OutputSummary == "":
		t.Errorf("output frame: %q, %q, %q", c.OutputFrame, c.OutputChanges, c.OutputSummary)
	case c.OtherReturns != 5 || c.OtherAction != "XDP_PASS":
		t.Errorf("other action: %d %q", c.OtherReturns, c.OtherAction)
	case len(c.Effects) != 1 || c.Effects[0].String() != "map m: [0] set 1 (CPU 1)" || len(c.ContextChanges) != 1 || c.ContextChanges[0].String() != "mark 0x1 -> 0x2":
		t.Errorf("effects %v, context changes %v", c.Effects, c.ContextChanges)
	case len(m.Programs[0].Placements) != 1 || m.Floor == nil || m.Floor.Label != "floor":
		t.Errorf("placements %d, floor %v", len(m.Programs[0].Placements), m.Floor)
	}
}
