package testrun

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// Every case is checked, counted and sampled from the maps as loaded: the
// flow table's global counters show each case's one miss from zero, not
// the misses of the cases checked before it; the instrumented copy sees
// a first run that misses and a later one that hits, for every case; and
// each state's instructions are its path's.
func TestStatesStartFromTheMapsAsLoaded(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.TCPSyn, packets.UDPDNS})
	if err != nil {
		t.Fatal(err)
	}
	cases = packets.InStates(cases, []string{packets.StateFirst, packets.StateSteady})
	obj := kerneltest.ReadTestObject[Object](t, "flowtable.o")
	res, err := Run(context.Background(), Config{Programs: []Program{{Object: obj, Program: "flowtable"}}, Cases: cases,
		CPU: -1, Samples: MinSamples, Repeat: 100, Floor: &Object{Name: "floor", ELF: bpf.Floor()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Programs[0].Cases {
		var effects []string
		for _, e := range c.Effects {
			effects = append(effects, results.Effect(e).String())
		}
		got := strings.Join(effects, "; ")
		if !strings.Contains(got, "misses: 1,") || strings.Contains(got, "misses: 2") {
			t.Errorf("%s: effects %q: want the one miss of its own check, from zero", c.Case.Name, got)
		}
		switch {
		case c.FirstInstructions <= c.LaterInstructions || !c.PathChanges():
			t.Errorf("%s: first run %d, later %d instructions: want a longer first path (the miss)", c.Case.Name, c.FirstInstructions, c.LaterInstructions)
		case c.Case.State == packets.StateFirst && (c.Instructions != c.FirstInstructions || !c.Undone || c.Single):
			t.Errorf("%s: %d instructions, undone %v, single %v: want the first path's %d, as repeats through an undoer", c.Case.Name, c.Instructions, c.Undone, c.Single, c.FirstInstructions)
		case c.Case.State == packets.StateSteady && c.Instructions != c.LaterInstructions:
			t.Errorf("%s: %d instructions: want the later path's %d", c.Case.Name, c.Instructions, c.LaterInstructions)
		case c.Unrestored != "":
			t.Errorf("%s: unrestored %q", c.Case.Name, c.Unrestored)
		}
	}
	floor := res.Floor.Cases
	for i, c := range floor {
		if c.Undone != (cases[i].State == packets.StateFirst) || c.Single {
			t.Errorf("floor %s: undone %v, single %v: want the programs' sampling", c.Case.Name, c.Undone, c.Single)
		}
	}
}

// A first-state case's samples time the miss: the flow is deleted again
// before each call. Were it not, every call after the first would hit and
// the first state would read as the steady one.
func TestFirstStateTimesTheMiss(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.TCPSyn})
	if err != nil {
		t.Fatal(err)
	}
	cases = packets.InStates(cases, []string{packets.StateFirst, packets.StateSteady})
	obj := kerneltest.ReadTestObject[Object](t, "flowtable.o")
	res, err := Run(context.Background(), Config{Programs: []Program{{Object: obj, Program: "flowtable"}}, Cases: cases,
		CPU: -1, Samples: 20, Repeat: 1000, Sampling: SamplingFlat})
	if err != nil {
		t.Fatal(err)
	}
	first, steady := res.Programs[0].Cases[0].Samples, res.Programs[0].Cases[1].Samples
	// The miss hashes 48 rounds and walks the ring: several times the hit
	// on any host; medians, as single samples meet other work.
	if mf, ms := medianOf(first), medianOf(steady); !(mf > 3*ms) {
		t.Errorf("first %.1f ns, steady %.1f ns (medians): want the first state's miss several times the hit", mf, ms)
	}
}

// A first-state case's put-back is timed inside BPF, the program's and
// the floor's: the program's deletes the flow its run before inserted, in
// the LRU map flows it names with its size, and the floor's the same key
// of a shadow map that never holds it.
func TestFirstStatePutBackTimed(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.UDPDNS})
	if err != nil {
		t.Fatal(err)
	}
	cases = packets.InStates(cases, []string{packets.StateFirst})
	obj := kerneltest.ReadTestObject[Object](t, "flowtable.o")
	res, err := Run(context.Background(), Config{Programs: []Program{{Object: obj, Program: "flowtable"}}, Cases: cases,
		Floor: &Object{Name: "floor", ELF: bpf.Floor()}, CPU: -1, Samples: 10, Repeat: 1000, Sampling: SamplingFlat})
	if err != nil {
		t.Fatal(err)
	}
	if res.Floor == nil {
		t.Fatal("no floor")
	}
	for _, p := range append(slices.Clone(res.Programs), *res.Floor) {
		c := p.Cases[0]
		if !c.Undone || !(c.PutBack > 0) {
			t.Errorf("%s: undone %v, put-back %.1f ns: want it undone inside the kernel and its put-back timed", p.Info.Name, c.Undone, c.PutBack)
		}
		if p.Info.Name != "flowtable" {
			if c.LRUMap != "" {
				t.Errorf("the floor names LRU map %q: its shadow frees nothing the next run takes", c.LRUMap)
			}
			continue
		}
		if c.LRUMap != "flows" || c.LRUEntries != 4096 {
			t.Errorf("LRU %q of %d entries, want flows of 4096", c.LRUMap, c.LRUEntries)
		}
	}
}

func medianOf(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// Flows in turn: 64 flows fit the table, so after the first pass they
// hit; 8,000 do not fit its 4,096 entries, so every run misses. The
// replay says so, and each row's instructions lie between a hit's and a
// miss's.
func TestFlowsMissRate(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.TCPSyn})
	if err != nil {
		t.Fatal(err)
	}
	cases = packets.InStates(cases, []string{"flows=64", "flows=8000"})
	obj := kerneltest.ReadTestObject[Object](t, "flowtable.o")
	res, err := Run(context.Background(), Config{Programs: []Program{{Object: obj, Program: "flowtable"}}, Cases: cases,
		CPU: -1, Samples: MinSamples, Repeat: 100, Floor: &Object{Name: "floor", ELF: bpf.Floor()}})
	if err != nil {
		t.Fatal(err)
	}
	few, many := res.Programs[0].Cases[0], res.Programs[0].Cases[1]
	for _, c := range []CaseResult{few, many} {
		switch {
		case c.FlowReplay == nil || c.Single || !c.Restored || c.Calls < MinSamples:
			t.Fatalf("%s: replay %v, single %v, restored %v, %d runs: want repeats through the restorer", c.Case.Name, c.FlowReplay, c.Single, c.Restored, c.Calls)
		case c.Instructions < c.LaterInstructions || c.Instructions > c.FirstInstructions:
			t.Errorf("%s: %d instructions, outside a hit's %d and a miss's %d", c.Case.Name, c.Instructions, c.LaterInstructions, c.FirstInstructions)
		}
	}
	if r := few.FlowReplay; r.Misses != [2]int{64, 0} {
		t.Errorf("64 flows: misses %v a pass, want all then none", r.Misses)
	}
	if r := many.FlowReplay; r.Misses[0] != 8000 || r.Misses[1] != 8000 || many.FlowReplay.MissRate(many.Calls) != 1 {
		t.Errorf("8000 flows: misses %v a pass, rate %g: want every run", r.Misses, r.MissRate(many.Calls))
	}
	if rate := few.FlowReplay.MissRate(few.Calls); !(rate > 0 && rate < 1) {
		t.Errorf("64 flows over %d calls: miss rate %g", few.Calls, rate)
	}
}

// A case's expected output frame and map effects are held against its
// checking run before anything is timed: a match runs, a mismatch fails
// the run (not bad input), naming what differs.
func TestExpectedOutputAndEffects(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.TCPSyn})
	if err != nil {
		t.Fatal(err)
	}
	obj := kerneltest.ReadTestObject[Object](t, "flowtable.o")
	check := func(c packets.Case) error {
		_, err := Check(context.Background(), Config{Programs: []Program{{Object: obj, Program: "flowtable"}}, Cases: []packets.Case{c}, CPU: -1})
		return err
	}
	good := cases[0]
	good.ExpectOutput, good.CheckEffects = good.Frame, true
	good.ExpectEffects = []string{"map .bss: [0] set {stats: {hits: 0, misses: 1, drops: 0}, *}", "map flows: * set {backend: *, pad: 0, created_ns: *, packets: 1}"}
	if err := check(good); err != nil {
		t.Fatalf("as expected: %v", err)
	}
	otherFrame := good
	otherFrame.ExpectOutput = append([]byte(nil), good.Frame...)
	otherFrame.ExpectOutput[30] ^= 1
	missing := good
	missing.ExpectEffects = append(slices.Clone(good.ExpectEffects), "map flows: * deleted")
	unexpected := good
	unexpected.ExpectEffects = good.ExpectEffects[:1]
	for _, tt := range []struct {
		c    packets.Case
		want string
	}{
		{otherFrame, "the frame it left differs from the one expected (bytes 30 differ)"},
		{missing, `missing "map flows: * deleted"`},
		{unexpected, `unexpected "map flows:`},
	} {
		err := check(tt.c)
		if !errors.Is(err, object.ErrUnexpectedOutput) || errors.Is(err, badinput.Err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("got %v, want an unexpected output saying %q", err, tt.want)
		}
	}
}

// A hash map is read as far as it holds entries, not its max_entries: a
// flow table of a million slots shows, and puts back, the flow a case
// inserts (it was "not shown" over 65,536 entries).
func TestLargeHashMapEffects(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.TCPSyn})
	if err != nil {
		t.Fatal(err)
	}
	init, err := ParseMapInit("init.yaml", []byte("max_entries:\n  flows: 1000000\n"))
	if err != nil {
		t.Fatal(err)
	}
	obj := kerneltest.ReadTestObject[Object](t, "flowtable.o")
	res, err := Run(context.Background(), Config{Programs: []Program{{Object: obj, Program: "flowtable"}},
		Cases: packets.InStates(cases, []string{packets.StateFirst}), MapInit: init, CPU: -1, Samples: MinSamples, Repeat: 100})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Programs[0].Cases[0]
	var flows int
	for _, e := range c.Effects {
		if e.Map == "flows" && e.Change == "set" {
			flows++
		}
	}
	if flows != 1 || c.Unrestored != "" || strings.Contains(strings.Join(res.Environment.Notes, " "), "flows") {
		t.Errorf("effects %v, unrestored %q, notes %q: want the flow's insertion shown and put back", c.Effects, c.Unrestored, res.Environment.Notes)
	}
}

// Where an undoer cannot put the maps back (here: more entries than it
// writes), the first state falls back to one run a call, its maps put
// back from user space, and a note says why; it still times the miss.
func TestFirstStateWithoutUndoer(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.TCPSyn})
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { maxUndoWrites = n }(maxUndoWrites)
	maxUndoWrites = 1 // the flow table's miss changes two: the flow and the counters
	obj := kerneltest.ReadTestObject[Object](t, "flowtable.o")
	res, err := Run(context.Background(), Config{Programs: []Program{{Object: obj, Program: "flowtable"}}, Cases: packets.InStates(cases, []string{packets.StateFirst, packets.StateSteady}),
		CPU: -1, Samples: MinSamples, Repeat: 100, Floor: &Object{Name: "floor", ELF: bpf.Floor()}})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Programs[0].Cases[0]
	notes := strings.Join(res.Environment.Notes, "\n")
	if c.Undone || !c.Single || !res.Floor.Cases[0].Single || !strings.Contains(notes, "more than the 1 an undoer writes back") {
		t.Errorf("undone %v, single %v (floor %v), notes %q: want one run a call and why", c.Undone, c.Single, res.Floor.Cases[0].Single, notes)
	}
	if first, steady := medianOf(c.Samples), medianOf(res.Programs[0].Cases[1].Samples); !(first > 3*steady) {
		t.Errorf("first %.1f ns, steady %.1f ns (medians): want the miss several times the hit", first, steady)
	}
}

// A first-state case no undoer can serve, whose runs change more than is
// put back from user space before each call (an 8 MiB global and three
// 15 MiB slabs), is refused before sampling, not sampled for minutes.
func TestFirstStateTooDear(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.TCPSyn})
	if err != nil {
		t.Fatal(err)
	}
	obj := kerneltest.ReadTestObject[Object](t, "bigmaps.o")
	_, err = Run(context.Background(), Config{Programs: []Program{{Object: obj}}, Cases: packets.InStates(cases, []string{packets.StateFirst}),
		CPU: -1, Samples: MinSamples, Repeat: 100})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "time it in the steady state") {
		t.Errorf("got %v, want the first state refused", err)
	}
}
