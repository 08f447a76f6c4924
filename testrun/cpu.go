package testrun

import (
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

// chooseCPU validates a requested CPU, or picks one when cpu is negative
// (see pickCPU). It also says why, in a few words.
func chooseCPU(cpu int) (int, string, error) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return 0, "", fmt.Errorf("read CPU affinity: %w", err)
	}
	var cpus []int
	for i := 0; len(cpus) < allowed.Count() && i < len(allowed)*64; i++ {
		if allowed.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	if len(cpus) == 0 {
		return 0, "", fmt.Errorf("%w to this process (its CPU affinity is empty)", ErrNoCPU)
	}
	if cpu >= 0 {
		if !slices.Contains(cpus, cpu) {
			return 0, "", fmt.Errorf("%w: CPU %d is not available to this process (allowed: %v)", ErrConfig, cpu, cpus)
		}
		return cpu, "requested", nil
	}
	cpu, why := pickCPU(cpus, readCPUList(isolatedPath), readCPUList(nohzFullPath), func() (before, after []cpuTimes, err error) {
		if before, err = readStat(); err != nil {
			return nil, nil, err
		}
		time.Sleep(cpuBusyWindow)
		after, err = readStat()
		return before, after, err
	})
	return cpu, why, nil
}

// pickCPU is chooseCPU's policy. Among the allowed CPUs it prefers the
// isolated ones, else the nohz_full ones, else all; of those, any but CPU
// 0; of those, the least busy over cpuBusyWindow, as load measures it from
// two readings of /proc/stat (called only when there is a choice).
func pickCPU(allowed, isolated, nohzFull []int, load func() (before, after []cpuTimes, err error)) (int, string) {
	pool, kind := allowed, ""
	if in := intersect(allowed, isolated); len(in) > 0 {
		pool, kind = in, "isolated"
	} else if in := intersect(allowed, nohzFull); len(in) > 0 {
		pool, kind = in, "nohz_full"
	}
	if len(pool) > 1 && pool[0] == 0 {
		pool = pool[1:]
	}
	if len(pool) == 1 {
		switch {
		case kind != "":
			return pool[0], kind
		case len(allowed) == 1:
			return pool[0], "only CPU allowed"
		default:
			return pool[0], "only allowed CPU other than 0"
		}
	}
	of := formatCPUList(pool)
	if kind != "" {
		of = kind + " " + of
	}
	highest := pool[len(pool)-1]
	before, after, err := load()
	if err != nil {
		return highest, fmt.Sprintf("highest of %s (load unknown: %v)", of, err)
	}
	busy := make(map[int]float64, len(pool))
	least := math.Inf(1)
	for _, c := range pool {
		a, okA := findCPU(before, c)
		b, okB := findCPU(after, c)
		if d := b.sub(a); okA && okB && d.total() > 0 {
			busy[c] = float64(d.busy()) / float64(d.total())
			least = min(least, busy[c])
		}
	}
	if len(busy) == 0 {
		return highest, fmt.Sprintf("highest of %s (load unknown)", of)
	}
	for _, c := range slices.Backward(pool) {
		if share, ok := busy[c]; ok && share <= least+cpuBusyTie {
			return c, fmt.Sprintf("least busy of %s (idle %.0f %%)", of, 100*(1-share))
		}
	}
	return highest, fmt.Sprintf("highest of %s", of) // not reached
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
