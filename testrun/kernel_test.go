package testrun

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

func bundled(t *testing.T, name string) Object {
	t.Helper()
	b, err := bpf.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return Object{Name: b.Name, ELF: b.Object}
}

// loadBundled loads a bundled build's program, closed when the test ends.
func loadBundled(t *testing.T, name string) *object.Loaded {
	t.Helper()
	l, err := object.Load(object.Object(bundled(t, name)), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// allCases are the bundled programs' cases: the classes and the edges.
func allCases(t *testing.T) []packets.Case {
	t.Helper()
	cases, err := packets.Select(append(packets.Classes(), packets.High, packets.NonIPv4, packets.Short))
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// Every build returns what the README says for every case, and pushes what
// its version should: checked by popping the queue after one real run.
func TestBundledBehaviour(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	const (
		fizz, buzz, fizzbuzz, fibonacci = 1, 2, 3, 4
		nothing                         = -1
	)
	want := map[string]map[string]int64{
		"v2": {packets.Fizz: fizz, packets.Buzz: buzz, packets.FizzBuzz: fizzbuzz, packets.Fibonacci: nothing, packets.None: nothing, packets.High: nothing},
		"v3": {packets.Fizz: fizz, packets.Buzz: buzz, packets.FizzBuzz: fizzbuzz, packets.Fibonacci: fibonacci, packets.None: nothing, packets.High: nothing},
		"v4": {packets.Fizz: fizz, packets.Buzz: buzz, packets.FizzBuzz: fizzbuzz, packets.Fibonacci: fibonacci, packets.None: nothing, packets.High: nothing},
	}
	for _, b := range bpf.Builds() {
		t.Run(b.Name, func(t *testing.T) {
			l, err := object.Load(object.Object(bundled(t, b.Name)), "")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			queue := l.Maps()["verdicts"]
			for _, c := range allCases(t) {
				ret, _, _, err := l.RunOnce(c.Frame, nil)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if got, want := object.ActionName(ebpf.XDP, ret), packets.BundledExpect(c); got != want {
					t.Errorf("%s: returned %s, want %s", c.Name, got, want)
				}
				var pushed uint32
				popErr := queue.LookupAndDelete(nil, &pushed)
				if popErr != nil && !errors.Is(popErr, ebpf.ErrKeyNotExist) {
					t.Fatalf("%s: pop: %v", c.Name, popErr)
				}
				got := int64(-1)
				if popErr == nil {
					got = int64(pushed)
				}
				var expected int64
				switch {
				case c.Name == packets.NonIPv4 || c.Name == packets.Short:
					expected = nothing
				case b.Name == "v1":
					expected = int64(packets.HostOrder(c.Source))
				default:
					expected = want[b.Name][c.Name]
				}
				if got != expected {
					t.Errorf("%s: queue got %d, want %d", c.Name, got, expected)
				}
			}
		})
	}
}

// v3 and v4 classify every address of 192.0.2.0/24 as the story does,
// the Fibonacci test first (packets.Classify): run on each, with the queue
// popped after each run. v3's loop, the story's, finds no Fibonacci number
// in 0, where v4's list has it.
func TestBundledClassifyEveryOctet(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	verdicts := map[string]int64{packets.Fizz: 1, packets.Buzz: 2, packets.FizzBuzz: 3, packets.Fibonacci: 4, packets.None: -1}
	template := allCases(t)[0]
	for _, build := range []string{"v3", "v4"} {
		l := loadBundled(t, build)
		queue := l.Maps()["verdicts"]
		for octet := range 256 {
			frame := slices.Clone(template.Frame)
			frame[14+15] = byte(octet) // the last octet of the IPv4 source
			src := netip.AddrFrom4([4]byte(frame[14+12 : 14+16]))
			class := packets.Classify(src)
			if build == "v3" && octet == 0 {
				// Only FizzBuzz is left to decide.
				if n := packets.HostOrder(src); n%15 == 0 {
					class = packets.FizzBuzz
				} else if n%3 == 0 {
					class = packets.Fizz
				} else if n%5 == 0 {
					class = packets.Buzz
				} else {
					class = packets.None
				}
			}
			if _, _, _, err := l.RunOnce(frame, nil); err != nil {
				t.Fatal(err)
			}
			var pushed uint32
			got := int64(-1)
			if err := queue.LookupAndDelete(nil, &pushed); err == nil {
				got = int64(pushed)
			} else if !errors.Is(err, ebpf.ErrKeyNotExist) {
				t.Fatal(err)
			}
			if got != verdicts[class] {
				t.Errorf("%s, %s: pushed %d, want %d (%s: %s)", build, src, got, verdicts[class], class, packets.Reason(src))
			}
		}
	}
}

// A full queue must keep taking pushes (BPF_EXIST), or long benchmarks
// measure the failure path: after more runs than the queue holds, the
// newest value must still be the one just pushed.
func TestQueueOverwritesWhenFull(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	l := loadBundled(t, "v1")
	cases := allCases(t)
	queue := l.Maps()["verdicts"]
	for i := range int(queue.MaxEntries()) + 10 {
		if _, _, _, err := l.RunOnce(cases[i%5].Frame, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Drain: the last value out is the last pushed.
	var v, last uint32
	n := 0
	for queue.LookupAndDelete(nil, &v) == nil {
		last = v
		n++
	}
	if n != int(queue.MaxEntries()) {
		t.Fatalf("drained %d values, want %d", n, queue.MaxEntries())
	}
	lastCase := cases[(int(queue.MaxEntries())+9)%5]
	if last != packets.HostOrder(lastCase.Source) {
		t.Fatalf("last value %d, want %d: pushes to a full queue were dropped", last, packets.HostOrder(lastCase.Source))
	}
}

func TestRun(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.Fizz, packets.Fibonacci, packets.Short})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Sampling: SamplingFlat,
		Programs: []Program{{Object: bundled(t, "v3")}},
		Cases:    cases,
		CPU:      -1,
		Samples:  MinSamples,
		Repeat:   10000,
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Partial {
		t.Error("complete run marked partial")
	}
	if got := res.Programs[0].Info.Name; got != "fizzbuzz" {
		t.Errorf("program %q, want fizzbuzz", got)
	}
	for _, c := range res.Programs[0].Cases {
		if len(c.Samples) != MinSamples {
			t.Errorf("%s: %d samples, want %d", c.Case.Name, len(c.Samples), MinSamples)
		}
		for _, s := range c.Samples {
			if s <= 0 || s > 100000 {
				t.Errorf("%s: implausible sample %v ns", c.Case.Name, s)
			}
		}
	}
	env := res.Environment
	if env.Wall <= env.KernelTime || env.KernelTime <= 0 {
		t.Errorf("wall %v should exceed kernel time %v > 0", env.Wall, env.KernelTime)
	}
	if env.Kernel == "" || env.Repeat != 10000 {
		t.Errorf("environment incomplete: %+v", env)
	}
}

func TestRunRejectsWrongReturn(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	c := allCases(t)[0]
	c.Expect = "XDP_DROP"
	cfg := Config{Sampling: SamplingFlat, Programs: []Program{{Object: bundled(t, "v4")}}, Cases: []packets.Case{c},
		CPU: -1, Samples: MinSamples, Repeat: 1}
	if _, err := Run(context.Background(), cfg); !errors.Is(err, object.ErrUnexpectedReturn) {
		t.Fatalf("got %v, want object.ErrUnexpectedReturn", err)
	}
}

// Cancelled between calls (short calls) or inside one (a call of 10^8
// runs outlasts the deadline, and the interrupter cuts it), a run ends
// the same way: partial, with the context's error.
func TestRunCancelled(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	for _, repeat := range []uint32{1000, 100_000_000} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		cfg := Config{Sampling: SamplingFlat, Programs: []Program{{Object: bundled(t, "v4")}}, Cases: packets.Default(),
			CPU: -1, Samples: 100000, Repeat: repeat}
		start := time.Now()
		res, err := Run(ctx, cfg)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !res.Partial {
			t.Errorf("repeat %d: got partial=%v err=%v, want a partial result and the context's error", repeat, res.Partial, err)
		}
		t.Logf("repeat %d: ended %v after the start", repeat, time.Since(start).Round(time.Millisecond))
	}
}

// tc classifiers and socket filters run on the same packets as XDP.
func TestOtherProgramTypes(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	for _, tt := range []struct{ program, expect, action string }{
		{"tc_shot", "TC_ACT_SHOT", "TC_ACT_SHOT"},
		{"socket_all", "0xffffffff", "-1"}, // a socket filter keeps the whole packet
	} {
		cases := packets.Default()[:2]
		for i := range cases {
			cases[i].Expect = tt.expect
		}
		res, err := Run(context.Background(), Config{
			Sampling: SamplingFlat,
			Programs: []Program{{Object: kerneltest.ReadTestObject[Object](t, "multi.o"), Program: tt.program}},
			Cases:    cases, CPU: -1, Samples: MinSamples, Repeat: 1000,
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.program, err)
		}
		for _, c := range res.Programs[0].Cases {
			if c.Action != tt.action || len(c.Samples) != MinSamples || c.Samples[0] <= 0 {
				t.Errorf("%s/%s: action %s, samples %v", tt.program, c.Case.Name, c.Action, c.Samples)
			}
		}
	}
}

// --timer stats: samples from run_time_ns / run_cnt, which resolve below
// the kernel's whole nanoseconds and include the clock reads of every run.
func TestStatsTimer(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases := packets.Default()[:1]
	res, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: bundled(t, "v4")}},
		Cases: cases, CPU: -1, Samples: MinSamples, Repeat: 100000, Timer: TimerStats})
	if errors.Is(err, ErrNoRunTimeStats) {
		t.Skip(err) // a kernel or privileges without them: nothing to test
	}
	if err != nil {
		t.Fatal(err)
	}
	if env := res.Environment; env.Timer != string(TimerStats) || env.Resolution != 1e-5 {
		t.Errorf("timer %q, resolution %g", env.Timer, env.Resolution)
	}
	if res.Environment.RunTimeStats {
		t.Error("the stats timer's own statistics taken for someone else's")
	}
	fractional := 0
	for _, s := range res.Programs[0].Cases[0].Samples {
		if s <= 0 || s > 100000 {
			t.Fatalf("implausible sample %v", s)
		}
		if s != float64(int64(s)) {
			fractional++
		}
	}
	if fractional == 0 {
		t.Error("no sample resolves below a nanosecond")
	}
	// With repeat chosen, the quantum follows the repeat chosen.
	chosen, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: bundled(t, "v4")}},
		Cases: cases, CPU: -1, Samples: MinSamples, Timer: TimerStats})
	if err != nil {
		t.Fatal(err)
	}
	if env := chosen.Environment; env.Repeat == 0 || env.Resolution != 1/float64(env.Repeat) {
		t.Errorf("repeat %d chosen, resolution %g", env.Repeat, env.Resolution)
	}
	if _, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: bundled(t, "v4")}},
		Cases: cases, CPU: -1, Samples: MinSamples, Repeat: 1, Timer: "wallclock"}); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown timer: %v", err)
	}
}

// Run-time statistics someone else turned on (here the test, as the
// sysctl or bpftool would) put two clock reads in every run: the run says
// so rather than report the slower figures as the machine's.
func TestRunTimeStatsNoticed(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	on, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		t.Skipf("run-time statistics cannot be turned on here: %v", err)
	}
	defer on.Close()
	res, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: bundled(t, "v4")}},
		Cases: packets.Default()[:1], CPU: -1, Samples: MinSamples, Repeat: 1000})
	if err != nil {
		t.Fatal(err)
	}
	env := res.Environment
	if !env.RunTimeStats || !slices.Contains(env.MachineLoad.Warnings, RunTimeStatsWarning) {
		t.Errorf("statistics on, but the run says run_time_stats_on=%v, warnings %q", env.RunTimeStats, env.MachineLoad.Warnings)
	}
}

// The harness floor: the empty program of the measured type is sampled
// with every case, in the same rounds.
func TestFloor(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	floor := Object{Name: "floor (bundled)", ELF: bpf.Floor()}
	for _, tt := range []struct {
		object  Object
		program string
		want    string
	}{
		{bundled(t, "v3"), "", "empty_xdp"},
		{kerneltest.ReadTestObject[Object](t, "multi.o"), "tc_shot", "empty_tc"},
	} {
		cases, _ := packets.Select([]string{packets.Fibonacci, packets.None})
		if tt.program != "" {
			for i := range cases {
				cases[i].Expect = ""
			}
		}
		res, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: tt.object, Program: tt.program}},
			Cases: cases, Floor: &floor, CPU: -1, Samples: MinSamples, Repeat: 100000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Floor == nil || res.Floor.Info.Name != tt.want || len(res.Programs) != 1 {
			t.Fatalf("floor %+v, %d programs", res.Floor, len(res.Programs))
		}
		for i, c := range res.Floor.Cases {
			if len(c.Samples) != MinSamples || c.Case.Name != cases[i].Name {
				t.Errorf("floor of %s: %d samples", c.Case.Name, len(c.Samples))
			}
		}
	}
}
