package engine

import (
	"math"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// A group never holds more anchored programs than the dispatcher leaves
// room for, and the loads spread evenly over as many groups as that takes.
func TestGroupLoads(t *testing.T) {
	two := []testrun.Program{{Label: "before"}, {Label: "after"}}
	thirteen := make([]testrun.Program, 13)
	for _, tt := range []struct {
		name string
		o    Config
		want int
	}{
		{"two of a program alone", Config{Programs: two[:1], Placements: 16, GroupLoads: 2}, 2},
		{"a comparison's default, one group", Config{Programs: two, Compared: true, Placements: 8, GroupLoads: 8}, 8},
		{"64 a build, in 4 groups of 16", Config{Programs: two, Compared: true, Placements: 64, GroupLoads: 64}, 16},
		{"the ladder, two a group", Config{Programs: thirteen, Placements: 9, GroupLoads: 2}, 2},
		{"the ladder, as many as fit", Config{Programs: thirteen, Placements: 9, GroupLoads: 9}, 3},
		{"asked for", Config{Programs: two[:1], Placements: 12, GroupLoads: 6}, 6},
		{"spread evenly", Config{Programs: two[:1], Placements: 10, GroupLoads: 4}, 4},
		{"one load", Config{Programs: two[:1], Placements: 1, GroupLoads: 2}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			size := (&runner{Config: tt.o}).groupLoads()
			if size != tt.want {
				t.Errorf("%d loads a group, want %d", size, tt.want)
			}
			held := size*len(tt.o.Programs) + testrun.FloorLoads(size)
			if held > testrun.DispatcherMax {
				t.Errorf("%d programs anchored at once, more than the dispatcher's %d", held, testrun.DispatcherMax)
			}
		})
	}
}

// Groups are added while the budget holds one more, at least the loads
// asked for, and no more once every estimate is precise; a fixed number
// of rounds takes exactly the loads asked for.
func TestAnotherGroup(t *testing.T) {
	o := runner{Config: Config{Programs: []testrun.Program{{}}, Placements: 16, Precision: 0.01, Budget: 5 * time.Second}}
	var none testrun.Result
	if !o.anotherGroup(1, 4, 4, 1, none, time.Second, 400*time.Millisecond) {
		t.Error("1 of 4 groups, 1 s of 5: stopped")
	}
	if o.anotherGroup(2, 4, 4, 1, none, 4500*time.Millisecond, 400*time.Millisecond) {
		t.Error("past the budget: went on")
	}
	fixed := o
	fixed.Precision, fixed.Budget = 0, 0
	if !fixed.anotherGroup(3, 4, 4, 1, none, time.Hour, time.Second) || fixed.anotherGroup(4, 4, 4, 1, none, 0, 0) {
		t.Error("fixed rounds: not exactly the groups asked for")
	}
}

// merge puts each group's loads after the loads so far, program by
// program and for the floor, and counts the groups.
func TestMerge(t *testing.T) {
	group := func(tag string) testrun.Result {
		return testrun.Result{
			Environment: results.Environment{KernelTime: time.Second, Notes: []string{"n"}},
			Programs: []testrun.ProgramResult{{Label: tag + "a0", Placements: []testrun.ProgramResult{{Label: tag + "a1"}}},
				{Label: tag + "b0", Placements: []testrun.ProgramResult{{Label: tag + "b1"}}}},
			Floor: &testrun.ProgramResult{Label: tag + "f0"},
		}
	}
	var total testrun.Result
	for g, tag := range []string{"x", "y", "z"} {
		merge(&total, group(tag), g)
	}
	labels := func(p testrun.ProgramResult) []string {
		out := []string{p.Label}
		for _, q := range p.Placements {
			out = append(out, q.Label)
			if len(q.Placements) > 0 {
				t.Errorf("load %s keeps loads of its own", q.Label)
			}
		}
		return out
	}
	for i, want := range [][]string{{"xa0", "xa1", "ya0", "ya1", "za0", "za1"}, {"xb0", "xb1", "yb0", "yb1", "zb0", "zb1"}, {"xf0", "yf0", "zf0"}} {
		p := total.Floor
		if i < 2 {
			p = &total.Programs[i]
		}
		if got := labels(*p); len(got) != len(want) || got[len(got)-1] != want[len(want)-1] || got[2] != want[2] {
			t.Errorf("loads %v, want %v", got, want)
		}
	}
	if env := total.Environment; env.Groups != 3 || env.KernelTime != 3*time.Second || len(env.Notes) != 1 {
		t.Errorf("environment: %d groups, kernel time %s, notes %q", env.Groups, env.KernelTime, env.Notes)
	}
}

// floorLoad is a floor load whose one case costs exactly slope ns a run.
func floorLoad(slope float64) testrun.ProgramResult {
	var c testrun.CaseResult
	for level := uint32(1); level <= 10; level++ {
		for range 5 {
			c.Runs = append(c.Runs, 100*level)
			c.Wall = append(c.Wall, 1000+slope*float64(100*level))
		}
	}
	return testrun.ProgramResult{Cases: []testrun.CaseResult{c}}
}

// A comparison's changes hold their size within the phase's spread: the
// run's floor over the recalled one, squared, the floor read both at the
// fastest group and as the mean over groups, the wider taken; nothing
// without a recalled floor.
func TestGroupsChangeSpread(t *testing.T) {
	floor := floorLoad(28)
	floor.Placements = []testrun.ProgramResult{floorLoad(40)}
	total := testrun.Result{Floor: &floor}
	o := runner{Config: Config{Estimator: stats.Slope, Stats: stats.DefaultOptions()}}
	if got := o.changeSpread(total, 20, 2); math.Abs(got-math.Pow(34.0/20, 2)) > 1e-6 {
		t.Errorf("groups' floors 28 and 40 ns against 20 recalled: spread %.4f, want the mean's (34/20)² = %.4f, wider than the fastest's 1.96", got, math.Pow(34.0/20, 2))
	}
	if got := o.changeSpread(total, 36, 2); math.Abs(got-math.Pow(36.0/28, 2)) > 1e-6 {
		t.Errorf("against 36 recalled: spread %.4f, want the fastest group's (36/28)² = %.4f, wider than the mean's", got, math.Pow(36.0/28, 2))
	}
	if got := o.changeSpread(total, 40, 1); math.Abs(got-math.Pow(40.0/34, 2)) > 1e-6 {
		t.Errorf("one group of both loads, 34 ns, against 40: spread %.4f, want (40/34)² = %.4f", got, math.Pow(40.0/34, 2))
	}
	if got := o.changeSpread(total, 0, 2); got != 1 {
		t.Errorf("no recalled floor: spread %v, want 1", got)
	}
}
