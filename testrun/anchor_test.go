package testrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

// idleThreads counts this process's threads at SCHED_IDLE: anchors, and
// nothing else of xdpmicro's runs at that policy.
func idleThreads(t *testing.T) int {
	t.Helper()
	stats, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range stats {
		text, err := os.ReadFile(path)
		if err != nil {
			continue // the thread has exited
		}
		// Fields after the command's closing parenthesis; policy is
		// field 41 of the whole line, the 39th after it.
		rest := text[strings.LastIndexByte(string(text), ')')+2:]
		fields := strings.Fields(string(rest))
		if len(fields) > 38 && fields[38] == "5" { // SCHED_IDLE
			n++
		}
	}
	return n
}

// waitNoIdleThreads fails unless the anchors' threads are gone within a
// second: an exited locked goroutine's thread ends soon after.
func waitNoIdleThreads(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for idleThreads(t) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d SCHED_IDLE threads left after the run: an anchor did not end", idleThreads(t))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rcuKnob is the kernel's switch for expedited grace periods.
const rcuKnob = "/sys/kernel/rcu_expedited"

func anchoredConfig(t *testing.T) Config {
	cases, err := packets.Select([]string{packets.Fizz, packets.None})
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Sampling: SamplingFlat,
		Programs: []Program{{Label: "before", Object: bundled(t, "v3")}, {Label: "after", Object: bundled(t, "v4")}},
		Floor:    &Object{Name: "floor", ELF: bpf.Floor()},
		Cases:    cases, CPU: -1, Samples: 50, Repeat: 1000,
	}
}

// Anchored runs hold every program, end every anchor, and take samples
// that cost microseconds where unanchored ones cost the dispatcher's
// changes.
func TestAnchoredRun(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	if n := idleThreads(t); n > 0 {
		t.Fatalf("%d SCHED_IDLE threads before the run", n)
	}
	knob, knobErr := os.ReadFile(rcuKnob)
	res, err := Run(context.Background(), anchoredConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	waitNoIdleThreads(t)
	d := res.Environment.Dispatcher
	// The grace periods are expedited while anchors come and go, where
	// root may, and the kernel's knob is as it was after.
	if after, _ := os.ReadFile(rcuKnob); knobErr == nil && string(after) != string(knob) {
		t.Errorf("%s read %q before the run, %q after", rcuKnob, knob, after)
	}
	if knobErr == nil && os.Geteuid() == 0 && d.Anchored && !d.Expedited {
		t.Errorf("anchored as root without expedited grace periods: %+v", d)
	}
	if d.Unanchored < AnchorWorthIt {
		t.Skipf("a call costs %s without anchors here (%s): nothing to anchor", d.Unanchored, d.Why)
	}
	if !d.Anchored || d.Programs != 3 {
		t.Fatalf("not anchored, or not all three programs held: %+v", d)
	}
	if d.Overhead <= 0 || d.Overhead >= d.Unanchored/4 {
		t.Errorf("anchored call costs %s beyond its runs, unanchored %s: want far less", d.Overhead, d.Unanchored)
	}
	// 3 programs × 2 cases × 50 samples: unanchored, ~20 ms a call, 6 s.
	if env := res.Environment; env.Wall > 10*env.KernelTime+time.Second {
		t.Errorf("wall %s for %s timed by the kernel: calls still wait for the dispatcher", env.Wall, env.KernelTime)
	}
}

func TestAnchorsOff(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cfg := anchoredConfig(t)
	cfg.Anchor, cfg.Samples, cfg.Programs = AnchorNever, MinSamples, cfg.Programs[1:]
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Environment.Dispatcher; d.Anchored || d.Why == "" || d.Unanchored <= 0 {
		t.Errorf("anchors turned off, yet %+v", d)
	}
	if n := idleThreads(t); n > 0 {
		t.Errorf("%d SCHED_IDLE threads without anchors", n)
	}
}

// A run cancelled while sampling ends its anchors before it returns.
func TestAnchorsEndOnCancel(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cfg := anchoredConfig(t)
	cfg.Samples = MaxSamples
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Progress = func(p Progress) {
		if p.Done >= 100 {
			cancel()
		}
	}
	res, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) || !res.Partial {
		t.Fatalf("got %v, partial %v; want a cancelled, partial run", err, res.Partial)
	}
	waitNoIdleThreads(t)
}

// Programs of other types have no dispatcher: no anchor is started.
func TestNoAnchorForTC(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	res, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: kerneltest.ReadTestObject[Object](t, "multi.o"), Program: "tc_shot"}},
		Cases: unexpected(allCases(t)[:1]), CPU: -1, Samples: MinSamples, Repeat: 100})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Environment.Dispatcher; d.Anchored || !strings.Contains(d.Why, "only XDP") {
		t.Errorf("tc program: %+v", d)
	}
}

// An anchor makes calls cheap while it holds the program, and after
// release the program is out of the dispatcher again: calls pay its
// changes once more.
func TestAnchorHoldsAndReleases(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	l := loadBundled(t, "v4")
	cpu := kerneltest.ClaimCPU(t).CPU
	frame := allCases(t)[0].Frame
	err := host.Pin(cpu, func() error {
		ctx := context.Background()
		unanchored, err := callOverhead(ctx, l, frame, nil, 1)
		if err != nil {
			return err
		}
		if unanchored < AnchorWorthIt {
			return fmt.Errorf("%w: a call costs %s without anchors here", errNothingToHold, unanchored)
		}
		a, err := startAnchor(cpu, l)
		if err != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond) // the anchor's call enters the kernel
		held, err := callOverhead(ctx, l, frame, nil, 5)
		if err != nil {
			return errors.Join(err, releaseAnchors([]*anchor{a}))
		}
		start := time.Now()
		if err := releaseAnchors([]*anchor{a}); err != nil {
			return err
		}
		took := time.Since(start)
		after, err := callOverhead(ctx, l, frame, nil, 1)
		if err != nil {
			return err
		}
		t.Logf("call overhead: %s unanchored, %s held, %s after release (release took %s)", unanchored, held, after, took)
		if held >= unanchored/4 {
			t.Errorf("held: a call costs %s, unanchored %s", held, unanchored)
		}
		// A swap's synchronize_rcu() takes 1 to 20 ms as the machine's load
		// goes: a call without one costs microseconds.
		if after < AnchorWorthIt {
			t.Errorf("after release a call costs %s: the program is still in the dispatcher", after)
		}
		if took > time.Second {
			t.Errorf("release took %s", took)
		}
		return nil
	})
	if errors.Is(err, errNothingToHold) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	waitNoIdleThreads(t)
}

var errNothingToHold = errors.New("nothing to hold")

// unexpected returns cases without their expectations, for programs of
// other types.
func unexpected(cases []packets.Case) []packets.Case {
	for i := range cases {
		cases[i].Expect = ""
	}
	return cases
}

// Linear sampling with placements: each program loaded twice, every
// sample's repeat one of the levels, and the wall time of each call kept.
func TestLinearPlacements(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{"fizz", "none"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Config{
		Programs: []Program{{Object: bundled(t, "v4")}}, Cases: cases, CPU: -1, Samples: 20,
		Sampling: SamplingLinear, Placements: 2, Floor: &Object{Name: "floor", ELF: bpf.Floor()},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Environment.Sampling
	if s.Mode != string(SamplingLinear) || s.Levels != 2 || s.Step == 0 || s.Clock == "" {
		t.Fatalf("sampling %+v: want linear over 2 levels (20 samples, 10 a level)", s)
	}
	if len(res.Programs) != 1 || len(res.Programs[0].Placements) != 1 || res.Floor == nil || len(res.Floor.Placements) != 0 {
		t.Fatalf("want one program with one more placement and a floor of one")
	}
	for _, pr := range []ProgramResult{res.Programs[0], res.Programs[0].Placements[0], *res.Floor} {
		for _, c := range pr.Cases {
			if len(c.Runs) != 20 || len(c.Wall) != 20 || len(c.Samples) != 20 {
				t.Fatalf("%s: %d repeats, %d wall times, %d samples; want 20 each", c.Case.Name, len(c.Runs), len(c.Wall), len(c.Samples))
			}
			for i, runs := range c.Runs {
				// A call of runs runs takes at least runs times the
				// kernel's figure for one, and the level is a multiple of
				// the step.
				if runs%s.Step != 0 || runs/s.Step > uint32(s.Levels) || c.Wall[i] < c.Samples[i]*float64(runs) {
					t.Errorf("%s sample %d: %d runs, %v ns of wall time, %v ns per run", c.Case.Name, i, runs, c.Wall[i], c.Samples[i])
				}
			}
		}
	}
	// The placements were sampled in the same rounds: the same repeats.
	if !slices.Equal(res.Programs[0].Cases[0].Runs, res.Programs[0].Placements[0].Cases[0].Runs) {
		t.Error("the placements' repeats differ round by round")
	}
}

// Programs that change their packet are seen doing it, and measured as
// repeats through the restorer, every run on a fresh frame (every program
// and the floor, for that case), or one run a call when asked; calls whose
// runs took another path than the checking run, as a program whose maps
// the earlier runs filled, are counted.
func TestFrameChanges(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	rewrite, cases := rewriteAndFizz(t)
	run := func(single bool, programs ...Program) Result {
		t.Helper()
		res, err := Run(context.Background(), Config{Programs: programs, Cases: cases, CPU: -1, Samples: 20, Sampling: SamplingLinear,
			SingleRun: single, Floor: &Object{Name: "floor", ELF: bpf.Floor()}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	frame := cases[0].Frame
	for _, single := range []bool{false, true} {
		res := run(single, Program{Object: rewrite, Program: "swap_macs"}, Program{Object: rewrite, Program: "flip_proto"}, Program{Object: bundled(t, "v4")})
		swap, flip, v4 := res.Programs[0].Cases[0], res.Programs[1].Cases[0], res.Programs[2].Cases[0]
		if swap.Action != "XDP_TX" || len(swap.Output) != len(frame) ||
			!slices.Equal(swap.Output[:6], frame[6:12]) || !slices.Equal(swap.Output[6:12], frame[:6]) {
			t.Errorf("swap_macs: %s, output % x", swap.Action, swap.Output)
		}
		if flip.Action != "XDP_TX" || len(flip.Output) != len(frame) || flip.Output[12] != 0x86 || flip.Output[13] != 0xdd {
			t.Errorf("flip_proto: %s, output % x", flip.Action, flip.Output)
		}
		if v4.Output != nil {
			t.Errorf("v4 changed the frame: % x", v4.Output)
		}
		for _, c := range []CaseResult{swap, flip, v4, res.Floor.Cases[0]} {
			// Every call returns the checking run's action: every run
			// took the first run's path.
			repeats := 20 // linear sampling's
			if single {
				repeats = 0
			}
			if c.Single != single || c.Restored == single || len(c.Samples) != 20 || len(c.Runs) != repeats || c.OtherReturns != 0 {
				t.Errorf("one run a call asked %v: %s: single %v, restored %v, %d samples, %d repeats, %d other returns",
					single, c.Action, c.Single, c.Restored, len(c.Samples), len(c.Runs), c.OtherReturns)
			}
		}
	}
	first := run(false, Program{Object: rewrite, Program: "first_drop"}).Programs[0].Cases[0]
	if first.Action != "XDP_DROP" || first.Single || first.Restored || first.Output != nil ||
		first.OtherReturns != len(first.Samples) || object.ActionName(ebpf.XDP, first.OtherReturn) != "XDP_PASS" {
		t.Errorf("first_drop: %s, single %v, %d of %d calls returned %s", first.Action, first.Single, first.OtherReturns, len(first.Samples), object.ActionName(ebpf.XDP, first.OtherReturn))
	}
}

// rewriteAndFizz is bpf/testdata/rewrite.o and the fizz case, expecting
// nothing of it.
func rewriteAndFizz(t *testing.T) (Object, []packets.Case) {
	t.Helper()
	elf, err := os.ReadFile("../bpf/testdata/rewrite.o")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := packets.Select([]string{"fizz"})
	if err != nil {
		t.Fatal(err)
	}
	return Object{Name: "rewrite.o", ELF: elf}, cases
}
