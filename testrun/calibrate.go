package testrun

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/object"
	"golang.org/x/sys/unix"
)

// Choosing repeat. Every test-run call costs a fixed overhead outside the
// timed loop: about a microsecond, or for XDP without anchors ~20 ms of
// dispatcher changes (see anchor.go). Inside the loop, anchored calls show
// none that repeat reveals: from repeat 100 to 30 000 the empty program
// and the bundled classes read alike (docs/measurement-notes.md); without
// anchors the first runs after the dispatcher change ran cold. A short
// sample more often lies within one of the machine's phases, which is what
// the low estimator needs, and more samples fit in the same time; the
// outside overhead bounds how short.
const (
	// TargetSample is the kernel-timed length aimed at for one sample: the
	// outside overhead is then under 1 % of it, and a second of sampling
	// gives each of ten units several hundred samples, whose bootstraps
	// take tens of milliseconds.
	TargetSample = 200 * time.Microsecond
	// calibrationRepeat is the repeat of the probing samples.
	calibrationRepeat = 1000
	// probeCalls is how many probing samples each unit takes, the
	// fastest standing: the repeat follows the slowest unit, and one
	// probe of 20 µs that an interrupt or a slow moment met chose a
	// repeat of a quarter for a whole group of loads (groups sampled 18
	// to 82 ms here).
	probeCalls = 3
	// minChosenRepeat keeps XDP on the dispatcher path (repeat > 1) that
	// every other sample takes.
	minChosenRepeat = 2
)

// probe runs every unit sampled as repeats probeCalls times, at
// calibrationRepeat (a restored one through its restorer, which costs more
// than the program alone), and returns each unit's fastest time per run in
// ns; 0 for a unit sampled one run a call.
func probe(ctx context.Context, units []unit) ([]float64, error) {
	perRun := make([]float64, len(units))
	for i, u := range units {
		if u.result.Single {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for p := range probeCalls {
			m, err := u.prog.sample(u.result.Case.Frame, u.result.ctxIn, calibrationRepeat)
			if err != nil {
				return nil, fmt.Errorf("case %s: probe: %w", u.result.Case.Name, err)
			}
			if p == 0 || m.perRun < perRun[i] {
				perRun[i] = m.perRun
			}
		}
	}
	return perRun, nil
}

// chooseRepeat returns the repeat that makes the slowest unit's sample
// about target long, to two significant digits.
func chooseRepeat(perRun []float64, target time.Duration) uint32 {
	return repeatFor(slices.Max(perRun), target)
}

// repeatFor returns the repeat that makes a sample of a run of ns
// nanoseconds about target long.
func repeatFor(ns float64, target time.Duration) uint32 {
	r := float64(target.Nanoseconds()) / max(ns, Resolution)
	if r > 100 {
		// Two significant digits: readable in the report, and as good.
		scale := math.Pow(10, math.Floor(math.Log10(r))-1)
		r = math.Round(r/scale) * scale
	}
	return uint32(min(max(math.Round(r), minChosenRepeat), MaxRepeat))
}

// callOverhead returns what a call of repeat 2 of l on frame, with the
// program context progCtx, costs beyond its two timed runs, in wall time:
// the median over calls calls.
func callOverhead(ctx context.Context, l *object.Loaded, frame, progCtx []byte, calls int) (time.Duration, error) {
	var costs []time.Duration
	for len(costs) < calls {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		start := time.Now()
		_, ns, err := testRun(l.Prog.FD(), frame, progCtx, 2)
		wall := time.Since(start)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, l.RunError(err, frame, progCtx)
		}
		costs = append(costs, wall-2*time.Duration(ns))
	}
	slices.Sort(costs)
	return costs[len(costs)/2], nil
}
