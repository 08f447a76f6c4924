package host

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/results"
)

// A /proc/stat of a 2-CPU machine, as a 6.x kernel writes it.
const statFixture = `cpu  239042 66 116064 1638019 1934 0 5182 13197 0 0
cpu0 125083 30 15287 861122 1276 0 4608 6992 0 0
cpu1 113958 35 100777 776897 658 0 573 6205 0 0
intr 11660077 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
ctxt 28129370
btime 1760000000
processes 25175
procs_running 1
procs_blocked 0
softirq 4217651 1 1014437 38 142208 9 0 14 1489004 0 1571940
`

func TestParseProcStat(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []cpuTimes
		err        bool
	}{
		{name: "6.x kernel", text: statFixture, want: []cpuTimes{
			{cpu: 0, user: 125083, nice: 30, system: 15287, idle: 861122, iowait: 1276, irq: 0, softirq: 4608, steal: 6992},
			{cpu: 1, user: 113958, nice: 35, system: 100777, idle: 776897, iowait: 658, irq: 0, softirq: 573, steal: 6205},
		}},
		{name: "offline CPU left out, no trailing newline",
			text: "cpu  3 0 3 30 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0\ncpu2 2 0 2 20 0 0 0 0",
			want: []cpuTimes{{cpu: 0, user: 1, system: 1, idle: 10}, {cpu: 2, user: 2, system: 2, idle: 20}}},
		{name: "old kernel: no iowait, irq, softirq, steal",
			text: "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 0\n",
			want: []cpuTimes{{cpu: 0, user: 1, nice: 2, system: 3, idle: 4}}},
		{name: "steal, no guest",
			text: "cpu0 1 2 3 4 5 6 7 8\n",
			want: []cpuTimes{{cpu: 0, user: 1, nice: 2, system: 3, idle: 4, iowait: 5, irq: 6, softirq: 7, steal: 8}}},
		{name: "more fields than known",
			text: "cpu0 1 2 3 4 5 6 7 8 9 10 11 12\n",
			want: []cpuTimes{{cpu: 0, user: 1, nice: 2, system: 3, idle: 4, iowait: 5, irq: 6, softirq: 7, steal: 8}}},
		{name: "CPU lines after others are not read",
			text: "cpu0 1 2 3 4\nintr 5\ncpu1 1 2 3 4\n",
			want: []cpuTimes{{cpu: 0, user: 1, nice: 2, system: 3, idle: 4}}},
		{name: "too few fields", text: "cpu0 1 2 3\n", err: true},
		{name: "not a number", text: "cpu0 1 2 3 4 x 6\n", err: true},
		{name: "negative", text: "cpu0 1 2 -3 4\n", err: true},
		{name: "no CPU number", text: "cpux 1 2 3 4\n", err: true},
		{name: "no CPU lines", text: "intr 1 2 3\nctxt 4\n", err: true},
		{name: "empty", text: "", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProcStat(nil, []byte(tc.text))
			if tc.err {
				if err == nil {
					t.Fatalf("got %+v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// Parsing into a slice with room allocates nothing: mark runs between
// rounds on the measuring thread.
func TestParseProcStatAllocs(t *testing.T) {
	dst, text := make([]cpuTimes, 0, 4), []byte(statFixture)
	allocs := testing.AllocsPerRun(100, func() {
		dst, _ = parseProcStat(dst, text)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per parse, want 0", allocs)
	}
}

func TestCPUTimes(t *testing.T) {
	a := cpuTimes{cpu: 1, user: 10, nice: 1, system: 5, idle: 100, iowait: 4, irq: 2, softirq: 3, steal: 1}
	b := cpuTimes{cpu: 1, user: 20, nice: 1, system: 10, idle: 150, iowait: 3, irq: 4, softirq: 5, steal: 3}
	if got := a.total(); got != 126 {
		t.Errorf("total %d, want 126", got)
	}
	if got := a.busy(); got != 22 {
		t.Errorf("busy %d, want 22 (all but idle and iowait)", got)
	}
	// iowait went back: counts zero, not a huge unsigned number.
	d := b.sub(a)
	want := cpuTimes{cpu: 1, user: 10, system: 5, idle: 50, irq: 2, softirq: 2, steal: 2}
	if d != want {
		t.Errorf("b-a = %+v, want %+v", d, want)
	}
}

func TestParseLoadavg(t *testing.T) {
	for _, tc := range []struct {
		text     string
		avg1     float64
		runnable int
		err      bool
	}{
		{text: "0.42 0.34 0.39 1/104 25175\n", avg1: 0.42, runnable: 1},
		{text: "12.50 8.00 4.00 17/2048 99", avg1: 12.5, runnable: 17},
		{text: "0.42 0.34 0.39", err: true},
		{text: "x 0.34 0.39 1/104 25175", err: true},
		{text: "0.42 0.34 0.39 y/104 25175", err: true},
	} {
		avg1, runnable, err := parseLoadavg(tc.text)
		if (err != nil) != tc.err || avg1 != tc.avg1 || runnable != tc.runnable {
			t.Errorf("%q: got %v, %d, %v; want %v, %d, error %v", tc.text, avg1, runnable, err, tc.avg1, tc.runnable, tc.err)
		}
	}
}

func TestTaskState(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want byte
	}{
		{"4242 (xdpmicro) R 1 4242 4242 0 -1", 'R'},
		{"4243 (a) b) S 1 4243", 'S'},
		{"4244 (xdpmicro", 0},
		{"", 0},
	} {
		if got := taskState(tc.stat); got != tc.want {
			t.Errorf("%q: state %q, want %q", tc.stat, got, tc.want)
		}
	}
}

// The process's own threads that spin are counted as its own runnable
// tasks, which the load watch leaves out of the machine's. Go runs at most
// GOMAXPROCS threads at once (a preempted locked thread sleeps), so the
// spinners fill all but the reader's P and the count must reach GOMAXPROCS.
func TestOwnRunnable(t *testing.T) {
	if _, err := os.Stat(ownTasksPath); err != nil {
		t.Skip(err)
	}
	procs := runtime.GOMAXPROCS(0)
	if procs < 2 {
		t.Skip("GOMAXPROCS 1: a spinner and the reader cannot run at once")
	}
	spinners := procs - 1
	var started sync.WaitGroup
	stop := make(chan struct{})
	var done sync.WaitGroup
	started.Add(spinners)
	for range spinners {
		done.Add(1)
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			started.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	started.Wait()
	// A spinner parks for a moment when Go preempts it: the most of a
	// few readings.
	got := 0
	for range 50 {
		got = max(got, ownRunnable())
	}
	close(stop)
	done.Wait()
	// The spinners and the reading thread itself.
	if got < procs {
		t.Errorf("%d own runnable threads with %d spinning, want at least %d", got, spinners, procs)
	}
}

func TestParsePressure(t *testing.T) {
	for _, tc := range []struct {
		text string
		want float64
		err  bool
	}{
		{text: "some avg10=1.15 avg60=0.33 avg300=0.18 total=537440942\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", want: 0.0115},
		{text: "full avg10=3.00 avg60=0 avg300=0 total=0\nsome avg10=50.00 avg60=0 avg300=0 total=1\n", want: 0.5},
		{text: "full avg10=3.00 avg60=0 avg300=0 total=0\n", err: true},
		{text: "some avg10=x avg60=0\n", err: true},
	} {
		got, err := parsePressure(tc.text)
		if (err != nil) != tc.err || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%q: got %v, %v; want %v, error %v", tc.text, got, err, tc.want, tc.err)
		}
	}
}

func TestCPUList(t *testing.T) {
	for _, tc := range []struct {
		text   string
		want   []int
		format string
		err    bool
	}{
		{text: "", want: nil, format: ""},
		{text: "\n", want: nil, format: ""},
		{text: "3\n", want: []int{3}, format: "3"},
		{text: "1-3", want: []int{1, 2, 3}, format: "1,2,3"},
		{text: "0,2-7,9-10,12", want: []int{0, 2, 3, 4, 5, 6, 7, 9, 10, 12}, format: "0,2-7,9,10,12"},
		{text: "(null)\n", err: true}, // nohz_full when unset
		{text: "3-1", err: true},
		{text: "1,,2", err: true},
	} {
		got, err := parseCPUList(tc.text)
		if tc.err {
			if !errors.Is(err, errCPUList) {
				t.Errorf("%q: got %v, %v; want %v", tc.text, got, err, errCPUList)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %v, %v; want %v", tc.text, got, err, tc.want)
		}
		if f := formatCPUList(got); f != tc.format {
			t.Errorf("format %v: got %q, want %q", got, f, tc.format)
		}
	}
}

// step is a stretch of a made-up run: each CPU's time in it, in percent.
type step struct {
	d              time.Duration
	busy, irq, stl []uint64 // per CPU: busy (all of it user), irq+softirq and steal ticks per 100
}

// simulate plays steps on a machine of len(busy) CPUs, measuring on cpu,
// marking after every step as the watch does, and summarizes.
func simulate(cpu int, steps []step, start, end loadSnapshot) results.MachineLoad {
	return simulatePreempted(cpu, steps, start, end, 0)
}

// simulatePreempted is simulate with the measuring thread preempted that
// many times.
func simulatePreempted(cpu int, steps []step, start, end loadSnapshot, preempted int) results.MachineLoad {
	n := len(steps[0].busy)
	now := make([]cpuTimes, n)
	for c := range now {
		now[c] = cpuTimes{cpu: c, user: 1000, idle: 50000} // since boot
	}
	first := slices.Clone(now)
	var segments []loadSegment
	for _, s := range steps {
		prev := slices.Clone(now)
		ticks := uint64(s.d/time.Millisecond) * 10 // finer than real ticks: exact percentages
		for c := range now {
			busy, irq, stl := s.busy[c]*ticks/100, s.irq[c]*ticks/100, s.stl[c]*ticks/100
			now[c].user += busy
			now[c].irq += irq / 2
			now[c].softirq += irq - irq/2
			now[c].steal += stl
			now[c].idle += ticks - busy - irq - stl
		}
		segments = append(segments, othersSegment(cpu, prev, now, s.d))
	}
	return summarize(cpu, first, now, segments, start, end, preempted)
}

// steady is n steps of d, each with the same per-CPU load.
func steady(n int, d time.Duration, busy, irq, stl []uint64) []step {
	s := make([]step, n)
	for i := range s {
		s[i] = step{d: d, busy: busy, irq: irq, stl: stl}
	}
	return s
}

func TestSummarize(t *testing.T) {
	zero4 := []uint64{0, 0, 0, 0}
	quiet := loadSnapshot{runnable: 1, avg1: 0.1}
	for _, tc := range []struct {
		name  string
		cpu   int
		steps []step
		want  results.MachineLoad
	}{
		{name: "quiet machine", cpu: 3,
			steps: steady(30, 100*time.Millisecond, []uint64{2, 2, 2, 100}, zero4, zero4),
			want:  results.MachineLoad{OtherCPUs: 3, OthersBusyStart: 0.02, OthersBusyEnd: 0.02, OthersBusyMin: 0.02, OthersBusyMax: 0.02}},
		{name: "interrupts and steal on the measuring CPU only", cpu: 1,
			steps: steady(20, 100*time.Millisecond, []uint64{10, 70, 10, 10}, []uint64{40, 20, 40, 40}, []uint64{50, 10, 50, 50}),
			want:  results.MachineLoad{IRQShare: 0.2, StealShare: 0.1, OtherCPUs: 3, OthersBusyStart: 1, OthersBusyEnd: 1, OthersBusyMin: 1, OthersBusyMax: 1}},
		{name: "load rises: start and end are the first and last second", cpu: 0,
			steps: append(steady(10, 100*time.Millisecond, []uint64{100, 0, 10, 0}, zero4, zero4),
				append(steady(10, 100*time.Millisecond, []uint64{100, 50, 50, 50}, zero4, zero4),
					steady(10, 100*time.Millisecond, []uint64{100, 90, 90, 90}, zero4, zero4)...)...),
			want: results.MachineLoad{OtherCPUs: 3, OthersBusyStart: 10.0 / 300, OthersBusyEnd: 0.9, OthersBusyMin: 10.0 / 300, OthersBusyMax: 0.9}},
		{name: "a burst in the middle", cpu: 0,
			steps: append(steady(10, 200*time.Millisecond, []uint64{100, 0, 0, 0}, zero4, zero4),
				append(steady(5, 200*time.Millisecond, []uint64{100, 100, 100, 100}, zero4, zero4),
					steady(10, 200*time.Millisecond, []uint64{100, 0, 0, 0}, zero4, zero4)...)...),
			want: results.MachineLoad{OtherCPUs: 3, OthersBusyStart: 0, OthersBusyEnd: 0, OthersBusyMin: 0, OthersBusyMax: 1}},
		{name: "one CPU: no others", cpu: 0,
			steps: steady(5, 100*time.Millisecond, []uint64{99}, []uint64{1}, []uint64{0}),
			want:  results.MachineLoad{IRQShare: 0.01}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := simulate(tc.cpu, tc.steps, quiet, quiet)
			check := func(what string, got, want float64) {
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("%s = %.4f, want %.4f", what, got, want)
				}
			}
			check("IRQShare", got.IRQShare, tc.want.IRQShare)
			check("StealShare", got.StealShare, tc.want.StealShare)
			check("OthersBusyStart", got.OthersBusyStart, tc.want.OthersBusyStart)
			check("OthersBusyEnd", got.OthersBusyEnd, tc.want.OthersBusyEnd)
			check("OthersBusyMin", got.OthersBusyMin, tc.want.OthersBusyMin)
			check("OthersBusyMax", got.OthersBusyMax, tc.want.OthersBusyMax)
			if got.OtherCPUs != tc.want.OtherCPUs {
				t.Errorf("OtherCPUs = %d, want %d", got.OtherCPUs, tc.want.OtherCPUs)
			}
		})
	}
}

func TestLoadWindows(t *testing.T) {
	seg := func(ms int, busy, total uint64) loadSegment {
		return loadSegment{d: time.Duration(ms) * time.Millisecond, busy: busy, total: total}
	}
	for _, tc := range []struct {
		name     string
		segments []loadSegment
		want     []loadSegment
	}{
		{name: "none", segments: nil, want: nil},
		{name: "shorter than a window: one", segments: []loadSegment{seg(100, 1, 10), seg(300, 3, 30)},
			want: []loadSegment{seg(400, 4, 40)}},
		{name: "a short rest joins the last window",
			segments: []loadSegment{seg(600, 6, 60), seg(600, 0, 60), seg(600, 60, 60), seg(100, 10, 10)},
			want:     []loadSegment{seg(1900, 76, 190)}},
		{name: "windows of whole segments",
			segments: []loadSegment{seg(600, 6, 60), seg(600, 0, 60), seg(600, 60, 60), seg(400, 40, 40), seg(100, 10, 10)},
			want:     []loadSegment{seg(1200, 6, 120), seg(1100, 110, 110)}},
		{name: "a long segment is a window of its own",
			segments: []loadSegment{seg(3000, 0, 300), seg(1000, 100, 100)},
			want:     []loadSegment{seg(3000, 0, 300), seg(1000, 100, 100)}},
	} {
		if got := loadWindows(tc.segments, time.Second); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// Each warning, from made-up runs on a 4-CPU machine measured on CPU 3;
// every fixture that should not warn is close to one that should.
func TestLoadWarnings(t *testing.T) {
	zero := []uint64{0, 0, 0, 0}
	idle := []uint64{3, 3, 3, 80} // the measuring CPU is 80 % busy
	busy := []uint64{85, 85, 85, 80}
	quiet := loadSnapshot{runnable: 1, avg1: 0.2}
	ms100 := 100 * time.Millisecond
	for _, tc := range []struct {
		name       string
		steps      []step
		start, end loadSnapshot
		preempted  int
		want       []string // substrings, one per warning, in order
	}{
		{name: "quiet", steps: steady(50, ms100, idle, zero, zero), start: quiet, end: quiet},
		{name: "steal 1 %: not more than the limit",
			steps: steady(50, ms100, idle, zero, []uint64{0, 0, 0, 1}), start: quiet, end: quiet},
		{name: "steal 2 %",
			steps: steady(50, ms100, idle, zero, []uint64{0, 0, 0, 2}), start: quiet, end: quiet,
			want: []string{"steal time on CPU 3 was 2.0 % of the run"}},
		{name: "interrupts 5 %: not more than the limit",
			steps: steady(50, ms100, idle, []uint64{0, 0, 0, 5}, zero), start: quiet, end: quiet},
		{name: "interrupts 8 %",
			steps: steady(50, ms100, idle, []uint64{0, 0, 0, 8}, zero), start: quiet, end: quiet,
			want: []string{"interrupts (irq+softirq) took 8.0 % of CPU 3 during the run"}},
		{name: "steady high load does not warn", steps: steady(50, ms100, busy, zero, zero), start: quiet, end: quiet},
		{name: "load rises",
			steps: append(steady(20, ms100, idle, zero, zero), steady(20, ms100, busy, zero, zero)...), start: quiet, end: quiet,
			want: []string{"load changed during the run: other CPUs 3 % busy at the start, 85 % at the end"}},
		{name: "load falls",
			steps: append(steady(20, ms100, busy, zero, zero), steady(20, ms100, idle, zero, zero)...), start: quiet, end: quiet,
			want: []string{"load changed during the run: other CPUs 85 % busy at the start, 3 % at the end"}},
		{name: "load rises by 24 points: not more than the limit",
			steps: append(steady(20, ms100, idle, zero, zero), steady(20, ms100, []uint64{27, 27, 27, 80}, zero, zero)...), start: quiet, end: quiet},
		{name: "a burst in the middle",
			steps: append(append(steady(20, ms100, idle, zero, zero), steady(20, ms100, busy, zero, zero)...), steady(20, ms100, idle, zero, zero)...),
			start: quiet, end: quiet,
			want: []string{"load changed during the run: other CPUs between 3 % and 85 % busy (3 % at the start, 3 % at the end)"}},
		{name: "a burst shorter than a window is diluted",
			steps: append(append(steady(20, ms100, idle, zero, zero), steady(2, ms100, busy, zero, zero)...), steady(18, ms100, idle, zero, zero)...),
			start: quiet, end: quiet},
		{name: "runnable tasks rise and take the measuring CPU",
			steps: steady(50, ms100, idle, zero, zero), start: quiet, end: loadSnapshot{runnable: 3, avg1: 1.5}, preempted: 50,
			want: []string{"runnable tasks changed during the run: 1 at the start, 3 at the end (1-minute load average 0.20, then 1.50), and took CPU 3 from the measuring thread 50 times (10 a second)"}},
		{name: "runnable tasks rise elsewhere: the measuring thread kept its CPU",
			steps: steady(50, ms100, idle, zero, zero), start: quiet, end: loadSnapshot{runnable: 3, avg1: 1.5}, preempted: 49},
		{name: "one more runnable task is not marked",
			steps: steady(50, ms100, idle, zero, zero), start: quiet, end: loadSnapshot{runnable: 2, avg1: 0.9}},
		{name: "everything at once",
			steps: append(steady(20, ms100, idle, []uint64{0, 0, 0, 10}, []uint64{0, 0, 0, 5}), steady(20, ms100, busy, []uint64{0, 0, 0, 10}, []uint64{0, 0, 0, 5})...),
			start: loadSnapshot{runnable: 6}, end: quiet, preempted: 1000,
			want: []string{"steal time on CPU 3 was 5.0 %", "interrupts (irq+softirq) took 10.0 %", "other CPUs 3 % busy at the start, 85 % at the end", "6 at the start, 1 at the end"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := simulatePreempted(3, tc.steps, tc.start, tc.end, tc.preempted).Warnings
			if len(got) != len(tc.want) {
				t.Fatalf("got %d warnings %q, want %d: %q", len(got), got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("warning %d: got %q, want it to contain %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// The threshold of runnable tasks grows with the machine.
func TestRunnableWarningScales(t *testing.T) {
	for _, tc := range []struct {
		cpus, from, to int
		warn           bool
	}{
		{cpus: 1, from: 1, to: 2, warn: false},
		{cpus: 1, from: 1, to: 3, warn: true},
		{cpus: 2, from: 3, to: 1, warn: true},
		{cpus: 64, from: 1, to: 20, warn: false},
		{cpus: 64, from: 1, to: 33, warn: true},
	} {
		w := loadWarnings(results.MachineLoad{RunnableStart: tc.from, RunnableEnd: tc.to, Preemptions: 100, Watched: time.Second}, 0, tc.cpus)
		if (len(w) > 0) != tc.warn {
			t.Errorf("%d CPUs, %d to %d runnable: warnings %q, want a warning: %v", tc.cpus, tc.from, tc.to, w, tc.warn)
		}
	}
}

// The real /proc/stat, read as the watch reads it, has plausible values:
// one line per online CPU, each about as much time as the machine has been
// up.
func TestReadProcStat(t *testing.T) {
	cpus, err := readStat()
	if err != nil {
		t.Fatal(err)
	}
	if text, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		online, err := parseCPUList(string(text))
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, c := range cpus {
			got = append(got, c.cpu)
		}
		if !slices.Equal(got, online) {
			t.Errorf("/proc/stat has CPUs %v, /sys says %v are online", got, online)
		}
	}
	text, err := os.ReadFile("/proc/uptime")
	if err != nil {
		t.Fatal(err)
	}
	f, _, _ := strings.Cut(string(text), " ")
	uptime, err := strconv.ParseFloat(f, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cpus {
		ticks := float64(c.total())
		if ticks > uptime*100*1.05 || (c.cpu == 0 && ticks < uptime*100*0.5) {
			t.Errorf("CPU %d: %.0f ticks since boot, up %.0f s: want about %.0f", c.cpu, ticks, uptime, uptime*100)
		}
		if c.busy() > c.total() || c.idle == 0 {
			t.Errorf("CPU %d: implausible %+v", c.cpu, c)
		}
	}
}

// The watch on the real machine: marks are rate-limited, cheap in
// allocations, and the MachineLoad it returns is plausible.
func TestLoadWatchReal(t *testing.T) {
	w := WatchMachine(0)
	if w.err != nil {
		t.Fatal(w.err)
	}
	for range 3 {
		w.Mark() // too soon: ignored
		time.Sleep(110 * time.Millisecond)
		w.Mark()
	}
	if len(w.segments) != 3 {
		t.Errorf("%d segments after 3 marks 110 ms apart and 3 too soon, want 3", len(w.segments))
	}
	if allocs := testing.AllocsPerRun(20, func() { w.prevAt = time.Time{}; w.Mark() }); allocs != 0 {
		t.Errorf("mark allocates %v times, want 0", allocs)
	}
	l := w.Finish(0)
	for _, warning := range l.Warnings {
		if strings.HasPrefix(warning, "load not watched") {
			t.Fatal(warning)
		}
	}
	for name, share := range map[string]float64{"irq": l.IRQShare, "steal": l.StealShare,
		"others start": l.OthersBusyStart, "others end": l.OthersBusyEnd} {
		if share < 0 || share > 1 {
			t.Errorf("%s share %v, want one in [0, 1]", name, share)
		}
	}
	if l.OtherCPUs != len(w.first)-1 {
		t.Errorf("%d other CPUs, want %d", l.OtherCPUs, len(w.first)-1)
	}
	if l.OtherCPUs > 0 && !(l.OthersBusyMin <= l.OthersBusyStart && l.OthersBusyStart <= l.OthersBusyMax &&
		l.OthersBusyMin <= l.OthersBusyEnd && l.OthersBusyEnd <= l.OthersBusyMax) {
		t.Errorf("others: start %v and end %v not within [%v, %v]", l.OthersBusyStart, l.OthersBusyEnd, l.OthersBusyMin, l.OthersBusyMax)
	}
	if l.RunnableStart < 0 || l.RunnableEnd < 0 {
		t.Errorf("runnable %d, then %d: this process's own threads taken off too often", l.RunnableStart, l.RunnableEnd)
	}
	if again := w.Finish(0); again.Warnings != nil || again.OtherCPUs != 0 {
		t.Errorf("finished twice: %+v", again)
	}
	t.Logf("%+v", l)
}

// A watch that could not start says so, and marking it is harmless.
func TestLoadWatchUnreadable(t *testing.T) {
	w := &Watch{err: fmt.Errorf("open %s: %w", procStatPath, os.ErrPermission)}
	w.Mark()
	if l := w.Finish(0); len(l.Warnings) != 1 || !strings.HasPrefix(l.Warnings[0], "load not watched: open /proc/stat") {
		t.Errorf("got %q", l.Warnings)
	}
	var none *Watch
	none.Mark()
	none.Finish(0)
}

func BenchmarkLoadWatchMark(b *testing.B) {
	w := WatchMachine(0)
	if w.err != nil {
		b.Fatal(w.err)
	}
	defer w.Finish(0)
	b.ReportAllocs()
	for b.Loop() {
		w.step(time.Now())
	}
}

// idleFor makes before and after readings of CPUs over 100 ms: busy[c]
// of 10 ticks busy on CPU c.
func idleFor(busy ...uint64) (before, after []cpuTimes) {
	for c, b := range busy {
		before = append(before, cpuTimes{cpu: c, user: 500, idle: 9000})
		after = append(after, cpuTimes{cpu: c, user: 500 + b, idle: 9000 + 10 - b})
	}
	return before, after
}

func TestRankCPUs(t *testing.T) {
	errStat := errors.New("no /proc/stat")
	for _, tc := range []struct {
		name               string
		allowed, iso, nohz []int
		busy               []uint64 // ticks of 10 per CPU; nil: load must not be read
		err                error
		want               []int
		why                string
	}{
		{name: "one allowed", allowed: []int{0}, want: []int{0}, why: "only CPU allowed"},
		{name: "one allowed but 0", allowed: []int{0, 1}, want: []int{1, 0}, why: "only allowed CPU other than 0"},
		{name: "isolated", allowed: []int{0, 1, 2, 3}, iso: []int{2}, nohz: []int{3}, want: []int{2}, why: "isolated"},
		{name: "isolated with 0", allowed: []int{0, 1, 2, 3}, iso: []int{0, 2}, want: []int{2, 0}, why: "isolated"},
		{name: "isolated but not allowed", allowed: []int{0, 1, 2, 3}, iso: []int{5}, nohz: []int{1}, want: []int{1}, why: "nohz_full"},
		{name: "least busy isolated", allowed: []int{0, 1, 2, 3}, iso: []int{2, 3},
			busy: []uint64{0, 0, 0, 5}, want: []int{2, 3}, why: "least busy of isolated 2,3 (idle 100 %)"},
		{name: "idle machine: the highest", allowed: []int{0, 1, 2, 3},
			busy: []uint64{0, 0, 0, 0}, want: []int{3, 2, 1, 0}, why: "least busy of 1,2,3 (idle 100 %)"},
		{name: "CPU 0 avoided even when idlest", allowed: []int{0, 1, 2},
			busy: []uint64{0, 5, 9}, want: []int{1, 2, 0}, why: "least busy of 1,2 (idle 50 %)"},
		{name: "busy shares a tick apart tie", allowed: []int{0, 1, 2, 3},
			busy: []uint64{0, 0, 1, 8}, want: []int{2, 1, 3, 0}, why: "least busy of 1,2,3 (idle 90 %)"},
		{name: "two ticks apart do not", allowed: []int{0, 1, 2, 3},
			busy: []uint64{0, 1, 3, 8}, want: []int{1, 2, 3, 0}, why: "least busy of 1,2,3 (idle 90 %)"},
		{name: "affinity narrower than the machine", allowed: []int{4, 5, 6, 7},
			busy: []uint64{0, 0, 0, 0, 5, 2, 9, 9}, want: []int{5, 4, 7, 6}, why: "least busy of 4-7 (idle 80 %)"},
		{name: "unreadable load", allowed: []int{0, 1, 2, 3}, busy: []uint64{}, err: errStat,
			want: []int{3, 2, 1, 0}, why: "highest of 1,2,3 (load unknown: no /proc/stat)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := false
			got, why := rankCPUs(tc.allowed, tc.iso, tc.nohz, func() ([]cpuTimes, []cpuTimes, error) {
				read = true
				before, after := idleFor(tc.busy...)
				return before, after, tc.err
			})
			if !slices.Equal(got, tc.want) || why != tc.why {
				t.Errorf("got %v %q, want %v %q", got, why, tc.want, tc.why)
			}
			if read != (tc.busy != nil) {
				t.Errorf("load read: %v, want %v", read, tc.busy != nil)
			}
		})
	}
}
