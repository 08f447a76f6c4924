package testrun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/stats"
)

// These tests check the sampler's schedule (the order of the samples,
// warm-up, linear levels, stopping, progress) with stub runners: they
// claim nothing about the kernel, whose samples the kernel tests check.

// stubCall is one sample a stub runner was asked for.
type stubCall struct {
	runner, caseIndex int
	repeat            uint32 // 0 for a single-run sample
	calls             int    // of a single-run sample
	want              uint32
}

// stubRunner answers every sample at once with a figure that names the
// runner and the case, so that a sample filed under the wrong unit shows.
type stubRunner struct {
	id    int
	log   *[]stubCall
	delay time.Duration
	// ret, if set, is the return of the n-th sample of this runner (from 0).
	ret func(n int, want uint32) uint32
	// failAt, if positive, is the call of the whole log that fails.
	failAt int
	n      int
}

var errStub = errors.New("stub failure")

func stubFigure(runner, caseIndex int) float64 { return float64(100*(runner+1) + caseIndex) }

func (r *stubRunner) answer(c stubCall, want uint32) (measurement, error) {
	*r.log = append(*r.log, c)
	if r.failAt > 0 && len(*r.log) == r.failAt {
		return measurement{}, errStub
	}
	if r.delay > 0 {
		time.Sleep(r.delay)
	}
	m := measurement{perRun: stubFigure(r.id, c.caseIndex), retval: want}
	m.wall = time.Duration(float64(max(c.repeat, 1)) * m.perRun)
	if r.ret != nil {
		m.retval = r.ret(r.n, want)
	}
	r.n++
	return m, nil
}

func (r *stubRunner) sample(frame, _ []byte, repeat uint32) (measurement, error) {
	return r.answer(stubCall{runner: r.id, caseIndex: int(frame[0]), repeat: repeat}, stubReturn)
}

func (r *stubRunner) sampleSingle(next func() []byte, _ []byte, calls int, want uint32, _ func() error) (measurement, error) {
	frame := next()
	return r.answer(stubCall{runner: r.id, caseIndex: int(frame[0]), calls: calls, want: want}, want)
}

// stubReturn is the checking run's return of every case of a stub run.
const stubReturn = 2

// stubRun is a run of programs (and a floor, last) over cases, ready
// for rounds.
type stubRun struct {
	s       *sampler
	res     *Result
	runners []*stubRunner
	log     *[]stubCall
}

// newStubRun lays out programs programs, each placed once, and the floor
// over cases cases; single lists the cases sampled one run a call.
func newStubRun(t *testing.T, ctx context.Context, cfg Config, programs, cases int, single ...int) *stubRun {
	t.Helper()
	r := &stubRun{res: &Result{}, log: new([]stubCall)}
	cfg.Programs = make([]Program, programs)
	for ci := range cases {
		cfg.Cases = append(cfg.Cases, packets.Case{Name: fmt.Sprintf("case%d", ci), Frame: []byte{byte(ci)}})
	}
	var runners []runner
	var programOf []int
	for pi := range programs + 1 {
		sr := &stubRunner{id: pi, log: r.log}
		r.runners = append(r.runners, sr)
		runners = append(runners, sr)
		if pi == programs {
			programOf = append(programOf, -1)
		} else {
			programOf = append(programOf, pi)
		}
		pr := ProgramResult{Label: fmt.Sprintf("p%d", pi)}
		for _, c := range cfg.Cases {
			pr.Cases = append(pr.Cases, CaseResult{Case: c, Return: stubReturn})
		}
		r.res.Programs = append(r.res.Programs, pr)
	}
	for _, ci := range single {
		for pi := range r.res.Programs {
			r.res.Programs[pi].Cases[ci].Single = true
		}
	}
	r.s = newSchedule(ctx, cfg, len(runners), func(pi, _ int) runner { return runners[pi] }, programOf, r.res)
	r.s.start = time.Now()
	r.s.planRepeats(r.perRun())
	return r
}

func (r *stubRun) units() int { return len(r.s.units) }

// perRun is what a probe of the stub run's units finds: each unit's
// figure, in ns per run, and 0 for a single-run unit.
func (r *stubRun) perRun() []float64 {
	perRun := make([]float64, len(r.s.units))
	for i, u := range r.s.units {
		if !u.result.Single {
			perRun[i] = stubFigure(u.prog.(*stubRunner).id, int(u.result.Case.Frame[0]))
		}
	}
	return perRun
}

func (r *stubRun) rounds(t *testing.T) []stubCall {
	t.Helper()
	if err := r.s.rounds(); err != nil {
		t.Fatal(err)
	}
	return *r.log
}

// Every round samples every unit once, in an order shuffled anew each
// round and the same in every run; warm-up samples are not kept, and each
// kept sample lands in its own unit's results.
func TestScheduleRounds(t *testing.T) {
	var progress []Progress
	cfg := Config{Sampling: SamplingFlat, Samples: 12, Repeat: 1000, Progress: func(p Progress) { progress = append(progress, p) }}
	r := newStubRun(t, context.Background(), cfg, 2, 4)
	log := r.rounds(t)
	n := r.units()
	if want := (1 + cfg.Samples) * n; len(log) != want {
		t.Fatalf("%d samples taken, want one warm-up round and %d rounds of %d units: %d", len(log), cfg.Samples, n, want)
	}
	orders := map[string]bool{}
	for start := 0; start < len(log); start += n {
		round := log[start : start+n]
		seen := map[[2]int]bool{}
		var order []string
		for _, c := range round {
			key := [2]int{c.runner, c.caseIndex}
			if seen[key] {
				t.Fatalf("round at sample %d takes runner %d case %d twice", start, c.runner, c.caseIndex)
			}
			seen[key] = true
			if warm := start < n; (!warm && c.repeat != cfg.Repeat) || c.repeat > cfg.Repeat {
				t.Errorf("a flat sample (warm-up %v) of repeat %d, want %d", warm, c.repeat, cfg.Repeat)
			}
			order = append(order, fmt.Sprint(key))
		}
		if len(seen) != n {
			t.Fatalf("round at sample %d took %d units of %d", start, len(seen), n)
		}
		orders[fmt.Sprint(order)] = true
	}
	if len(orders) < 2 {
		t.Errorf("every round visited the units in one order")
	}
	for pi, pr := range r.res.Programs {
		for ci, c := range pr.Cases {
			if len(c.Samples) != cfg.Samples || len(c.Runs) != 0 || len(c.Wall) != 0 {
				t.Fatalf("program %d case %d kept %d samples, %d runs, %d wall times; want %d, 0, 0", pi, ci, len(c.Samples), len(c.Runs), len(c.Wall), cfg.Samples)
			}
			for _, v := range c.Samples {
				if v != stubFigure(pi, ci) {
					t.Fatalf("program %d case %d kept %v, another unit's figure", pi, ci, v)
				}
			}
		}
	}
	if r.s.kept != cfg.Samples*n {
		t.Errorf("kept %d samples, want %d", r.s.kept, cfg.Samples*n)
	}

	// Progress: once a sample, warm-up first, then counting kept samples.
	if len(progress) != len(log) {
		t.Fatalf("progress called %d times for %d samples", len(progress), len(log))
	}
	for i, p := range progress {
		warm := i < n
		done := max(i-n+1, 0)
		if p.Warmup != warm || p.Done != done || p.Total != cfg.Samples*n || p.Case == "" {
			t.Fatalf("progress %d: %+v, want warm-up %v, done %d of %d", i, p, warm, done, cfg.Samples*n)
		}
		if p.Budget != 0 {
			t.Fatalf("progress %d has a budget with a fixed number of samples: %+v", i, p)
		}
	}

	again := newStubRun(t, context.Background(), cfg, 2, 4)
	if !slices.Equal(again.rounds(t), log) {
		t.Error("two runs of one configuration took their samples in different orders")
	}
}

// Linear sampling: a round's samples share one repeat, each cycle of
// levels rounds visits every level once, and the repeat and wall time of
// each kept sample are kept beside it.
func TestScheduleLinearLevels(t *testing.T) {
	cfg := Config{Samples: 40, Repeat: 1000, Sampling: SamplingLinear}
	r := newStubRun(t, context.Background(), cfg, 1, 3)
	if r.s.linear == nil {
		t.Fatalf("no linear plan: %s", r.s.sampling.Why)
	}
	levels, first, step := r.s.linear.levels, r.s.linear.first, r.s.linear.step
	if levels != cfg.Samples/callsPerLevel {
		t.Errorf("%d levels for %d samples, want %d", levels, cfg.Samples, cfg.Samples/callsPerLevel)
	}
	if got := r.s.sampling; got.Mode != string(SamplingLinear) || got.First != first || got.Step != step || got.Levels != levels {
		t.Errorf("sampling %+v, want linear, first %d, step %d, %d levels", got, first, step, levels)
	}
	if top := first + step*uint32(levels-1); first != cfg.Repeat/DefaultLevels || top != cfg.Repeat {
		t.Errorf("levels %d…%d, want from a tenth of the given repeat %d up to it", first, top, cfg.Repeat)
	}
	log := r.rounds(t)
	n := r.units()
	kept := log[len(log)-cfg.Samples*n:]
	var roundRepeats []uint32
	for start := 0; start < len(kept); start += n {
		round := kept[start : start+n]
		for _, c := range round {
			if c.repeat != round[0].repeat {
				t.Fatalf("round at kept sample %d mixes repeats %d and %d", start, round[0].repeat, c.repeat)
			}
		}
		roundRepeats = append(roundRepeats, round[0].repeat)
	}
	for start := 0; start+levels <= len(roundRepeats); start += levels {
		cycle := slices.Sorted(slices.Values(roundRepeats[start : start+levels]))
		for i, rep := range cycle {
			if rep != first+step*uint32(i) {
				t.Fatalf("cycle from round %d has repeats %v, want each of %d + %d·(0…%d) once", start, roundRepeats[start:start+levels], first, step, levels-1)
			}
		}
	}
	for pi, pr := range r.res.Programs {
		for ci, c := range pr.Cases {
			if !slices.Equal(c.Runs, roundRepeats) {
				t.Fatalf("program %d case %d kept runs %v, its rounds ran %v", pi, ci, c.Runs, roundRepeats)
			}
			for i, w := range c.Wall {
				if want := float64(c.Runs[i]) * stubFigure(pi, ci); w != want {
					t.Fatalf("program %d case %d sample %d: wall %v, want %v", pi, ci, i, w, want)
				}
			}
		}
	}
}

// Adaptive sampling asks Enough only after the fewest rounds, only of
// cases not yet accepted, with the measured programs' results (not the
// floor's) in program order; accepted cases stay in the rounds until
// every case is accepted.
func TestScheduleStopsWhenEveryCaseHasEnough(t *testing.T) {
	const late = 25 // samples case 1 needs
	asked := map[int]int{}
	var firstSeen int
	cfg := Config{Sampling: SamplingFlat, Samples: 5, Repeat: 1000, Budget: time.Minute}
	cfg.Enough = func(ci int, results []CaseResult) bool {
		asked[ci]++
		if len(results) != 2 {
			t.Fatalf("Enough got %d results, want the 2 measured programs'", len(results))
		}
		for pi, cr := range results {
			if len(cr.Samples) == 0 || cr.Samples[0] != stubFigure(pi, ci) {
				t.Fatalf("Enough's result %d for case %d is not program %d's: %v", pi, ci, pi, cr.Samples)
			}
		}
		if firstSeen == 0 {
			firstSeen = len(results[0].Samples)
		}
		return ci == 0 || len(results[0].Samples) >= late
	}
	r := newStubRun(t, context.Background(), cfg, 2, 2)
	r.rounds(t)
	if firstSeen < cfg.Samples {
		t.Errorf("Enough first asked after %d rounds, want at least %d", firstSeen, cfg.Samples)
	}
	if asked[0] != 1 {
		t.Errorf("Enough asked %d times of case 0, which it accepted the first time", asked[0])
	}
	counts := map[int]bool{}
	for _, pr := range r.res.Programs {
		for ci, c := range pr.Cases {
			counts[len(c.Samples)] = true
			if !c.Enough {
				t.Errorf("case %d not marked enough", ci)
			}
		}
	}
	if len(counts) != 1 {
		t.Fatalf("units kept different numbers of samples %v: an accepted case left the rounds", counts)
	}
	for n := range counts {
		if n < late {
			t.Errorf("stopped after %d rounds, before case 1 had %d samples", n, late)
		}
	}
}

// Adaptive sampling waits MinTime before judging and stops at the budget
// when no case is ever accepted.
func TestScheduleMinTimeAndBudget(t *testing.T) {
	var firstAsk time.Duration
	cfg := Config{Sampling: SamplingFlat, Samples: 3, Repeat: 1000, Budget: time.Minute, MinTime: 30 * time.Millisecond}
	start := time.Now()
	cfg.Enough = func(int, []CaseResult) bool {
		if firstAsk == 0 {
			firstAsk = time.Since(start)
		}
		return true
	}
	r := newStubRun(t, context.Background(), cfg, 1, 2)
	r.runners[0].delay = 100 * time.Microsecond
	r.rounds(t)
	if firstAsk < cfg.MinTime {
		t.Errorf("Enough asked %s into the run, before the least time %s", firstAsk, cfg.MinTime)
	}

	var progress []Progress
	cfg = Config{Sampling: SamplingFlat, Samples: 3, Repeat: 1000, Budget: 50 * time.Millisecond,
		Enough:   func(int, []CaseResult) bool { return false },
		Progress: func(p Progress) { progress = append(progress, p) }}
	r = newStubRun(t, context.Background(), cfg, 1, 2)
	r.runners[0].delay = 100 * time.Microsecond
	r.rounds(t)
	spent := time.Since(r.s.start)
	if spent < cfg.Budget {
		t.Errorf("stopped after %s, with no case accepted and a budget of %s", spent, cfg.Budget)
	}
	for _, pr := range r.res.Programs {
		for ci, c := range pr.Cases {
			if c.Enough {
				t.Errorf("case %d marked enough, though Enough never said so", ci)
			}
			if len(c.Samples) < cfg.Samples {
				t.Errorf("case %d kept %d samples, fewer than the %d rounds asked", ci, len(c.Samples), cfg.Samples)
			}
		}
	}
	// The last sample is reported before the round ends and the budget
	// is judged spent: its elapsed time may fall a hair short of the
	// budget (49.994 ms of 50 in one CI run), never past the run's.
	last := progress[len(progress)-1]
	if last.Budget != cfg.Budget || !(last.Elapsed > 0) || last.Elapsed > spent {
		t.Errorf("last progress %+v, want the budget %s and an elapsed time within the %s spent", last, cfg.Budget, spent)
	}
}

// A case sampled one run a call gets single-run samples with its checking
// run's return to compare with; a return other than the checking run's is
// counted, and the first kept.
func TestScheduleSingleRunsAndOtherReturns(t *testing.T) {
	cfg := Config{Samples: 10, Repeat: 1000, Sampling: SamplingLinear}
	r := newStubRun(t, context.Background(), cfg, 1, 2, 1)
	for pi := range r.res.Programs {
		r.res.Programs[pi].Cases[1].Return = 3
	}
	r.runners[0].ret = func(n int, want uint32) uint32 {
		if n%4 == 3 {
			return 7 + uint32(n/4)
		}
		return want
	}
	r.s.planRepeats(r.perRun()) // after the returns changed
	if r.s.sampling.SingleCalls != r.s.singleCalls || r.s.singleCalls < minSingleCalls {
		t.Fatalf("sampling says %d calls a single-run sample, the sampler takes %d", r.s.sampling.SingleCalls, r.s.singleCalls)
	}
	for _, c := range r.rounds(t) {
		single := c.caseIndex == 1
		switch {
		case single && (c.calls != r.s.singleCalls || c.want != 3 || c.repeat != 0):
			t.Fatalf("single-run case sampled as %+v, want %d calls against return 3", c, r.s.singleCalls)
		case !single && c.calls != 0:
			t.Fatalf("a case of many runs sampled one run a call: %+v", c)
		}
	}
	for pi, pr := range r.res.Programs {
		c := pr.Cases[1]
		if len(c.Runs) != 0 || len(c.Wall) != 0 {
			t.Errorf("program %d's single-run case kept runs or wall times", pi)
		}
	}
	// Runner 0 alternates cases within a round, so count its odd returns
	// over both cases.
	other := r.res.Programs[0].Cases[0].OtherReturns + r.res.Programs[0].Cases[1].OtherReturns
	if other == 0 {
		t.Fatal("no other return counted, though runner 0 returned one every fourth sample")
	}
	for _, c := range r.res.Programs[0].Cases {
		if c.OtherReturns > 0 && c.OtherReturn < 7 {
			t.Errorf("other return %d kept, want the first odd one (7 or more)", c.OtherReturn)
		}
	}
	if r.res.Programs[1].Cases[0].OtherReturns+r.res.Programs[1].Cases[1].OtherReturns != 0 {
		t.Error("the floor, which always returned the checking run's action, counted other returns")
	}
}

// A failed sample ends the run with the case named; so does a cancelled
// context, before the next sample.
func TestScheduleStops(t *testing.T) {
	r := newStubRun(t, context.Background(), Config{Sampling: SamplingFlat, Samples: 10, Repeat: 1000}, 1, 3)
	r.runners[0].failAt, r.runners[1].failAt = 8, 8
	err := r.s.rounds()
	if !errors.Is(err, errStub) {
		t.Fatalf("rounds returned %v, want the runner's error", err)
	}
	if got := (*r.log)[7]; err.Error() != fmt.Sprintf("case case%d: %s", got.caseIndex, errStub) {
		t.Errorf("error %q does not name the case of the failed sample (case%d)", err, got.caseIndex)
	}
	if len(*r.log) != 8 {
		t.Errorf("%d samples taken, want none after the failed 8th", len(*r.log))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	cfg := Config{Sampling: SamplingFlat, Samples: 10, Repeat: 1000, Progress: func(Progress) {
		if calls++; calls == 7 {
			cancel()
		}
	}}
	r = newStubRun(t, ctx, cfg, 1, 3)
	if err := r.s.rounds(); !errors.Is(err, context.Canceled) {
		t.Fatalf("rounds returned %v after the context was cancelled", err)
	}
	if len(*r.log) != 7 {
		t.Errorf("%d samples taken, want none after the cancel during the 7th", len(*r.log))
	}
}

// A given repeat whose rounds the time budget cannot hold is never
// refused: sampling takes the fewest levels, says once that it takes the
// time, and keeps the rounds every fit needs, whatever the budget; the
// warm-up runs shorter calls. A budget that holds the rounds changes
// nothing.
func TestScheduleGivenRepeatPastBudget(t *testing.T) {
	var notices []string
	cfg := Config{Samples: 30, Repeat: 1_000_000, Sampling: SamplingLinear, Budget: 20 * time.Millisecond,
		Warmup: time.Millisecond, Enough: func(int, []CaseResult) bool { return false },
		Notice: func(n string) { notices = append(notices, n) }}
	r := newStubRun(t, context.Background(), cfg, 2, 3)
	if r.s.linear == nil || r.s.linear.levels != 2 || r.s.linear.first+r.s.linear.step != cfg.Repeat {
		t.Fatalf("plan %+v, want 2 levels up to the given repeat", r.s.sampling)
	}
	if r.s.sampling.PastBudget == "" {
		t.Fatal("the rounds outlast the budget, and the plan does not say so")
	}
	if r.s.cfg.Notice(r.s.sampling.PastBudget); len(notices) != 1 || !strings.Contains(notices[0], "1000000") {
		t.Errorf("notices %q, want one that names the repeat", notices)
	}
	log := r.rounds(t)
	n := r.units()
	for _, c := range log[:n] {
		if c.repeat > r.s.warmRepeat || c.repeat >= r.s.linear.first {
			t.Fatalf("warm-up sample of repeat %d, want at most %d", c.repeat, r.s.warmRepeat)
		}
	}
	if stats.MinPerLevel != minCallsPerLevel {
		t.Fatalf("measure plans %d calls a level at the least, the fit needs %d", minCallsPerLevel, stats.MinPerLevel)
	}
	for pi, pr := range r.res.Programs {
		for ci, c := range pr.Cases {
			perLevel := map[uint32]int{}
			for _, runs := range c.Runs {
				perLevel[runs]++
			}
			for runs, calls := range perLevel {
				if calls < minCallsPerLevel {
					t.Errorf("program %d case %d: %d calls of repeat %d, the fit needs %d", pi, ci, calls, runs, minCallsPerLevel)
				}
			}
			if len(perLevel) != 2 {
				t.Errorf("program %d case %d sampled %d levels, want 2", pi, ci, len(perLevel))
			}
		}
	}

	// Compared over placements, each placement's slope takes ten calls a
	// level.
	cfg.Placements = 2
	if r = newStubRun(t, context.Background(), cfg, 2, 3); r.s.minRounds != 2*callsPerLevel {
		t.Errorf("compared over placements: %d rounds at the least, want %d", r.s.minRounds, 2*callsPerLevel)
	}

	cfg.Budget, cfg.Repeat, cfg.Placements = time.Hour, 1000, 0
	r = newStubRun(t, context.Background(), cfg, 2, 3)
	if r.s.sampling.PastBudget != "" || r.s.linear.levels != DefaultLevels {
		t.Errorf("a budget that holds the rounds: plan %+v, want %d levels and nothing past the budget", r.s.sampling, DefaultLevels)
	}
}
