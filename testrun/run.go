package testrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// Limits on the configuration.
const (
	MinSamples = 10 // fewer cannot support a bootstrap interval or outlier fences
	// MaxSamples bounds Config.Samples: every case of every program keeps
	// that many, allocated before the first is taken.
	MaxSamples = 100_000
	MaxRepeat  = math.MaxUint32
)

// Resolution is the kernel's quantum for the time of one run, in ns:
// BPF_PROG_TEST_RUN reports floor(total ns / repeat).
const Resolution = 1.0

// Timer is how the time of a run is taken.
type Timer string

const (
	// TimerKernel is BPF_PROG_TEST_RUN's own figure: the loop of Repeat
	// runs timed as a whole, reported as whole nanoseconds per run.
	TimerKernel Timer = "kernel"
	// TimerStats is BPF_ENABLE_STATS: the kernel times every run with
	// sched_clock and sums it in run_time_ns; a sample is the growth of
	// run_time_ns over that of run_cnt. Finer than 1 ns, but each run
	// carries the cost of the two clock reads.
	TimerStats Timer = "stats"
)

// ErrNoRunTimeStats: the stats timer's run-time statistics cannot be
// enabled here.
var ErrNoRunTimeStats = errors.New("no BPF run-time statistics")

// ErrConfig reports a configuration that cannot be run. It is the very
// value the loader (internal/object) wraps its refusals in, so that one
// sentinel stands for both; it wraps the module's bad-input error.
var ErrConfig = object.ErrConfig

// Program names a program to measure.
type Program struct {
	Label   string // distinguishes programs measured together, e.g. "before"
	Object  Object
	Program string // function name; empty for the only supported one
	// Live runs the program with live frames (Config.Live): its action
	// is carried out, and its time includes it.
	Live bool
}

// AnyCPU lets Run choose the CPU to measure on (see host.ChooseCPU).
const AnyCPU = host.AnyCPU

// Config is what to measure, and how.
type Config struct {
	Programs []Program
	Cases    []packets.Case
	CPU      int           // CPU to measure on, or AnyCPU
	Warmup   time.Duration // time spent sampling before samples are kept
	// Samples is the number of samples kept per case and program; with
	// Enough, the fewest rounds before Enough is asked.
	Samples int
	// Repeat is the runs per sample; 0 chooses it (see chooseRepeat).
	Repeat uint32
	// TargetSample is how long a sample of a chosen repeat lasts; 0 is
	// the package's TargetSample.
	TargetSample time.Duration
	// Enough, if set, makes sampling adaptive: after every round from the
	// Samples-th on, it is asked of each case not yet accepted, with that
	// case's results so far per program (not the floor's), program by
	// program, each program's placements together, whether they suffice. Sampling ends when every case is accepted or Budget is
	// spent. It runs on the measuring thread between rounds, at most a
	// tenth of the time (judgeShare).
	Enough func(caseIndex int, results []CaseResult) bool
	// Budget bounds the time of calibration, warm-up and sampling when
	// Enough is set.
	Budget time.Duration
	// MinTime, with Enough, is the least time spent sampling before Enough
	// is asked: the machine's phases last up to about a second, and a low
	// quantile judged on a shorter stretch could be one phase's alone.
	MinTime time.Duration
	// Anchor says whether XDP programs are held in the dispatcher while
	// they are sampled (see anchor.go); the zero value anchors where the
	// calibration finds that it pays.
	Anchor AnchorPolicy
	Timer  Timer // TimerKernel (the default when empty) or TimerStats
	// Sampling is SamplingLinear (the default when empty, as in the root
	// package's Options) or SamplingFlat; Levels is linear sampling's
	// number of repeat levels, 0 for DefaultLevels. In linear mode, Repeat
	// is the mean repeat of a sample.
	Sampling SamplingMode
	Levels   int
	// Restore samples every case of an XDP program through a restorer, as
	// repeats each on a fresh copy of the frame; cases a program changes
	// the frame of are sampled so anyway, where the restorer reproduces
	// their runs (restore.go).
	Restore bool
	// SingleRun samples every case one run a call; cases a program changes
	// the frame of are sampled so anyway.
	SingleRun bool
	// Placements is how many times each program is loaded, 0 or 1 for
	// once. Each load is JIT-compiled to its own address, and two loads of
	// one program differ in speed by up to a few per cent (the code's
	// placement); comparing builds over several placements each keeps that
	// from passing for the builds' difference. The extra loads come back
	// in ProgramResult.Placements.
	Placements int
	// Grouped says this run is one group of several whose loads are
	// judged together: its loads need no more calls than any other, and
	// fewer repeat levels (GroupedLevels) when Levels is 0.
	Grouped bool
	// Unanchored, if set, is what an earlier run on this CPU found a call
	// to cost without anchors: calibration then takes it, rather than pay
	// two dispatcher changes to find it again.
	Unanchored time.Duration
	// Floor, if set, is an object of empty programs: the one of the
	// measured programs' type is sampled with every case in the same rounds,
	// so that each case's time can be given net of the harness's own.
	// FloorPlacements loads it that many times (0 or 1: once), as
	// Placements the programs, so that the net holds its placement too.
	Floor           *Object
	FloorPlacements int
	// MapInit, if set, fills maps of every program after loading, and sets
	// variables and map sizes before.
	MapInit *MapInit
	// Load changes every measured object before loading (not the floor).
	Load LoadOptions
	// Progress, if set, is called after every sample, on the measuring
	// thread: it must return at once.
	Progress func(Progress)
	// KeepBlocks keeps, for every case, how many times each basic block of
	// the program ran (CaseResult.Blocks), and for every program what the
	// blocks are of (ProgramResult.Counted): for per-line profiles.
	KeepBlocks bool
	// Counts, where set, are the instruction counts an earlier run of the
	// same programs and cases found (Result.Counts): a later group of
	// loads takes them rather than instrument and run a copy again, which
	// took 5 to 40 ms a group here. Counts do not move with a load.
	Counts *Counts
	// Live is where the frames of programs with Program.Live go.
	Live *Live
	// Notice, if set, is told in one line what a person waiting for the
	// run should know at once: that it waits for another xdpmicro run to
	// free the measuring CPU (cpulock.go), or will take longer than Budget.
	Notice func(string)
	// PutBackTimed says an earlier run of the same programs and cases
	// timed the first state's put-backs (CaseResult.PutBack): this one
	// does not time them again, which costs some 50 ms a case of calls
	// outside the dispatcher.
	PutBackTimed bool
}

// AnchorPolicy says when to hold XDP programs in the dispatcher.
type AnchorPolicy int

const (
	// AnchorWherePays anchors XDP programs when calibration finds that a
	// call costs more without an anchor than AnchorWorthIt.
	AnchorWherePays AnchorPolicy = iota
	// AnchorNever leaves every call to change the dispatcher twice.
	AnchorNever
)

// Progress says how far a run has got.
type Progress struct {
	Warmup bool   // still warming up: Done and Total count kept samples only
	Done   int    // samples kept so far, over all cases and programs
	Total  int    // samples to keep
	Case   string // the case just sampled
	// Elapsed and Budget are set when sampling is adaptive: how much of
	// the time budget is spent.
	Elapsed, Budget time.Duration
}

// CaseResult holds one case's samples for one program.
type CaseResult struct {
	Case    packets.Case
	Return  uint32
	Action  string
	Samples []float64 // kernel's ns per run, one per sample, in the order taken
	// Runs and Wall are, with linear sampling, each sample's repeat and
	// the wall time of its call in ns.
	Runs    []uint32
	Wall    []float64
	Retries int // samples restarted after EINTR
	// Enough says adaptive sampling found the samples sufficient; false
	// when the budget ran out first, or sampling was not adaptive.
	Enough bool
	// Effects are the changes the checking run made to the maps.
	Effects []Effect
	// Single says the case was sampled one run a call, each on a fresh
	// copy of the frame: some program changed it (Output), or
	// Config.SingleRun asked. Its samples have no Runs or Wall.
	Single bool
	// Undone says a first-state case was sampled as repeats through an
	// undoer, which puts the maps back before each run inside the kernel
	// (undo.go); the floor's, undoing alike on maps of its own, takes
	// that out of the net.
	Undone bool
	// PutBack is, for an undone case, what its undoer's put-back took a
	// run, timed inside BPF (putBackCost), in ns: the floor's may differ.
	PutBack float64
	// LRUMap and LRUEntries name, for an undone case, an LRU map whose
	// new entry the put-back deletes, and its size (recycledLRU).
	LRUMap     string
	LRUEntries uint32
	// Restored says the case was sampled as repeats through a restorer,
	// every run on a fresh copy of the frame (restore.go): some program
	// changed it, or Config.Restore asked. Its samples are the
	// restorer's, which the floor's, restored alike, take out of the net.
	Restored bool
	// Output is the frame as the checking run left it, when the program
	// changed it. The kernel runs every repeat on one buffer, so from the
	// second run on the program sees its own output.
	Output []byte
	// OtherReturns counts the samples whose call's last run returned
	// another action than the checking run, OtherReturn the first such
	// return: later runs took another path (the changed frame, or maps the
	// earlier runs filled).
	OtherReturns int
	OtherReturn  uint32
	// Instructions is the number of BPF instructions of the path the
	// samples timed, counted on an instrumented copy (insns.go): the first
	// run's in the first state, a run's after a warm-up otherwise; zero
	// when not counted, and NoCount says why.
	Instructions uint64
	NoCount      string
	// FirstInstructions and LaterInstructions are those of the first run
	// from the maps as loaded and of a run after a warm-up of the case's
	// own runs: they differ when the program takes another path once its
	// maps hold what its first run changed (a miss, then hits).
	FirstInstructions, LaterInstructions uint64
	// LaterReturn is the later run's return; Return is the first's.
	LaterReturn uint32
	// Unrestored names the maps whose changes are not put back between a
	// first-state case's runs, each with why (not copied: too large, or
	// unreadable); empty when every change is.
	Unrestored string
	// Calls counts the runs a flows=N case's samples made, the warm-up's
	// too: how far its flows went (and the calls of one run each of any
	// case sampled so).
	Calls int
	// FlowReplay, in a flows=N state, is what the instrumented copy saw
	// replaying the case's flows twice from the maps as loaded; nil when
	// not counted.
	FlowReplay *FlowReplay
	// Blocks, with Config.KeepBlocks, are how many times the checking run
	// executed each basic block of ProgramResult.Counted.Blocks.
	Blocks []uint64
	// ContextChanges are the fields of Case.Context that the checking
	// run's program changed; such a case is sampled one run a call too.
	ContextChanges []ContextChange
	// ctxIn is Case.Context as the program type's struct; nil without one.
	ctxIn []byte
	// undo puts the maps back as they were before the checking run: after
	// it, and before each run of a first-state case.
	undo object.Undo
	// flows are a flows=N case's flows, run in turn from nextFlow, each
	// made in flowBuf when its call comes: none is kept.
	flows    *packets.FlowSet
	nextFlow int
	flowBuf  []byte
}

// FlowReplay is a flows=N case replayed on the instrumented copy: its N
// flows in turn, twice, from the maps as loaded, as its samples run them.
type FlowReplay struct {
	Flows int
	// Misses counts, in each pass, the runs that took a new flow's path
	// (ran a block that the case's first run runs and a later one does
	// not); Instructions the instructions all the pass's runs executed.
	Misses       [2]int
	Instructions [2]uint64
}

// MissRate is the share of calls runs of the flows in turn that miss:
// the first pass's misses, then the second's for every pass after it.
func (r FlowReplay) MissRate(calls int) float64 {
	return r.over(calls, float64(r.Misses[0]), float64(r.Misses[1]))
}

// MeanInstructions is the instructions a run of calls runs executes on
// average, as MissRate counts.
func (r FlowReplay) MeanInstructions(calls int) float64 {
	return r.over(calls, float64(r.Instructions[0]), float64(r.Instructions[1]))
}

func (r FlowReplay) over(calls int, first, later float64) float64 {
	k, n := float64(calls), float64(r.Flows)
	if k <= 0 || n <= 0 {
		return 0
	}
	if k <= n {
		return first / n
	}
	return (first + (k-n)*later/n) / k
}

// State is the map state the case was timed in: its Case.State, or
// steady.
func (c CaseResult) State() string {
	if c.Case.State == "" {
		return packets.StateSteady
	}
	return c.Case.State
}

// oneRunACall says whether a case in this map state is sampled one run a
// call: in the first state, to put the maps back before each run; in a
// flows=N one, to give each run its flow's frame.
func oneRunACall(state string) bool {
	return state == packets.StateFirst || packets.FlowsOf(state) > 0
}

// PathChanges says whether later runs took another path than the first.
func (c CaseResult) PathChanges() bool {
	return c.FirstInstructions != c.LaterInstructions || (c.LaterInstructions > 0 && c.LaterReturn != c.Return)
}

// nextFrame is the frame of the case's next call: its own, or in a
// flows=N state the next of its flows in turn.
func (c *CaseResult) nextFrame() []byte {
	if c.flows == nil {
		return c.Case.Frame
	}
	c.flowBuf = c.flows.Into(c.flowBuf, c.nextFlow)
	c.nextFlow = (c.nextFlow + 1) % c.flows.N()
	return c.flowBuf
}

// resetState puts the maps back before a run of a first-state case; nil
// for other states.
func (c *CaseResult) resetState() func() error {
	if c.Case.State != packets.StateFirst || c.Undone {
		return nil
	}
	return c.undo.Apply
}

// ProgramResult holds the results for one program.
type ProgramResult struct {
	Label  string
	Object string
	Info   ProgramInfo
	Cases  []CaseResult
	// Placements are the results of the program's other loads, sampled
	// in the same rounds (Config.Placements).
	Placements []ProgramResult
	// Counted, with Config.KeepBlocks, is what the cases' Blocks count; nil
	// when the program was not counted.
	Counted *Counted
	// Verifier is what the kernel told of this load: the verifier's
	// statistics and the program's sizes; nil where it told nothing.
	Verifier *VerifierStats
	// CodeOffset is where this load's JIT image begins in its cache line,
	// in bytes; nil where the kernel does not tell. Loads differ in speed
	// by it (see placement.go).
	CodeOffset *int
}

// Result is everything a run measured.
type Result struct {
	Environment results.Environment
	Programs    []ProgramResult
	// Floor holds the empty program's samples, when Config.Floor was set.
	Floor *ProgramResult
	// Partial is set when the run was cancelled before every sample was taken.
	Partial bool
	// Counts are the instruction counts found, for Config.Counts of a
	// later run of the same programs and cases.
	Counts *Counts
}

func (c Config) validate() error {
	switch {
	case len(c.Programs) == 0:
		return fmt.Errorf("%w: no program to measure", ErrConfig)
	case len(c.Cases) == 0:
		return fmt.Errorf("%w: no packet case", ErrConfig)
	case c.Samples < MinSamples:
		return fmt.Errorf("%w: %d samples is below the minimum of %d", ErrConfig, c.Samples, MinSamples)
	case c.Samples > MaxSamples:
		return fmt.Errorf("%w: %d samples is above the maximum of %d", ErrConfig, c.Samples, MaxSamples)
	case c.Enough != nil && c.Budget <= 0:
		return fmt.Errorf("%w: adaptive sampling needs a time budget", ErrConfig)
	case c.Warmup < 0:
		return fmt.Errorf("%w: the warm-up must not be negative", ErrConfig)
	case c.Timer != "" && c.Timer != TimerKernel && c.Timer != TimerStats:
		return fmt.Errorf("%w: timer %q: want %s or %s", ErrConfig, c.Timer, TimerKernel, TimerStats)
	case c.SingleRun && c.Restore:
		return fmt.Errorf("%w: one run a call and restored frames are two ways to a fresh frame: choose one", ErrConfig)
	case c.Sampling != "" && c.Sampling != SamplingFlat && c.Sampling != SamplingLinear:
		return fmt.Errorf("%w: sampling %q: want %s or %s", ErrConfig, c.Sampling, SamplingLinear, SamplingFlat)
	case c.Levels < 0 || c.Levels == 1:
		return fmt.Errorf("%w: %d repeat levels: want at least 2", ErrConfig, c.Levels)
	}
	return c.validateLive()
}

// Run loads the programs, checks every case once, and samples them all on
// one pinned CPU. When ctx is cancelled it stops after the current sample
// and returns what it has, marked Partial, with ctx's error; cancelled
// while it waits for the CPU (another xdpmicro run holds it, cpulock.go),
// it returns nothing, with ctx's error.
//
// Its phases: prepare (everything that can be refused before loading),
// load, check (one run per case), measure (calibration, warm-up, samples)
// and assemble.
func Run(ctx context.Context, cfg Config) (Result, error) {
	p, progs, res, err := begin(ctx, cfg)
	defer p.releaseCPU() // last: everything on the CPU has ended
	defer closeAll(progs)
	if err != nil {
		return Result{}, err
	}
	defer p.releaseRestorers()
	defer p.releaseUndoers() // before the restorers they tail-call
	err = p.measure(ctx, progs, &res)
	res = p.assemble(res)
	if err != nil {
		if ctx.Err() != nil {
			res.Partial = true
			if errors.Is(err, errCancelled) {
				// The interrupted call is the cancellation itself, not a failure.
				err = ctx.Err()
			}
			return res, err
		}
		return Result{}, err
	}
	return res, nil
}

// begin prepares, loads and checks: the phases Run and Check share. It
// returns the plan, holding the CPU, and what it loaded even on error,
// for the caller to release and close.
func begin(ctx context.Context, cfg Config) (p *plan, progs []*program, res Result, err error) {
	if p, err = prepare(ctx, cfg); err != nil {
		return nil, nil, Result{}, err
	}
	if progs, err = p.load(ctx); err != nil {
		return p, progs, Result{}, err
	}
	// On the measuring CPU: a per-CPU map's changes then show on the CPU
	// the samples run on, and the checking run finds its caches warm.
	err = p.pin(func() error {
		var err error
		res, err = p.check(ctx, progs)
		return err
	})
	return p, progs, res, err
}

func closeAll(progs []*program) {
	for _, l := range progs {
		l.Close()
	}
}

// plan is a run that passed every check that needs no kernel.
type plan struct {
	cfg       Config
	cpu       int
	claim     *host.Claim        // the CPU's lock, held until the run returns
	picked    []object.Chosen    // every placement of every program, the floor last
	programOf []int              // the index in cfg.Programs of each picked, -1 for the floor
	floor     int                // index of the floor's first load in picked, or -1; its others follow
	updates   [][]object.Update  // map-init entries per program
	others    [][]object.Other   // objects loaded beside each program (map-init)
	linkLayer bool               // frames behind a copy of their Ethernet header
	restorers []*restorer        // one per program and the floor, when cases are restored
	flows     []*packets.FlowSet // the flows of each flows=N case, nil for others
	undoers   [][]*undoer        // by program and case: first-state cases' undoers, nil for others

	// candidates is how many loads are drawn for each kept
	// (placement.go), as the kernel memory budget allows; 0:
	// candidatesPerLoad.
	candidates int
}

// prepare checks the configuration, the objects, the expectations and the
// map-init file against the objects, and the privileges, in that order:
// bad input is reported as such, whatever the privileges. Last it chooses
// the CPU and takes its lock, which may wait for another run: nothing
// that can be refused is left to refuse after a wait.
func prepare(ctx context.Context, cfg Config) (*plan, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p := &plan{cfg: cfg, floor: -1}
	allowed, err := host.AllowedCPUs(cfg.CPU)
	if err != nil {
		return nil, err
	}
	settings, err := object.NewSettings(object.LoadOptions(cfg.Load), cfg.MapInit.internal())
	if err != nil {
		return nil, err
	}
	if settings.LinkLayer() {
		p.cfg.Cases, p.linkLayer = object.BehindLinkHeader(cfg.Cases), true
	}
	if err := p.pick(settings); err != nil {
		return nil, err
	}
	if err := p.resolveMapInits(ctx, settings); err != nil {
		return nil, err
	}
	if err := p.fitKernelMemory(settings.KernelMemory()); err != nil {
		return nil, err
	}
	if err := p.checkContexts(); err != nil {
		return nil, err
	}
	if err := p.makeFlows(); err != nil {
		return nil, err
	}
	if err := host.CheckPrivileges(); err != nil {
		return nil, err
	}
	// At the start, not at the anchors: a run that ends before them, or
	// runs none, still puts back a knob a dead run left set.
	if note := host.RecoverRCU(); note != "" && cfg.Notice != nil {
		cfg.Notice(note)
	}
	if p.claim, err = host.ChooseCPU(ctx, cfg.CPU, allowed, cfg.Notice); err != nil {
		return nil, err
	}
	p.cpu = p.claim.CPU
	return p, nil
}

// pick chooses every program in its object and lays out the loads in
// p.picked: each program's placements, then the floor's. Each program's
// type is checked against restored frames and the cases' expectations.
func (p *plan) pick(settings object.Settings) error {
	var chosen []object.Chosen
	for _, prog := range p.cfg.Programs {
		c, err := object.Choose(object.Object(prog.Object), prog.Program, settings)
		if err != nil {
			return err
		}
		chosen = append(chosen, c)
	}
	// The placements are loaded in turns, one of each program a turn:
	// loads that follow each other land near each Other, and loading one
	// build's all before the other's measured here as a difference of the
	// builds.
	for range max(p.cfg.Placements, 1) {
		for i, c := range chosen {
			p.picked, p.programOf = append(p.picked, c), append(p.programOf, i)
		}
	}
	for _, c := range p.picked {
		if p.cfg.Restore && c.Info.Type != ebpf.XDP {
			return fmt.Errorf("%w: restored frames are for XDP programs; %s is %s program", ErrConfig, c.Info.Name, object.WithArticle(c.Info.Type))
		}
		for _, k := range p.cfg.Cases {
			if k.Expect == "" {
				continue
			}
			if _, err := object.ParseExpect(c.Info.Type, k.Expect); err != nil {
				return fmt.Errorf("case %s: %w", k.Name, err)
			}
		}
	}
	if p.cfg.Floor == nil {
		return nil
	}
	c, err := object.ChooseByType(object.Object(*p.cfg.Floor), p.picked[0].Info.Type)
	if err != nil {
		return err
	}
	p.floor = len(p.picked)
	for range max(p.cfg.FloorPlacements, 1) {
		p.picked, p.programOf = append(p.picked, c), append(p.programOf, -1)
	}
	return nil
}

// resolveMapInits resolves the map-init entries of every program's loads
// against its object into p.updates and p.others (the floor takes none),
// and checks them against live frames' network.
func (p *plan) resolveMapInits(ctx context.Context, settings object.Settings) error {
	p.updates, p.others = make([][]object.Update, len(p.picked)), make([][]object.Other, len(p.picked))
	for i, c := range p.picked {
		if p.isFloor(i) {
			continue
		}
		if j := slices.Index(p.programOf, p.programOf[i]); j < i {
			// Every load of a program takes the same entries, resolved
			// once: a million of them take a second.
			p.updates[i], p.others[i] = p.updates[j], p.others[j]
			continue
		}
		// Not waited for once ctx is done: 16 M entries take seconds.
		r, err := orAbandon(ctx, func() (resolved, error) {
			u, o, err := resolveMapInit(p.cfg.MapInit.internal(), c, settings)
			return resolved{u, o}, err
		}, func(resolved) {})
		if err != nil {
			return err
		}
		p.updates[i], p.others[i] = r.updates, r.others
		if p.cfg.Live != nil {
			if err := checkLiveMapInit(p.cfg.Live.Net.pair, p.updates[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// makeFlows checks every flows=N case's flows into p.flows; their frames
// are made one at a time, as they run.
func (p *plan) makeFlows() error {
	p.flows = make([]*packets.FlowSet, len(p.cfg.Cases))
	for ci, k := range p.cfg.Cases {
		if n := packets.FlowsOf(k.State); n > 0 {
			var err error
			if p.flows[ci], err = packets.NewFlowSet(k, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// isFloor says whether picked[i] is a load of the floor.
func (p *plan) isFloor(i int) bool { return p.programOf[i] < 0 }

// releaseCPU gives the measuring CPU back to other runs; p may be nil.
func (p *plan) releaseCPU() {
	if p != nil {
		p.claim.Release()
	}
}

// load puts every program into the kernel and fills its maps. It returns
// what it loaded even on error, for the caller to close. Once ctx is done
// it stops between loads and between batches of map-init's entries.
func (p *plan) load(ctx context.Context) ([]*program, error) {
	loads, err := p.loadPlacements(ctx)
	if err != nil {
		return nil, err
	}
	progs := make([]*program, len(loads))
	for i, l := range loads {
		progs[i] = &program{Loaded: l}
	}
	for i, l := range progs {
		if err := ctx.Err(); err != nil {
			return progs, err
		}
		if err := l.LoadOthers(p.others[i]); err != nil {
			return progs, err
		}
		if err := p.applyMapInit(ctx, l, p.updates[i]); err != nil {
			return progs, err
		}
		if !p.isFloor(i) && p.cfg.Live != nil {
			// Plain and live alike, so that both take the same path.
			l.live, l.batch = p.cfg.Programs[p.programOf[i]].Live, p.cfg.Live.Batch
			if l.live {
				l.drain = p.cfg.Live.Net.pair.Drain
			}
			if err := p.fillRedirectMaps(l, p.updates[i]); err != nil {
				return progs, err
			}
		}
	}
	return progs, nil
}

// check runs every case once on every program, as a packet would be run,
// records the action and the changes to the maps, and holds the action
// against the case's expectation. Once ctx is done it stops between
// cases, with ctx's error.
func (p *plan) check(ctx context.Context, progs []*program) (Result, error) {
	res := Result{Environment: environment(p.cfg, p.claim)}
	for i, l := range progs {
		pr := ProgramResult{Label: "floor", Object: l.Object.Name, Info: ProgramInfo(l.Info), Verifier: (*VerifierStats)(l.Verifier)}
		if off, ok := codeOffset(l.Loaded); ok {
			pr.CodeOffset = &off
		}
		if !p.isFloor(i) {
			pr.Label = p.cfg.Programs[p.programOf[i]].Label
		}
		for ci, c := range p.cfg.Cases {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
			cr, err := p.checkCase(ctx, l, c, p.isFloor(i))
			if err != nil {
				return Result{}, err
			}
			cr.flows = p.flows[ci]
			pr.Cases = append(pr.Cases, cr)
		}
		if l.live {
			if err := p.checkLive(l, pr.Cases); err != nil {
				return Result{}, err
			}
		}
		res.Programs = append(res.Programs, pr)
	}
	res.Environment.Notes = p.notes(progs)
	if n := p.claim.Note; n != "" {
		res.Environment.Notes = append(res.Environment.Notes, n)
	}
	if err := p.countInstructions(ctx, progs, &res); err != nil {
		return Result{}, err
	}
	// A case any program changes the frame of is sampled one run a call
	// for every program and the floor, so that all are measured alike; so
	// is a first-state case, its maps put back before every call.
	for ci, k := range p.cfg.Cases {
		single := p.cfg.SingleRun || oneRunACall(k.State)
		for i := range res.Programs {
			c := res.Programs[i].Cases[ci]
			single = single || (!p.isFloor(i) && (c.Output != nil || c.ContextChanges != nil))
		}
		for i := range res.Programs {
			res.Programs[i].Cases[ci].Single = single
			if p.isFloor(i) && k.State == packets.StateFirst {
				// The floor's calls follow the same writes to the maps as
				// the programs' (idempotent, and outside the kernel's
				// figure), so that the net holds no difference in what
				// they leave in the caches.
				res.Programs[i].Cases[ci].undo = res.Programs[0].Cases[ci].undo
			}
		}
	}
	return res, nil
}

func (p *plan) checkCase(ctx context.Context, l *program, c packets.Case, floor bool) (CaseResult, error) {
	before, err := l.SnapshotContext(ctx)
	if err != nil {
		return CaseResult{}, fmt.Errorf("case %s: %w", c.Name, err)
	}
	ctxIn, err := caseContext(l.Info.Type, c)
	if err != nil {
		return CaseResult{}, err
	}
	ctxIn = p.liveContext(l.Info.Type, ctxIn, len(c.Frame))
	ret, out, ctxOut, err := l.RunOnce(c.Frame, ctxIn)
	if err != nil {
		return CaseResult{}, fmt.Errorf("case %s: %w", c.Name, err)
	}
	effects, undo, err := l.Changes(before)
	if err != nil {
		return CaseResult{}, fmt.Errorf("case %s: %w", c.Name, err)
	}
	// Every case, and the samples, start from the maps as loaded: the
	// checking run changed what the timed runs would otherwise start
	// from, and what the next case's check would see.
	if err := undo.Apply(); err != nil {
		return CaseResult{}, fmt.Errorf("case %s: %w", c.Name, err)
	}
	action := object.ActionName(l.Info.Type, ret)
	if c.Expect != "" && !floor {
		// Validated in prepare; cannot fail here.
		want, _ := object.ParseExpect(l.Info.Type, c.Expect)
		if ret != want {
			return CaseResult{}, fmt.Errorf("%w: %s, case %s: returned %s, expected %s",
				object.ErrUnexpectedReturn, l.Info.Name, c.Name, action, object.ActionName(l.Info.Type, want))
		}
	}
	if !floor {
		if err := checkOutput(l.Info.Name, c, out, effects); err != nil {
			return CaseResult{}, err
		}
	}
	if c.State != packets.StateFirst {
		undo = object.Undo{} // needed no more: let the snapshot go
	}
	cr := CaseResult{Case: c, Return: ret, Action: action, Effects: effects, Samples: make([]float64, 0, p.cfg.Samples),
		ctxIn: ctxIn, ContextChanges: object.ContextChanges(l.Info.Type, ctxIn, ctxOut), undo: undo, LaterReturn: ret}
	if c.State == packets.StateFirst && !undo.Complete() {
		cr.Unrestored = l.UnwatchedMaps()
	}
	if object.FrameChanged(l.Info.Type, c.Frame, out) {
		cr.Output = out
	}
	return cr, nil
}

// measure calibrates, warms up and samples on the pinned CPU, filling the
// samples of res and its environment.
func (p *plan) measure(ctx context.Context, progs []*program, res *Result) error {
	if p.cfg.Timer == TimerStats {
		stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
		if err != nil {
			return fmt.Errorf("%w: enabling them needs CAP_SYS_ADMIN and a kernel with BPF_ENABLE_STATS: %w", ErrNoRunTimeStats, err)
		}
		defer stats.Close()
		for _, l := range progs {
			l.statsTimer = true
		}
	}
	watch := host.WatchMachine(p.cpu)
	var s *sampler
	interrupt := interruptOn(ctx)
	defer interrupt.close()
	err := p.pin(func() error {
		interrupt.enter()
		defer interrupt.leave()
		if err := p.restore(progs, res); err != nil {
			return err
		}
		if err := p.undo(progs, res); err != nil {
			return err
		}
		if p.cfg.Live != nil {
			if err := p.checkLiveRestored(progs, res); err != nil {
				return err
			}
		}
		for _, r := range p.restorers {
			r.statsTimer = p.cfg.Timer == TimerStats
		}
		s = newSampler(ctx, p.cfg, progs, p.restorers, p.undoers, p.programOf, res)
		s.machine, s.cpu = watch, p.cpu
		return s.run()
	})
	env := &res.Environment
	preempted := 0
	if s != nil {
		preempted = s.preempted
	}
	env.MachineLoad = watch.Finish(preempted)
	if p.cfg.Timer != TimerStats && statsWereOn(progs) {
		env.RunTimeStats = true
		env.MachineLoad.Warnings = append(env.MachineLoad.Warnings, RunTimeStatsWarning)
	}
	if s == nil {
		return err
	}
	env.Wall = time.Since(s.start)
	env.Repeat, env.RepeatChosen = s.repeat, p.cfg.Repeat == 0
	if env.RepeatChosen {
		env.TargetSample = s.target()
	}
	if p.cfg.Timer == TimerStats {
		env.Resolution = Resolution / float64(s.repeat)
	}
	env.Dispatcher, env.Sampling = s.dispatcher, s.sampling
	if s.linear != nil {
		// The clock reads whole nanoseconds of a call of at least first runs.
		env.Resolution = Resolution / float64(s.linear.first)
	}
	return err
}

// RunTimeStatsWarning says what a run with the kernel's run-time
// statistics on measured.
const RunTimeStatsWarning = "the kernel's run-time statistics were on (kernel.bpf_stats_enabled, or a process holding BPF_ENABLE_STATS): " +
	"every run of every program, the floor's and a live frame's peers' too, paid two clock reads, so no figure is what it is without them; " +
	"turn them off with sysctl kernel.bpf_stats_enabled=0"

// statsWereOn says whether the kernel counted the programs' runs in their
// run-time statistics (run_cnt), which it does only while someone has
// them on: the sysctl, or another process's BPF_ENABLE_STATS, which the
// sysctl does not show. Each run then pays two clock reads: the empty
// floor program read 28 ns without them and 111 ns with them here.
func statsWereOn(progs []*program) bool {
	for _, l := range progs {
		if st, err := l.Prog.Stats(); err == nil && st.RunCount > 0 {
			return true
		}
	}
	return false
}

// assemble gives a flows=N case the mean instructions of its runs,
// moves the floor out of the programs, puts each program's Other
// placements with its first, and adds up the time the kernel timed.
func (p *plan) assemble(res Result) Result {
	env := &res.Environment
	for _, pr := range res.Programs {
		for i := range pr.Cases {
			c := &pr.Cases[i]
			if c.FlowReplay != nil && c.Calls > 0 {
				// The runs timed went over misses and hits as they came.
				c.Instructions = uint64(math.Round(c.FlowReplay.MeanInstructions(c.Calls)))
			}
		}
	}
	for _, pr := range res.Programs {
		for _, c := range pr.Cases {
			for i, s := range c.Samples {
				runs := env.Repeat
				switch {
				case c.Single: // a sample is the mean of one run in each of several calls
					runs = uint32(env.Sampling.SingleCalls)
				case i < len(c.Runs):
					runs = c.Runs[i]
				}
				env.KernelTime += time.Duration(s * float64(runs))
			}
		}
	}
	if p.floor >= 0 && p.floor < len(res.Programs) {
		floor := res.Programs[p.floor]
		floor.Placements = slices.Clone(res.Programs[p.floor+1:])
		res.Floor = &floor
		res.Programs = slices.Clip(res.Programs[:p.floor])
	}
	var programs []ProgramResult
	first := map[int]int{} // program index -> its first load's index in programs
	for i, pr := range res.Programs {
		if j, ok := first[p.programOf[i]]; ok {
			programs[j].Placements = append(programs[j].Placements, pr)
			continue
		}
		first[p.programOf[i]] = len(programs)
		programs = append(programs, pr)
	}
	res.Programs = programs
	return res
}

// checkOutput holds a case's checking run against what the case expects
// of it: the frame it leaves and the map effects it makes, as the kernel's
// own benchmarks check theirs before timing.
func checkOutput(program string, c packets.Case, out []byte, effects []Effect) error {
	if c.ExpectOutput != nil && !bytes.Equal(out, c.ExpectOutput) {
		return fmt.Errorf("%w: %s, case %s: the frame it left differs from the one expected (%s): got %s; want %s",
			object.ErrUnexpectedOutput, program, c.Name, packets.Changes(c.ExpectOutput, out), packets.Summarize(out), packets.Summarize(c.ExpectOutput))
	}
	if !c.CheckEffects {
		return nil
	}
	got := make([]string, len(effects))
	for i, e := range effects {
		got[i] = results.Effect(e).String()
	}
	missing, unexpected := packets.MatchEffects(c.ExpectEffects, got)
	if len(missing) == 0 && len(unexpected) == 0 {
		return nil
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing "+strconv.Quote(strings.Join(missing, "; ")))
	}
	if len(unexpected) > 0 {
		parts = append(parts, "unexpected "+strconv.Quote(strings.Join(unexpected, "; ")))
	}
	return fmt.Errorf("%w: %s, case %s: its map effects differ from those expected: %s",
		object.ErrUnexpectedOutput, program, c.Name, strings.Join(parts, ", "))
}
