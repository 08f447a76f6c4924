package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

func TestCPUMoverMovesOffASlowPhase(t *testing.T) {
	held := map[int]bool{}
	m := &cpuMover{pool: []int{1, 0}, fast: map[int]float64{1: 5.0}, last: map[int]float64{}, lastAt: map[int]int{}, next: testrun.AnyCPU,
		held: func(cpu int) bool { return held[cpu] }}
	steps := []struct {
		cpu   int
		floor float64
		next  int
		why   string
	}{
		{1, 5.3, 1, "a floor at the recalled phase stays"},
		{1, 5.7, 1, "within twice the tolerance is noise, not a phase"},
		{1, 9.4, 1, "one slow group is no phase yet"},
		{1, 5.2, 1, "a fast one between starts the count again"},
		{1, 9.4, 1, "one slow group is no phase yet"},
		{1, 9.5, 0, "two in a row move to a CPU never read"},
		{0, 5.1, 0, "the new CPU reads fast: stay"},
		{0, 9.6, 0, "both slow, the other last read as slow: stay"},
		{0, 0, 0, "no floor read: nothing changes"},
	}
	for _, s := range steps {
		m.saw(s.cpu, s.floor)
		if got := m.cpu(); got != s.next {
			t.Fatalf("%s: after %.1f ns on CPU %d, next CPU %d, want %d", s.why, s.floor, s.cpu, got, s.next)
		}
	}
	// CPU 0's fast phase is now known (5.1 ns); CPU 1 read fast again.
	m.saw(1, 5.0)
	m.saw(1, 9.0)
	m.saw(1, 9.0)
	if got := m.cpu(); got != 1 {
		t.Fatalf("CPU 1 slow again, CPU 0 last read as slow (9.6 ns): next %d, want 1", got)
	}
	held[0] = true
	m.last[0] = 5.1
	m.saw(1, 9.2)
	if got := m.cpu(); got != 1 {
		t.Fatalf("CPU 0 held by another run: next %d, want 1", got)
	}
	held[0] = false
	m.saw(1, 9.2)
	if got := m.cpu(); got != 0 {
		t.Fatalf("CPU 0 free and last read fast: next %d, want 0", got)
	}
	held[0] = true
	if got := m.cpu(); got != testrun.AnyCPU {
		t.Fatalf("the chosen CPU taken by another run since: next %d, want AnyCPU", got)
	}
}

func TestCPUMoverNil(t *testing.T) {
	var m *cpuMover
	m.saw(1, 9)
	m.recall(nil, phases.History{}, "", testrun.Result{})
	if got := m.cpu(); got != testrun.AnyCPU {
		t.Fatalf("no mover: CPU %d, want AnyCPU", got)
	}
}

// A run whose every group reads its CPU slow measures two groups there,
// then the rest on another CPU, and says so; its loads are all kept.
func TestGroupsMoveOffASlowCPU(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	allowed, err := host.AllowedCPUs(testrun.AnyCPU)
	if err != nil {
		t.Fatal(err)
	}
	pool := host.MoveCandidates(allowed)
	if len(pool) < 2 {
		t.Skipf("CPUs %v allow no move", allowed)
	}
	v4, err := bpf.Lookup("v4")
	if err != nil {
		t.Fatal(err)
	}
	programs := []testrun.Program{{Object: testrun.Object{Name: "v4", ELF: v4.Object}, Program: v4.Program}}
	r, err := start(Config{Programs: programs, Cases: packets.DefaultMix(), CPU: testrun.AnyCPU, Placements: 8, GroupLoads: 2, Samples: 10, Started: time.Now(),
		Sampling: testrun.SamplingLinear, Estimator: stats.Slope, Stats: stats.DefaultOptions(), Compare: stats.CompareOptions{Options: stats.DefaultOptions()}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	// Every CPU's fast phase recalled far below any floor it can read.
	r.mover = &cpuMover{pool: pool, fast: map[int]float64{}, last: map[int]float64{}, lastAt: map[int]int{}, next: testrun.AnyCPU,
		held: func(int) bool { return false }}
	for _, c := range pool {
		r.mover.fast[c] = 1e-3
	}
	res, err := r.measureGroups(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cpus := res.Environment.GroupCPUs
	if len(cpus) != res.Environment.Groups || len(cpus) < 3 {
		t.Fatalf("%d groups measured on CPUs %v", res.Environment.Groups, cpus)
	}
	if cpus[0] != cpus[1] || cpus[2] == cpus[1] || cpus[0] != res.Environment.CPU {
		t.Errorf("groups on CPUs %v (the run's CPU %d): want two on the first, then another", cpus, res.Environment.CPU)
	}
	if got := 1 + len(res.Programs[0].Placements); got != 8 {
		t.Errorf("%d loads of v4 kept, want 8", got)
	}
}

// A CPU left because it read slow is tried again once its reading is
// stale: both CPUs slow, the run goes back and forth rather than stay.
func TestCPUMoverTriesAStaleCPUAgain(t *testing.T) {
	m := &cpuMover{pool: []int{1, 0}, fast: map[int]float64{1: 5.0, 0: 5.0}, last: map[int]float64{}, lastAt: map[int]int{},
		next: testrun.AnyCPU, held: func(int) bool { return false }}
	var cpus []int
	for range 12 {
		cpu := m.cpu()
		if cpu == testrun.AnyCPU {
			cpu = 1
		}
		cpus = append(cpus, cpu)
		m.saw(cpu, 9.4)
	}
	want := []int{1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}
	if !slices.Equal(cpus, want) {
		t.Errorf("both CPUs slow: groups on %v, want %v", cpus, want)
	}
}
