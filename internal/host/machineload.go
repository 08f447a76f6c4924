package host

import (
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/xdpmicro/xdpmicro/results"
	"golang.org/x/sys/unix"
)

// Watching the machine's load during a run. A sample is only as good as
// the machine was quiet: interrupts and a hypervisor's stolen time land in
// the measuring CPU's timed loops, and the other CPUs share its caches,
// memory bandwidth and power budget. The watch cannot remove that, but it
// can say when it happened, so that a result is not trusted blindly.

// When the watch warns, and how it looks.
const (
	// stealWarn: stolen time means the hypervisor ran something else on
	// the measuring CPU; beyond 1 % of the run it shows in the samples.
	stealWarn = 0.01
	// irqWarn: an interrupt that lands in a timed loop lengthens it; on a
	// CPU left to the benchmark they take well under 1 %.
	irqWarn = 0.05
	// othersChangeWarn: a change this large in the other CPUs' load moves
	// the measured times (shared caches, memory, turbo budget), and moves
	// early samples differently from late ones.
	othersChangeWarn = 0.25
	// runnableChangeMin and runnableChangePerCPU: the runnable tasks
	// changed markedly when at least this many, and this many per CPU,
	// appeared or went; fewer come and go all the time.
	runnableChangeMin    = 2
	runnableChangePerCPU = 0.5
	// preemptionsWarn: the measuring thread made to give way this often a
	// second means other tasks ran on its CPU, between or inside samples.
	preemptionsWarn = 10
	// loadMarkEvery rate-limits mark: reading /proc/stat costs tens of µs.
	loadMarkEvery = 100 * time.Millisecond
	// loadWindow is the least time over which the other CPUs' load is
	// taken: over shorter ones, /proc/stat's 10 ms ticks and bursty loads
	// look like changes.
	loadWindow = time.Second
)

// loadSnapshot is the machine-wide load at one moment.
type loadSnapshot struct {
	runnable int
	avg1     float64
	pressure *float64
}

func readLoadSnapshot() loadSnapshot {
	var m loadSnapshot
	if text, err := os.ReadFile(procLoadavgPath); err == nil {
		m.avg1, m.runnable, _ = parseLoadavg(string(text))
		// xdpmicro's own threads are not load on the machine: counted,
		// they warned of a change that was only its workers finishing.
		m.runnable = max(0, m.runnable-ownRunnable())
	}
	if text, err := os.ReadFile(procPressurePath); err == nil {
		if p, err := parsePressure(string(text)); err == nil {
			m.pressure = &p
		}
	}
	return m
}

// loadSegment is the other CPUs' time between two marks, summed.
type loadSegment struct {
	d           time.Duration
	busy, total uint64
}

func (s loadSegment) share() float64 {
	if s.total == 0 {
		return 0
	}
	return float64(s.busy) / float64(s.total)
}

// othersSegment sums the time of every CPU but cpu from a to b.
func othersSegment(cpu int, a, b []cpuTimes, d time.Duration) loadSegment {
	s := loadSegment{d: d}
	for _, t := range b {
		if t.cpu == cpu {
			continue
		}
		if u, ok := findCPU(a, t.cpu); ok {
			dt := t.sub(u)
			s.busy += dt.busy()
			s.total += dt.total()
		}
	}
	return s
}

// Watch watches the load while a run measures on cpu. Its zero
// value's methods do nothing.
type Watch struct {
	cpu       int
	stat      *statReader
	first     []cpuTimes // at the start
	prev, cur []cpuTimes // at the last mark, and room for the next
	prevAt    time.Time
	segments  []loadSegment
	start     loadSnapshot
	err       error // why the watch could not start
}

// WatchMachine starts watching the load, for a run on cpu.
func WatchMachine(cpu int) *Watch {
	w := &Watch{cpu: cpu, start: readLoadSnapshot()}
	w.stat, w.err = openStat(procStatPath)
	if w.err != nil {
		return w
	}
	if w.first, w.err = w.stat.read(nil); w.err != nil {
		w.stat.close()
		return w
	}
	w.prev = slices.Clone(w.first)
	w.cur = make([]cpuTimes, 0, len(w.first))
	w.prevAt = time.Now()
	w.segments = make([]loadSegment, 0, 64)
	return w
}

// Mark ends a segment of the run, at most once per loadMarkEvery. It is
// called between rounds, on the measuring thread; it reads /proc/stat once
// and allocates nothing (but for the segment list's rare growth).
func (w *Watch) Mark() {
	if w == nil || w.err != nil || w.stat == nil {
		return
	}
	if now := time.Now(); now.Sub(w.prevAt) >= loadMarkEvery {
		w.step(now)
	}
}

func (w *Watch) step(now time.Time) {
	cur, err := w.stat.read(w.cur)
	if err != nil {
		// The next segment will cover this one too.
		w.cur = cur
		return
	}
	w.segments = append(w.segments, othersSegment(w.cpu, w.prev, cur, now.Sub(w.prevAt)))
	w.prev, w.cur, w.prevAt = cur, w.prev, now
}

// ThreadPreemptions reads the calling thread's involuntary context
// switches; 0 if it cannot.
func ThreadPreemptions() int {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return int(ru.Nivcsw)
}

// Finish ends the watch and says what it saw; preempted is how often
// the measuring thread was made to give way to another task.
func (w *Watch) Finish(preempted int) results.MachineLoad {
	if w == nil {
		return results.MachineLoad{}
	}
	if w.err != nil {
		return results.MachineLoad{Warnings: []string{fmt.Sprintf("load not watched: %v", w.err)}}
	}
	if w.stat == nil {
		return results.MachineLoad{} // finished already
	}
	w.step(time.Now())
	w.stat.close()
	w.stat = nil
	return summarize(w.cpu, w.first, w.prev, w.segments, w.start, readLoadSnapshot(), preempted)
}

// summarize computes the Load of a run on cpu from /proc/stat at its
// start and end, the segments between marks, and the machine's load at
// its start and end.
func summarize(cpu int, first, last []cpuTimes, segments []loadSegment, start, end loadSnapshot, preempted int) results.MachineLoad {
	l := results.MachineLoad{
		Preemptions:   preempted,
		RunnableStart: start.runnable, RunnableEnd: end.runnable,
		LoadAverageStart: start.avg1, LoadAverageEnd: end.avg1,
		PressureStart: start.pressure, PressureEnd: end.pressure,
	}
	a, okA := findCPU(first, cpu)
	b, okB := findCPU(last, cpu)
	if d := b.sub(a); okA && okB && d.total() > 0 {
		l.IRQShare = float64(d.irq+d.softirq) / float64(d.total())
		l.StealShare = float64(d.steal) / float64(d.total())
	}
	for _, seg := range segments {
		l.Watched += seg.d
	}
	l.OtherCPUs = len(last)
	if okB {
		l.OtherCPUs--
	}
	if ws := loadWindows(segments, loadWindow); l.OtherCPUs > 0 && len(ws) > 0 {
		l.OthersBusyStart, l.OthersBusyEnd = ws[0].share(), ws[len(ws)-1].share()
		l.OthersBusyMin, l.OthersBusyMax = math.Inf(1), math.Inf(-1)
		for _, w := range ws {
			l.OthersBusyMin = min(l.OthersBusyMin, w.share())
			l.OthersBusyMax = max(l.OthersBusyMax, w.share())
		}
	}
	l.Warnings = loadWarnings(l, cpu, len(last))
	return l
}

// loadWindows merges consecutive segments into windows at least window
// long; a shorter rest joins the last window. A run shorter than window
// is one window.
func loadWindows(segments []loadSegment, window time.Duration) []loadSegment {
	var ws []loadSegment
	var cur loadSegment
	for _, s := range segments {
		cur.d += s.d
		cur.busy += s.busy
		cur.total += s.total
		if cur.d >= window {
			ws = append(ws, cur)
			cur = loadSegment{}
		}
	}
	switch {
	case cur.d == 0 && cur.total == 0:
	case len(ws) == 0:
		ws = append(ws, cur)
	default:
		last := &ws[len(ws)-1]
		last.d += cur.d
		last.busy += cur.busy
		last.total += cur.total
	}
	return ws
}

// loadWarnings says what in l may have moved the samples of a run on cpu,
// on a machine of cpus online CPUs.
func loadWarnings(l results.MachineLoad, cpu, cpus int) []string {
	var w []string
	pct := func(share float64) float64 { return 100 * share }
	if l.StealShare > stealWarn {
		w = append(w, fmt.Sprintf("steal time on CPU %d was %.1f %% of the run: the hypervisor ran other work on it",
			cpu, pct(l.StealShare)))
	}
	if l.IRQShare > irqWarn {
		w = append(w, fmt.Sprintf("interrupts (irq+softirq) took %.1f %% of CPU %d during the run: samples they land in read slow",
			pct(l.IRQShare), cpu))
	}
	if l.OtherCPUs > 0 {
		if math.Abs(l.OthersBusyEnd-l.OthersBusyStart) > othersChangeWarn {
			w = append(w, fmt.Sprintf("load changed during the run: other CPUs %.0f %% busy at the start, %.0f %% at the end",
				pct(l.OthersBusyStart), pct(l.OthersBusyEnd)))
		} else if l.OthersBusyMax-l.OthersBusyMin > othersChangeWarn {
			w = append(w, fmt.Sprintf("load changed during the run: other CPUs between %.0f %% and %.0f %% busy (%.0f %% at the start, %.0f %% at the end)",
				pct(l.OthersBusyMin), pct(l.OthersBusyMax), pct(l.OthersBusyStart), pct(l.OthersBusyEnd)))
		}
	}
	change := l.RunnableEnd - l.RunnableStart
	if change < 0 {
		change = -change
	}
	// Tasks that come and go elsewhere move no figure; tasks that take the
	// measuring CPU from the measuring thread do.
	rate := 0.0
	if l.Watched > 0 {
		rate = float64(l.Preemptions) / l.Watched.Seconds()
	}
	if change >= max(runnableChangeMin, int(math.Ceil(runnableChangePerCPU*float64(cpus)))) && rate >= preemptionsWarn {
		w = append(w, fmt.Sprintf("runnable tasks changed during the run: %d at the start, %d at the end (1-minute load average %.2f, then %.2f), "+
			"and took CPU %d from the measuring thread %d times (%.0f a second)",
			l.RunnableStart, l.RunnableEnd, l.LoadAverageStart, l.LoadAverageEnd, cpu, l.Preemptions, rate))
	}
	return w
}
