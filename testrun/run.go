package testrun

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/packets"
	"golang.org/x/sys/unix"
)

// Limits on the configuration.
const (
	MinSamples = 10 // fewer cannot support a bootstrap interval or outlier fences
	MaxRepeat  = math.MaxUint32
)

// Resolution is the kernel's quantum for the time of one run, in ns:
// BPF_PROG_TEST_RUN reports floor(total ns / repeat).
const Resolution = 1.0

// Timers: how the time of a run is taken.
const (
	// TimerKernel is BPF_PROG_TEST_RUN's own figure: the loop of Repeat
	// runs timed as a whole, reported as whole nanoseconds per run.
	TimerKernel = "kernel"
	// TimerStats is BPF_ENABLE_STATS: the kernel times every run with
	// sched_clock and sums it in run_time_ns; a sample is the growth of
	// run_time_ns over that of run_cnt. Finer than 1 ns, but each run
	// carries the cost of the two clock reads.
	TimerStats = "stats"
)

// ErrConfig reports a configuration that cannot be run.
var ErrConfig = errors.New("bad configuration")

// Program names a program to measure.
type Program struct {
	Label   string // distinguishes programs measured together, e.g. "before"
	Object  Object
	Program string // function name; empty for the only supported one
}

// Config is what to measure, and how.
type Config struct {
	Programs []Program
	Cases    []packets.Case
	CPU      int           // CPU to measure on; negative lets Run choose
	Warmup   time.Duration // time spent sampling before samples are kept
	// Samples is the number of samples kept per case and program; with
	// Enough, the fewest rounds before Enough is asked.
	Samples int
	// Repeat is the runs per sample; 0 chooses it (see chooseRepeat).
	Repeat uint32
	// Enough, if set, makes sampling adaptive: after every round from the
	// Samples-th on, it is asked of each case not yet accepted, with that
	// case's samples per program (not the floor's), whether they suffice.
	// Sampling ends when every case is accepted or Budget is spent. It runs on the measuring thread between
	// samples, so it should take well under a millisecond per case.
	Enough func(caseIndex int, samples [][]float64) bool
	// Budget bounds the time of calibration, warm-up and sampling when
	// Enough is set.
	Budget time.Duration
	// Parallel is how many samples of a round may be in flight at once,
	// all on the measuring CPU; 0 chooses (see parallelism).
	Parallel int
	Timer    string // TimerKernel (the default when empty) or TimerStats
	// Floor, if set, is an object of empty programs: the one of the
	// measured programs' type is sampled with every case in the same rounds,
	// so that each case's time can be given net of the harness's own.
	Floor *Object
	// MapInit, if set, fills maps of every program after loading.
	MapInit *MapInit
	// Progress, if set, is called after every sample, on the measuring
	// thread: it must return at once.
	Progress func(Progress)
}

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

// Environment is where and how the samples were taken.
type Environment struct {
	Kernel     string `json:"kernel"`
	KernelInfo string `json:"kernel_version"`
	Arch       string `json:"arch"`
	CPUModel   string `json:"cpu_model"`
	CPU        int    `json:"cpu"`
	CPUChoice  string `json:"cpu_choice"` // why CPU, e.g. "isolated"
	CPUs       int    `json:"cpus"`
	Hostname   string `json:"hostname"`
	Repeat     uint32 `json:"repeat"`
	// RepeatChosen says Repeat was chosen by calibration, not given.
	RepeatChosen bool      `json:"repeat_chosen,omitempty"`
	Samples      int       `json:"samples"`
	Warmup       string    `json:"warmup"`
	Resolution   float64   `json:"resolution_ns"` // the quantum of one sample's time per run
	Timer        string    `json:"timer"`
	Start        time.Time `json:"start"`
	// Wall is the whole measurement's duration; Kernel time is what the
	// kernel timed inside it. The difference is mostly the XDP dispatcher
	// swap around every call.
	Wall       time.Duration `json:"wall_ns"`
	KernelTime time.Duration `json:"kernel_time_ns"`
	// Load is how busy the machine was while it measured.
	Load Load `json:"load"`
}

// CaseResult holds one case's samples for one program.
type CaseResult struct {
	Case    packets.Case `json:"case"`
	Return  uint32       `json:"return"`
	Action  string       `json:"action"`
	Samples []float64    `json:"samples_ns"` // kernel's ns per run, one per sample, in the order taken
	Retries int          `json:"retries"`    // samples restarted after EINTR
	// Enough says adaptive sampling found the samples sufficient; false
	// when the budget ran out first, or sampling was not adaptive.
	Enough bool `json:"enough,omitempty"`
	// Effects are the changes the checking run made to the maps.
	Effects []Effect `json:"effects,omitempty"`
}

// ProgramResult holds the results for one program.
type ProgramResult struct {
	Label  string       `json:"label,omitempty"`
	Object string       `json:"object"`
	Info   ProgramInfo  `json:"program"`
	Cases  []CaseResult `json:"cases"`
}

// Result is everything a run measured.
type Result struct {
	Environment Environment     `json:"environment"`
	Programs    []ProgramResult `json:"programs"`
	// Floor holds the empty program's samples, when Config.Floor was set.
	Floor *ProgramResult `json:"floor,omitempty"`
	// Partial is set when the run was cancelled before every sample was taken.
	Partial bool `json:"partial,omitempty"`
}

func (c Config) validate() error {
	switch {
	case len(c.Programs) == 0:
		return fmt.Errorf("%w: no program to measure", ErrConfig)
	case len(c.Cases) == 0:
		return fmt.Errorf("%w: no packet case", ErrConfig)
	case c.Samples < MinSamples:
		return fmt.Errorf("%w: --samples %d is below the minimum of %d", ErrConfig, c.Samples, MinSamples)
	case c.Enough != nil && c.Budget <= 0:
		return fmt.Errorf("%w: adaptive sampling needs a time budget", ErrConfig)
	case c.Warmup < 0:
		return fmt.Errorf("%w: --warmup must not be negative", ErrConfig)
	case c.Timer != "" && c.Timer != TimerKernel && c.Timer != TimerStats:
		return fmt.Errorf("%w: --timer %q: want %s or %s", ErrConfig, c.Timer, TimerKernel, TimerStats)
	}
	return nil
}

// Run loads the programs, checks every case once, and samples them all on
// one pinned CPU. When ctx is cancelled it stops after the current sample
// and returns what it has, marked Partial, with ctx's error.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.validate(); err != nil {
		return Result{}, err
	}
	cpu, cpuChoice, err := chooseCPU(cfg.CPU)
	if err != nil {
		return Result{}, err
	}
	// Bad input is reported as such, whatever the privileges.
	var picked []chosen
	for _, p := range cfg.Programs {
		c, err := choose(p.Object, p.Program)
		if err != nil {
			return Result{}, err
		}
		picked = append(picked, c)
	}
	for _, p := range picked {
		for _, c := range cfg.Cases {
			if c.Expect == "" {
				continue
			}
			if _, err := ParseExpect(p.info.Type, c.Expect); err != nil {
				return Result{}, fmt.Errorf("case %s: %w", c.Name, err)
			}
		}
	}
	floor := -1 // index of the floor program in picked
	if cfg.Floor != nil {
		c, err := chooseByType(*cfg.Floor, picked[0].info.Type)
		if err != nil {
			return Result{}, err
		}
		floor = len(picked)
		picked = append(picked, c)
	}
	updates := make([][]mapUpdate, len(picked))
	if cfg.MapInit != nil {
		for i, p := range picked[:len(cfg.Programs)] {
			if updates[i], err = cfg.MapInit.resolve(p.spec); err != nil {
				return Result{}, err
			}
		}
	}
	if err := CheckPrivileges(); err != nil {
		return Result{}, err
	}

	var progs []*loaded
	defer func() {
		for _, p := range progs {
			p.close()
		}
	}()
	for i, c := range picked {
		l, err := c.load()
		if err != nil {
			return Result{}, err
		}
		progs = append(progs, l)
		if err := l.apply(updates[i]); err != nil {
			return Result{}, err
		}
	}

	res := Result{Environment: environment(cfg, cpu, cpuChoice)}
	for i, l := range progs {
		pr := ProgramResult{Label: "floor", Object: l.object.Name, Info: l.info}
		if i != floor {
			pr.Label = cfg.Programs[i].Label
		}
		for _, c := range cfg.Cases {
			before, err := l.snapshot()
			if err != nil {
				return Result{}, fmt.Errorf("case %s: %w", c.Name, err)
			}
			ret, err := l.runOnce(c.Frame)
			if err != nil {
				return Result{}, fmt.Errorf("case %s: %w", c.Name, err)
			}
			effects, err := l.effects(before)
			if err != nil {
				return Result{}, fmt.Errorf("case %s: %w", c.Name, err)
			}
			action := ActionName(l.info.Type, ret)
			if c.Expect != "" && i != floor {
				// Validated before loading; cannot fail here.
				want, _ := ParseExpect(l.info.Type, c.Expect)
				if ret != want {
					return Result{}, fmt.Errorf("%w: %s, case %s: returned %s, expected %s",
						ErrUnexpectedReturn, l.info.Name, c.Name, action, ActionName(l.info.Type, want))
				}
			}
			pr.Cases = append(pr.Cases, CaseResult{Case: c, Return: ret, Action: action, Effects: effects, Samples: make([]float64, 0, cfg.Samples)})
		}
		res.Programs = append(res.Programs, pr)
	}

	if cfg.Timer == TimerStats {
		stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
		if err != nil {
			return Result{}, fmt.Errorf("--timer stats: enable BPF run-time statistics (needs CAP_SYS_ADMIN): %w", err)
		}
		defer stats.Close()
		for _, l := range progs {
			l.statsTimer = true
		}
	}
	load := watchLoad(cpu)
	start := time.Now()
	err = onPinnedThread(cpu, func() error {
		if cfg.Repeat == 0 {
			repeat, err := chooseRepeat(ctx, progs, cfg.Cases)
			if err != nil {
				return err
			}
			cfg.Repeat = repeat
			res.Environment.Repeat, res.Environment.RepeatChosen = repeat, true
			if cfg.Timer == TimerStats {
				res.Environment.Resolution = Resolution / float64(repeat)
			}
		}
		return sampleAll(ctx, cfg, cpu, progs, &res, start, load)
	})
	res.Environment.Wall = time.Since(start)
	res.Environment.Load = load.finish()
	if floor >= 0 {
		res.Floor = &res.Programs[floor]
		res.Programs = res.Programs[:floor]
	}
	for _, pr := range append(res.Programs, floorOrNone(res.Floor)...) {
		for _, c := range pr.Cases {
			for _, s := range c.Samples {
				res.Environment.KernelTime += time.Duration(s * float64(res.Environment.Repeat))
			}
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			res.Partial = true
			return res, err
		}
		return Result{}, err
	}
	return res, nil
}

func floorOrNone(floor *ProgramResult) []ProgramResult {
	if floor == nil {
		return nil
	}
	return []ProgramResult{*floor}
}

// unit is one (program, case) pair: what one sample measures.
type unit struct {
	prog   *loaded
	result *CaseResult
}

// sampleAll warms up, then samples every unit in rounds: cfg.Samples
// rounds, or with cfg.Enough until every case has enough or the budget,
// counted from start, is spent. Each round visits the units in the
// opposite order of the last, so that no unit always follows the same
// neighbour, and a slow drift of the machine lands on all of them alike.
// load is marked after every round.
func sampleAll(ctx context.Context, cfg Config, cpu int, progs []*loaded, res *Result, start time.Time, load *loadWatch) error {
	// byCase[ci] holds case ci's units, one per program, the floor last.
	// units are every round's samples, case by case.
	byCase := make([][]unit, len(cfg.Cases))
	var units []unit
	for ci := range cfg.Cases {
		for pi, l := range progs {
			byCase[ci] = append(byCase[ci], unit{prog: l, result: &res.Programs[pi].Cases[ci]})
		}
		units = append(units, byCase[ci]...)
	}
	// active marks the cases Enough has not accepted yet.
	active := make([]bool, len(cfg.Cases))
	for ci := range active {
		active[ci] = true
	}
	var kept atomic.Int64
	total := cfg.Samples * len(progs) * len(cfg.Cases)
	deadline := start.Add(cfg.Budget)
	take := func(u unit, keep bool) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ns, retries, err := u.prog.sample(u.result.Case.Frame, cfg.Repeat)
		if err != nil {
			return fmt.Errorf("case %s: %w", u.result.Case.Name, err)
		}
		done := kept.Load()
		if keep {
			// A unit is sampled once per round, so only its own
			// worker writes its result.
			u.result.Samples = append(u.result.Samples, ns)
			u.result.Retries += retries
			done = kept.Add(1)
		}
		if cfg.Progress != nil {
			p := Progress{Warmup: !keep, Done: int(done), Total: total, Case: u.result.Case.Name}
			if cfg.Enough != nil {
				p.Elapsed, p.Budget = time.Since(start), cfg.Budget
			}
			cfg.Progress(p)
		}
		return nil
	}

	workers, err := startWorkers(cpu, parallelism(cfg, len(units)))
	if err != nil {
		return err
	}
	defer workers.stop()
	runRound := func(round int, keep bool) error {
		us := units
		jobs := make([]func() error, len(us))
		for i := range us {
			u := us[i]
			if round%2 == 1 {
				u = us[len(us)-1-i]
			}
			jobs[i] = func() error { return take(u, keep) }
		}
		err := workers.run(jobs)
		load.mark() // between rounds: no sample in flight
		return err
	}

	// Warm-up: whole rounds until the warm-up time is spent, at least one.
	warm := time.Now().Add(cfg.Warmup)
	for first := true; first || time.Now().Before(warm); first = false {
		if err := runRound(0, false); err != nil {
			return err
		}
	}

	for round := 0; ; round++ {
		if err := runRound(round, true); err != nil {
			return err
		}
		if cfg.Enough == nil {
			if round+1 >= cfg.Samples {
				return nil
			}
			continue
		}
		if round+1 >= cfg.Samples {
			for ci, a := range active {
				if a && cfg.Enough(ci, measured(byCase[ci], len(cfg.Programs))) {
					active[ci] = false
					for _, u := range byCase[ci] {
						u.result.Enough = true
					}
				}
			}
		}
		// Every case stays in the rounds until all have enough: a case that
		// left early would be known only from the phases of its first
		// seconds (a low quantile can look precise within a slow phase).
		if !slices.Contains(active, true) || !time.Now().Before(deadline) {
			return nil
		}
	}
}

// measured returns the samples of a case's units that belong to measured
// programs, not to the floor.
func measured(units []unit, programs int) [][]float64 {
	samples := make([][]float64, programs)
	for i := range samples {
		samples[i] = units[i].result.Samples
	}
	return samples
}

// onPinnedThread runs f on an OS thread bound to cpu. The thread is never
// handed back to the scheduler: the goroutine exits locked, so the runtime
// discards the thread with its changed affinity.
func onPinnedThread(cpu int, f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			done <- fmt.Errorf("pin to CPU %d: %w", cpu, err)
			return
		}
		done <- f()
	}()
	return <-done
}
