package testrun

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/cilium/ebpf"
	"gonum.org/v1/gonum/floats"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/results"
)

// unit is one (program, case) pair: what one sample measures.
type unit struct {
	prog   runner
	result *CaseResult
	// program is the index in Config.Programs of the unit's program, -1
	// for the floor.
	program int
}

// sampler takes the samples of a run, on the pinned thread.
type sampler struct {
	ctx   context.Context
	cfg   Config
	progs []*program
	// held are programs besides progs that calls run, and anchors hold:
	// the restorers.
	held []*program
	// units are every round's samples, case by case; byCase[ci] holds case
	// ci's units, one per program, the floor last.
	units  []unit
	byCase [][]unit
	// visit is the order of units in the current round, shuffled by order
	// (a fixed seed: the same schedule every run).
	visit   []int
	order   *rand.Rand
	machine *host.Watch
	cpu     int

	start    time.Time // of calibration: the budget counts from here
	repeat   uint32
	linear   *linearPlan // nil when sampling is flat
	sampling results.Sampling
	// singleCalls is how many calls of one run make a sample of a case
	// sampled one run a call (CaseResult.Single).
	singleCalls int
	// resetCost is what putting a first-state case's maps back from user
	// space before a call took, the slowest case's: a sample takes fewer
	// calls where it is dear (an 8 MiB global written back each time).
	resetCost  time.Duration
	dispatcher results.Dispatcher
	// minRounds is the fewest rounds kept before the budget may end
	// sampling: what every case's result needs (planRounds).
	minRounds int
	// warmRepeat caps the repeat of warm-up samples, so that a warm-up
	// round at a large given repeat does not outlast the warm-up time.
	warmRepeat uint32
	kept       int // samples kept so far
	// lastCheck is when Enough was last asked, and checkCost what asking
	// took, so that judging stays a small share of the time.
	lastCheck time.Time
	checkCost time.Duration
	// preempted is how often something took the CPU from the measuring
	// thread during the rounds.
	preempted int
}

// runner takes the samples of one program: *program in the kernel; the
// schedule's tests give a stub, since what they check is the order and
// the stopping of the samples, not their figures.
type runner interface {
	sample(frame, ctx []byte, repeat uint32) (measurement, error)
	// sampleSingle runs the frame frame gives, anew for every call, and
	// calls reset, if set, before every call, outside the kernel's timing.
	sampleSingle(frame func() []byte, ctx []byte, calls int, want uint32, reset func() error) (measurement, error)
}

// newSampler lays out the units of progs, restorers[i] (if any) sampling
// program i's restored cases.
func newSampler(ctx context.Context, cfg Config, progs []*program, restorers []*restorer, undoers [][]*undoer, programOf []int, res *Result) *sampler {
	s := newSchedule(ctx, cfg, len(progs), func(pi, ci int) runner {
		c := res.Programs[pi].Cases[ci]
		if c.Undone {
			x := undoneRunner{u: undoers[pi][ci]}
			if c.Restored {
				x.choose = func() error { return restorers[pi].choose(ci) }
			}
			return x
		}
		if c.Restored {
			return restoredRunner{r: restorers[pi], caseIndex: ci}
		}
		return progs[pi]
	}, programOf, res)
	s.progs = progs
	for _, r := range restorers {
		s.held = append(s.held, r.program)
	}
	for _, us := range undoers {
		for _, u := range us {
			if u != nil {
				s.held = append(s.held, u.program)
			}
		}
	}
	return s
}

// newSchedule lays out the units of a run: runnerOf(i, ci) samples case ci
// of res.Programs[i], which is program programOf[i] of cfg.Programs (-1
// for the floor).
func newSchedule(ctx context.Context, cfg Config, programs int, runnerOf func(i, ci int) runner, programOf []int, res *Result) *sampler {
	s := &sampler{ctx: ctx, cfg: cfg, byCase: make([][]unit, len(cfg.Cases)), repeat: cfg.Repeat}
	for ci := range cfg.Cases {
		for pi := range programs {
			s.byCase[ci] = append(s.byCase[ci], unit{prog: runnerOf(pi, ci), result: &res.Programs[pi].Cases[ci], program: programOf[pi]})
		}
		s.units = append(s.units, s.byCase[ci]...)
	}
	s.visit = make([]int, len(s.units))
	for i := range s.visit {
		s.visit[i] = i
	}
	s.order = rand.New(rand.NewPCG(0x0dd, 0x5eed))
	return s
}

// run calibrates, holds the programs in the dispatcher if that pays,
// plans the repeats, and samples (rounds).
func (s *sampler) run() (err error) {
	s.start = time.Now()
	anchors, err := s.holdDispatcher()
	defer func() {
		err = errors.Join(err, s.release(anchors))
	}()
	if err != nil {
		return err
	}
	perRun, err := probe(s.ctx, s.units)
	if err != nil {
		return err
	}
	if s.repeat == 0 {
		s.repeat = chooseRepeat(perRun, s.target())
	}
	s.planRepeats(perRun)
	if s.sampling.PastBudget != "" && s.cfg.Notice != nil {
		s.cfg.Notice(s.sampling.PastBudget)
	}
	// Counted over the rounds only: while anchors come and go, the
	// waker and the anchors, at SCHED_NORMAL, take the CPU by design.
	before := host.ThreadPreemptions()
	defer func() { s.preempted = host.ThreadPreemptions() - before }()
	return s.rounds()
}

// target is how long a sample of a chosen repeat lasts.
func (s *sampler) target() time.Duration {
	if s.cfg.TargetSample > 0 {
		return s.cfg.TargetSample
	}
	return TargetSample
}

// planRepeats chooses how the samples repeat: the calls of one run a
// sample of a single-run case takes, the levels of linear sampling where
// the calls are cheap enough for the wall clock, and the rounds; perRun is
// each unit's probed time per run.
func (s *sampler) planRepeats(perRun []float64) {
	s.resetCost = s.slowestReset()
	s.singleCalls = singleCalls(s.dispatcher.Overhead+s.resetCost, float64(s.target().Nanoseconds())/float64(s.repeat))
	s.sampling = results.Sampling{Mode: string(SamplingFlat)}
	if s.cfg.Sampling != SamplingFlat { // linear, the default when empty
		if s.linear, s.sampling.Why = s.planLinear(perRun); s.linear != nil {
			s.sampling = results.Sampling{Mode: string(SamplingLinear), First: s.linear.first, Step: s.linear.step, Levels: s.linear.levels, Clock: Clock}
		}
	}
	if slices.ContainsFunc(s.units, func(u unit) bool { return u.result.Single }) {
		s.sampling.SingleCalls = s.singleCalls
	}
	s.planRounds(perRun)
}

// planRounds sets the fewest rounds every result needs and the warm-up's
// repeat, and where those rounds outlast the time budget (a large given
// repeat) says so: as Criterion does, it takes the time, and never
// refuses a result for a repeat the tool accepts.
func (s *sampler) planRounds(perRun []float64) {
	s.minRounds, s.warmRepeat = MinSamples, MaxRepeat
	mean := float64(s.repeat)
	if s.linear != nil {
		// A comparison over placements judges the spread of their slopes:
		// from five 50 ms calls a level (repeat 1000000) they spread by
		// 2-3 % on a host with fast and slow phases, and v3 -> v4 read 5,
		// 3 and 2 of its 5 changes improved in three runs; with ten calls
		// a level, 5, 5 and 4.
		perLevel := minCallsPerLevel
		if s.cfg.Placements > 1 && !s.cfg.Grouped {
			perLevel = callsPerLevel
		}
		s.minRounds = max(MinSamples, s.linear.levels*perLevel)
		mean = s.linear.meanRepeat()
	}
	if sum := floats.Sum(perRun); sum > 0 {
		// A warm-up round lasts about the warm-up, or as long as a round of
		// samples of a chosen repeat, whichever is longer.
		round := max(s.cfg.Warmup, s.target()*time.Duration(len(s.units)))
		s.warmRepeat = uint32(min(max(float64(round.Nanoseconds())/sum, minChosenRepeat), MaxRepeat))
	}
	if s.cfg.Enough == nil {
		return
	}
	if need := s.roundCost(perRun, mean) * time.Duration(s.minRounds); need > s.spare() {
		total := time.Since(s.start) + s.cfg.Warmup + need
		s.sampling.PastBudget = fmt.Sprintf("at repeat %d the %d rounds every result needs take about %s, past the %s the time budget (--time) leaves: taking them (a smaller repeat takes less)",
			s.repeat, s.minRounds, total.Round(time.Second/10), s.cfg.Budget.Round(time.Second/10))
	}
}

// roundCost estimates the wall time of a round at a mean repeat of mean,
// from each unit's probed time per run; a single-run unit costs its calls.
func (s *sampler) roundCost(perRun []float64, mean float64) time.Duration {
	overhead := float64(s.dispatcher.Overhead.Nanoseconds())
	var ns float64
	for i, u := range s.units {
		if u.result.Single {
			ns += float64(s.singleCalls) * (overhead + float64(s.resetCost.Nanoseconds()) + perRun[i])
		} else {
			ns += overhead + perRun[i]*mean
		}
	}
	return time.Duration(ns)
}

// spare is what the time budget leaves for the kept rounds, after
// calibration and the warm-up.
func (s *sampler) spare() time.Duration {
	return s.cfg.Budget - time.Since(s.start) - s.cfg.Warmup
}

// rounds warms up and samples: cfg.Samples rounds, or with cfg.Enough
// until every case has enough (after cfg.Samples rounds and cfg.MinTime)
// or the budget, counted from s.start, is spent, but never fewer than
// s.minRounds.
func (s *sampler) rounds() error {
	// Warm-up: whole rounds until the warm-up time is spent, at least one.
	warm := time.Now().Add(s.cfg.Warmup)
	for round := 0; round == 0 || time.Now().Before(warm); round++ {
		if err := s.round(round, false); err != nil {
			return err
		}
	}
	deadline := s.start.Add(s.cfg.Budget)
	settled := time.Now().Add(s.cfg.MinTime)
	for round := 0; ; round++ {
		if err := s.round(round, true); err != nil {
			return err
		}
		if s.cfg.Enough == nil {
			if round+1 >= s.cfg.Samples {
				return nil
			}
			continue
		}
		if round+1 < s.minRounds {
			continue
		}
		if round+1 >= s.cfg.Samples && !time.Now().Before(settled) && s.judge() {
			return nil
		}
		if !time.Now().Before(deadline) {
			return nil
		}
	}
}

// round takes one sample of every unit, in an order shuffled anew each
// round: a unit's time depends on what ran before it (the caches and
// branch predictors it finds), and with a fixed or merely alternated order
// some units always follow the same neighbour. Measured here, that made
// two loads of one program differ by up to 0.9 % in a run.
func (s *sampler) round(round int, keep bool) error {
	s.order.Shuffle(len(s.visit), func(i, j int) { s.visit[i], s.visit[j] = s.visit[j], s.visit[i] })
	for _, i := range s.visit {
		if err := s.take(s.units[i], round, keep); err != nil {
			return err
		}
	}
	s.machine.Mark() // between rounds
	return nil
}

func (s *sampler) take(u unit, round int, keep bool) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	var m measurement
	var err error
	repeat := s.repeatOf(round)
	if !keep {
		repeat = min(repeat, s.warmRepeat)
	}
	if u.result.Single {
		m, err = u.prog.sampleSingle(u.result.nextFrame, u.result.ctxIn, s.singleCalls, u.result.Return, u.result.resetState())
		u.result.Calls += s.singleCalls
	} else {
		m, err = u.prog.sample(u.result.Case.Frame, u.result.ctxIn, repeat)
	}
	if !u.result.Single && u.result.flows != nil {
		u.result.Calls += int(repeat) // the runs of its flows so far
	}
	if err != nil {
		return fmt.Errorf("case %s: %w", u.result.Case.Name, err)
	}
	if keep {
		u.result.Samples = append(u.result.Samples, m.perRun)
		if s.linear != nil && !u.result.Single {
			u.result.Runs = append(u.result.Runs, repeat)
			u.result.Wall = append(u.result.Wall, float64(m.wall.Nanoseconds()))
		}
		u.result.Retries += m.retries
		if m.retval != u.result.Return && m.retval != NoReturn {
			if u.result.OtherReturns == 0 {
				u.result.OtherReturn = m.retval
			}
			u.result.OtherReturns++
		}
		s.kept++
	}
	if s.cfg.Progress != nil {
		p := Progress{Warmup: !keep, Done: s.kept, Total: s.cfg.Samples * len(s.units), Case: u.result.Case.Name}
		if s.cfg.Enough != nil {
			p.Elapsed, p.Budget = time.Since(s.start), s.cfg.Budget
		}
		s.cfg.Progress(p)
	}
	return nil
}

// judgeShare bounds the time spent asking Enough, as a share of the time
// spent sampling: a check waits until the sampling since the last one took
// (1-judgeShare)/judgeShare times as long as that check.
const judgeShare = 0.1

// judge asks Enough of every case not yet accepted, when a check is due,
// and says whether every case is accepted. Every case stays in the rounds
// until all have enough: a case that left early would be known only from
// the machine's phases of its first seconds.
func (s *sampler) judge() bool {
	now := time.Now()
	if !s.lastCheck.IsZero() && now.Sub(s.lastCheck) < time.Duration(float64(s.checkCost)*(1-judgeShare)/judgeShare) {
		return false
	}
	all := true
	for ci, units := range s.byCase {
		if units[0].result.Enough {
			continue
		}
		if s.cfg.Enough(ci, s.measured(units)) {
			for _, u := range units {
				u.result.Enough = true
			}
		} else {
			all = false
		}
	}
	s.lastCheck = time.Now()
	s.checkCost = s.lastCheck.Sub(now)
	return all
}

// measured returns the results so far of a case's units that belong to
// measured programs, not to the floor.
//
// They come program by program, in the order of Config.Programs, each
// program's placements in the order loaded.
func (s *sampler) measured(units []unit) []CaseResult {
	var results []CaseResult
	for program := range s.cfg.Programs {
		for _, u := range units {
			if u.program == program {
				results = append(results, *u.result)
			}
		}
	}
	return results
}

// AnchorWorthIt is the cost of a call beyond its timed loop below which
// anchors are not started: a kernel whose dispatcher changes do not wait
// for RCU (before 6.2) or a program type that has no dispatcher.
const AnchorWorthIt = 50 * time.Microsecond

// anchorSettle bounds the wait for anchors to enter the kernel.
const anchorSettle = 2 * time.Second

// overheadCalls is how many calls the anchored overhead is the median of.
const overheadCalls = 9

// holdDispatcher measures what a call costs beyond its timed loop and,
// for XDP where that is worth it, starts an anchor for every program and
// waits until the calls are cheap. It records what it found in
// s.dispatcher.
func (s *sampler) holdDispatcher() ([]*anchor, error) {
	first, frame, progCtx := s.progs[0], s.cfg.Cases[0].Frame, s.byCase[0][0].result.ctxIn
	d := &s.dispatcher
	var err error
	if d.Unanchored = s.cfg.Unanchored; d.Unanchored == 0 {
		if d.Unanchored, err = callOverhead(s.ctx, first.Loaded, frame, progCtx, 1); err != nil {
			return nil, err
		}
	}
	d.Overhead = d.Unanchored
	switch {
	case s.cfg.Anchor == AnchorNever:
		d.Why = "anchors turned off"
		return nil, nil
	case s.cfg.Timer == TimerStats:
		// run_time_ns counts every run of the program, an anchor's too.
		d.Why = "the stats timer would count the anchors' runs"
		return nil, nil
	case first.Info.Type != ebpf.XDP:
		d.Why = "only XDP test runs change the dispatcher"
		return nil, nil
	case d.Unanchored < AnchorWorthIt:
		d.Why = fmt.Sprintf("a call costs %s beyond its runs without anchors: not worth one", d.Unanchored)
		return nil, nil
	}
	held := uniquePrograms(append(slices.Clone(s.progs), s.held...))
	// Each anchor blocks in the kernel, holding one of the runtime's Ps,
	// which the others need while anchors come and go; not while the
	// rounds run, where spare Ps would let the garbage collector run
	// workers on the measuring CPU (a quarter of GOMAXPROCS).
	defer host.ReserveProcs(len(held) + 1)()
	// After the unanchored call is timed: it is what a call costs as the
	// kernel is set.
	endExpedite, expedited := host.ExpediteRCU()
	defer endExpedite()
	d.Expedited = expedited
	// Changes of the dispatcher wait for the anchors (anchor.go).
	w, err := host.StartWaker(s.cpu)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAnchor, err)
	}
	defer w.End()
	var anchors []*anchor
	for _, l := range held {
		a, err := startAnchor(s.cpu, l.Loaded)
		if err != nil {
			return anchors, err
		}
		anchors = append(anchors, a)
		if err := s.settle(a, l, frame, progCtx); err != nil {
			return anchors, err
		}
		if d.Why != "" {
			return nil, s.release(anchors)
		}
		if err := a.idle(); err != nil {
			return anchors, err
		}
	}
	if d.Overhead, err = callOverhead(s.ctx, first.Loaded, frame, progCtx, overheadCalls); err != nil {
		return anchors, err
	}
	d.Anchored, d.Programs = true, len(anchors)
	d.Why = fmt.Sprintf("each XDP program held in the dispatcher by a test run in flight at SCHED_IDLE: a call costs %s beyond its runs, %s without",
		d.Overhead.Round(100*time.Nanosecond), d.Unanchored.Round(100*time.Microsecond))
	if d.Expedited {
		d.Why += "; RCU grace periods expedited while anchors came and went (/sys/kernel/rcu_expedited, put back after)"
	}
	return anchors, nil
}

// settle waits until a, just started, holds l in the dispatcher: until a
// call of l is cheap. Where that does not come within anchorSettle, it
// says why in s.dispatcher.Why.
func (s *sampler) settle(a *anchor, l *program, frame, progCtx []byte) error {
	// Napping until the anchor is in the kernel, and a little after,
	// this thread's call rarely waits on the anchor's change.
	settled := time.Now().Add(anchorSettle)
	for !a.entering.Load() && time.Now().Before(settled) {
		host.Nap()
	}
	for {
		host.Nap()
		o, err := callOverhead(s.ctx, l.Loaded, frame, progCtx, 1)
		if err != nil {
			return err
		}
		if o < s.dispatcher.Unanchored/4 {
			return nil
		}
		if time.Now().After(settled) {
			s.dispatcher.Why = fmt.Sprintf("anchors did not shorten the calls of %s (%s beyond its runs)", l.Info.Name, o)
			return nil
		}
	}
}

// release ends every anchor and confirms it ended.
func (s *sampler) release(anchors []*anchor) error {
	defer host.ReserveProcs(len(anchors))()
	if len(anchors) > 0 {
		endExpedite, _ := host.ExpediteRCU()
		defer endExpedite()
	}
	err := releaseAnchors(anchors)
	for _, a := range anchors {
		s.dispatcher.Restarts += int(a.restarts.Load())
	}
	return err
}

// uniquePrograms returns progs without repeats of one kernel program.
func uniquePrograms(progs []*program) []*program {
	var out []*program
	for _, l := range progs {
		if !slices.ContainsFunc(out, func(o *program) bool { return o.Prog == l.Prog }) {
			out = append(out, l)
		}
	}
	return out
}

// slowestReset times one putting back of each single-run unit's maps, and
// returns the slowest; errors are left for the samples to meet.
func (s *sampler) slowestReset() time.Duration {
	var slowest time.Duration
	for _, u := range s.units {
		reset := u.result.resetState()
		if !u.result.Single || reset == nil {
			continue
		}
		start := time.Now()
		_ = reset()
		slowest = max(slowest, time.Since(start))
	}
	return slowest
}
