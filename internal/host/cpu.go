package host

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// Choosing the CPU to measure on. CPUs differ, and so does what else runs
// on them: a CPU set apart from the scheduler (isolcpus, nohz_full) runs
// nothing but what is pinned to it; CPU 0 takes more of the machine's
// interrupts and housekeeping than the others; and a CPU that is busy now
// will likely stay busy.
const (
	// cpuBusyWindow is how long the candidates' load is watched.
	cpuBusyWindow = 100 * time.Millisecond
	// cpuBusyTie: busy shares this close are a tie, won by the highest
	// CPU. /proc/stat counts 10 ms ticks, ten over cpuBusyWindow, so one
	// tick more does not tell CPUs apart; and on an idle machine the
	// choice stays the same from run to run.
	cpuBusyTie = 0.10
)

// AllowedCPUs returns the CPUs this process may run on, ascending, and
// checks a requested CPU (not AnyCPU) against them.
func AllowedCPUs(requested int) ([]int, error) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return nil, fmt.Errorf("read CPU affinity: %w", err)
	}
	var cpus []int
	for i := 0; len(cpus) < allowed.Count() && i < len(allowed)*64; i++ {
		if allowed.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("%w to this process (its CPU affinity is empty)", ErrNoCPU)
	}
	if requested >= 0 && !slices.Contains(cpus, requested) {
		return nil, fmt.Errorf("%w: CPU %d is not available to this process (allowed: %v)", ErrCPU, requested, cpus)
	}
	return cpus, nil
}

// ChooseCPU takes the requested CPU, or ranks the allowed ones when
// requested is AnyCPU (rankCPUs), and claims the first whose lock is free,
// or waits (claimCPU): a requested CPU is waited for.
func ChooseCPU(ctx context.Context, requested int, allowed []int, notice func(string)) (*Claim, error) {
	order, why := []int{requested}, "requested"
	if requested < 0 {
		order, why = rankCPUs(allowed, readCPUList(isolatedPath), readCPUList(nohzFullPath), readLoad)
	}
	return claimCPU(ctx, cpuLockPrefix, order, why, notice)
}

// candidates is the pool ChooseCPU chooses from, and its kind: the
// allowed CPUs that are isolated, else those that are nohz_full, else all.
func candidates(allowed, isolated, nohzFull []int) (pool []int, kind string) {
	if in := intersect(allowed, isolated); len(in) > 0 {
		return in, "isolated"
	}
	if in := intersect(allowed, nohzFull); len(in) > 0 {
		return in, "nohz_full"
	}
	return allowed, ""
}

// MoveCandidates is where a run may move its measuring when its CPU
// meets a slow phase: the CPUs of the pool ChooseCPU chose from (never
// out of an isolated pool), highest first, CPU 0 last, as ChooseCPU
// ranks them without a load to go by.
func MoveCandidates(allowed []int) []int {
	pool, _ := candidates(allowed, readCPUList(isolatedPath), readCPUList(nohzFullPath))
	out := slices.Clone(pool)
	slices.SortFunc(out, func(a, b int) int {
		switch {
		case a == 0:
			return 1
		case b == 0:
			return -1
		}
		return b - a
	})
	return out
}

// readLoad reads /proc/stat twice, cpuBusyWindow apart.
func readLoad() (before, after []cpuTimes, err error) {
	if before, err = readStat(); err != nil {
		return nil, nil, err
	}
	time.Sleep(cpuBusyWindow)
	after, err = readStat()
	return before, after, err
}

// rankCPUs is ChooseCPU's policy: the CPUs to measure on, best first, and
// why the first. Among the allowed CPUs it prefers the isolated ones, else
// the nohz_full ones, else all: that pool is every candidate, for the CPUs
// outside it are those isolation keeps measurements away from, and
// waiting for an isolated CPU beats measuring among the housekeeping. Of
// the pool, any but CPU 0 come first, the least busy over cpuBusyWindow
// first, as load measures it from two readings of /proc/stat (called only
// when there is a choice).
//
// CPU 0 comes last, but comes: when other runs hold every other
// candidate, a free CPU 0 beats waiting. Waiting has no bound (the other
// run may sample for minutes), and what CPU 0 costs is known and told:
// its extra interrupts are watched like any CPU's (MachineLoad), the
// environment says the run moved, and comparisons warn when two runs'
// CPUs differ. Who must measure on one CPU, to compare with runs before,
// asks for it (--cpu) and waits for it: with AnyCPU the CPU already
// follows the load. Not told apart: an SMT sibling of a held CPU is free
// to take, though it shares that CPU's core.
func rankCPUs(allowed, isolated, nohzFull []int, load func() (before, after []cpuTimes, err error)) ([]int, string) {
	pool, kind := candidates(allowed, isolated, nohzFull)
	var last []int
	if len(pool) > 1 && pool[0] == 0 {
		pool, last = pool[1:], []int{0}
	}
	if len(pool) == 1 {
		switch {
		case kind != "":
			return append(pool, last...), kind
		case len(allowed) == 1:
			return pool, "only CPU allowed"
		default:
			return append(pool, last...), "only allowed CPU other than 0"
		}
	}
	of := formatCPUList(pool)
	if kind != "" {
		of = kind + " " + of
	}
	highestFirst := slices.Clone(pool)
	slices.Reverse(highestFirst)
	before, after, err := load()
	if err != nil {
		return append(highestFirst, last...), fmt.Sprintf("highest of %s (load unknown: %v)", of, err)
	}
	busy := make(map[int]float64, len(pool))
	for _, c := range pool {
		a, okA := findCPU(before, c)
		b, okB := findCPU(after, c)
		if d := b.sub(a); okA && okB && d.total() > 0 {
			busy[c] = float64(d.busy()) / float64(d.total())
		}
	}
	if len(busy) == 0 {
		return append(highestFirst, last...), fmt.Sprintf("highest of %s (load unknown)", of)
	}
	order := byLoad(highestFirst, busy)
	return append(order, last...), fmt.Sprintf("least busy of %s (idle %.0f %%)", of, 100*(1-busy[order[0]]))
}

// byLoad orders CPUs, given highest first, by their busy share: each
// time the highest of those within cpuBusyTie of the least busy left.
// CPUs of unknown load follow, highest first.
func byLoad(highestFirst []int, busy map[int]float64) []int {
	var known, unknown []int
	for _, c := range highestFirst {
		if _, ok := busy[c]; ok {
			known = append(known, c)
		} else {
			unknown = append(unknown, c)
		}
	}
	var order []int
	for len(known) > 0 {
		least := math.Inf(1)
		for _, c := range known {
			least = min(least, busy[c])
		}
		i := slices.IndexFunc(known, func(c int) bool { return busy[c] <= least+cpuBusyTie })
		order = append(order, known[i])
		known = slices.Delete(known, i, i+1)
	}
	return append(order, unknown...)
}

// intersect returns the CPUs in both ascending lists.
func intersect(a, b []int) []int {
	var in []int
	for _, c := range a {
		if slices.Contains(b, c) {
			in = append(in, c)
		}
	}
	return in
}
