package engine

import (
	"os"
	"slices"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
	"gonum.org/v1/gonum/stat"
)

// Moving groups off a CPU in a slow phase. The slow phases are the
// CPU's, not the machine's (docs/measurement-notes.md, "Each CPU has slow
// phases of its own"): a run measured in one is scaled to the fast phase
// by as much as ×0.55, and carries half of it in its interval. So when
// groups read their floor well beyond that CPU's fast phase, the next
// group measures on another CPU, one not known to be slow. The groups'
// phase scaling then sees fast groups on either CPU.

// moveBeyond is how far above its CPU's fast phase a group's floor must
// read for the next group to move: twice the tolerance that tells phases
// apart. A fast run's groups read their floors up to 16 % above its
// fastest one here, where the CPUs' slow phases read 60 to 100 % above;
// a move on noise would mix two CPUs' own speeds (fact 3 of DESIGN.md)
// into the groups for nothing.
const moveBeyond = 2 * stats.PhaseTolerance

// slowGroupsToMove is how many groups in a row must read their CPU slow
// for the next to move: in ten runs here four moved on one group's
// reading (×1.18 to ×1.8) and the next groups read fast where they were;
// a slow phase lasts ten seconds or more, a hundred groups.
const slowGroupsToMove = 2

// staleGroups is how many groups after its last reading a CPU's floor
// stops counting: a CPU left for a slow one may have sped up since.
// Measured here, a run moved off CPU 1 onto CPU 0, found it slow as well
// and stayed: nine of its 17 groups were left out, its interval ±7 %.
// Slow groups are left out wherever they ran, so trying again costs
// nothing a slow CPU would not.
const staleGroups = 4

// cpuMover chooses the CPU of each group of a run that may choose.
type cpuMover struct {
	pool []int
	// fast is each CPU's fast floor: recalled from earlier runs, or the
	// lowest group floor this run read on it.
	fast map[int]float64
	// last is the floor of the last group on each CPU, and lastAt which
	// group of the run read it.
	last   map[int]float64
	lastAt map[int]int
	groups int
	// slow is how many groups in a row read the current CPU slow.
	slow int
	next int
	// held says whether a CPU's lock is held by another process: a CPU
	// another run measures on is no place to move to.
	held func(cpu int) bool
}

// newCPUMover is the run's mover, nil where the CPU was asked for, the
// run has no floor to tell phases by, or there is one CPU to measure on.
func (o *runner) newCPUMover() *cpuMover {
	if o.CPU != testrun.AnyCPU || o.NoFloor {
		return nil
	}
	allowed, err := host.AllowedCPUs(testrun.AnyCPU)
	if err != nil {
		return nil
	}
	pool := host.MoveCandidates(allowed)
	if len(pool) < 2 {
		return nil
	}
	self := os.Getpid()
	return &cpuMover{pool: pool, fast: map[int]float64{}, last: map[int]float64{}, lastAt: map[int]int{}, next: testrun.AnyCPU,
		held: func(cpu int) bool { h := host.CPULockHolder(cpu); return h != 0 && h != self }}
}

// cpu is the CPU the next group asks for; AnyCPU before the first, or
// when the chosen one is now another run's.
func (m *cpuMover) cpu() int {
	if m == nil || m.next == testrun.AnyCPU || m.held(m.next) {
		return testrun.AnyCPU
	}
	return m.next
}

// recall takes every candidate's fast floor from the phase history, as
// recall will key this run's: the first group has shown its floor loads.
func (m *cpuMover) recall(o *runner, h phases.History, boot string, total testrun.Result) {
	if m == nil {
		return
	}
	for _, cpu := range m.pool {
		if ref, ok := o.recalled(h, boot, total, cpu); ok {
			m.fast[cpu] = ref.Floor
		}
	}
}

func (m *cpuMover) fastOr(cpu int, or float64) float64 {
	if f, ok := m.fast[cpu]; ok {
		return f
	}
	return or
}

// saw takes a group's floor, read on cpu, and chooses the next group's
// CPU: the same, unless slowGroupsToMove groups in a row read it beyond
// moveBeyond of that CPU's fast phase; then the candidate expected fastest, its last floor this
// run (unless staleGroups old) or else its fast one, if that is below
// this one by as much. A candidate never read and never recalled is tried.
func (m *cpuMover) saw(cpu int, floor float64) {
	if m == nil || !(floor > 0) || !slices.Contains(m.pool, cpu) {
		return
	}
	m.groups++
	m.last[cpu], m.lastAt[cpu] = floor, m.groups
	m.fast[cpu] = min(floor, m.fastOr(cpu, floor))
	if cpu != m.next {
		m.slow = 0 // the group measured elsewhere than asked
	}
	m.next = cpu
	if floor <= m.fast[cpu]*(1+moveBeyond) {
		m.slow = 0
		return
	}
	if m.slow++; m.slow < slowGroupsToMove {
		return
	}
	best := floor / (1 + moveBeyond)
	for _, c := range m.pool {
		if c == cpu || m.held(c) {
			continue
		}
		expect, ok := m.last[c]
		if !ok || m.groups-m.lastAt[c] > staleGroups {
			expect = m.fastOr(c, 0)
		}
		if expect < best {
			m.next, best = c, expect
		}
	}
	if m.next != cpu {
		m.slow = 0
	}
}

// groupFloor is a group's floor: over the plain cases (not restored, not
// a run a call), the median of the mean of its floor loads' estimates; 0
// without one.
func (o *runner) groupFloor(res testrun.Result) float64 {
	points, plain, ok := o.floorPoints(res)
	if !ok {
		return 0
	}
	var floors []float64
	for ci, byLoad := range points {
		if plain[ci] {
			floors = append(floors, stat.Mean(byLoad, nil))
		}
	}
	if len(floors) == 0 {
		return 0
	}
	slices.Sort(floors)
	return floors[(len(floors)-1)/2]
}
