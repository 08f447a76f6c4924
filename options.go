package xdpmicro

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// ErrBadInput is what every error that is the caller's input being wrong
// wraps (an object, a case, a file, an option), as opposed to the kernel
// or the machine refusing: errors.Is(err, ErrBadInput) tells them apart.
var ErrBadInput = badinput.Err

// ErrPermission is what every error of lacking the privileges to load
// and run BPF programs, or to set up live frames' network, wraps: root, or
// CAP_BPF and CAP_NET_ADMIN (+ CAP_PERFMON).
var ErrPermission = host.ErrPermission

// ErrOptions: options that cannot hold together. It wraps ErrBadInput.
var ErrOptions = badinput.New("bad options")

// Sentinels of Options for what a zero value cannot say, as zero is the
// default. Complete keeps them as they are, so that completing completed
// options changes nothing.
const (
	// FixedSamples, as Precision, takes exactly Samples rounds: no
	// adaptive sampling, no time budget.
	FixedSamples = -1
	// NoWarmup, as Warmup, warms up for one round only.
	NoWarmup time.Duration = -1
	// NoNoiseThreshold, as Compare.NoiseThreshold, judges a change with
	// a threshold of zero: any change whose interval excludes none.
	NoNoiseThreshold = -1
)

// Upper bounds of Options, checked with the rest before anything is
// loaded: each is far past any run's use, and below what would exhaust
// memory or the kernel's patience before a run began.
const (
	// MaxSamples bounds Samples: each case of each load keeps its samples,
	// allocated up front (a count of 2^63 failed in makeslice once the
	// programs were loaded).
	MaxSamples = testrun.MaxSamples
	// MaxDuration bounds Budget and Warmup.
	MaxDuration = 24 * time.Hour
	// MaxValidateRuns bounds Validate's runs, each a whole run.
	MaxValidateRuns = 100
	// MinSamples is the fewest rounds Samples may ask for.
	MinSamples = testrun.MinSamples
	// MaxLiveBatch bounds LiveBatch, as the kernel does.
	MaxLiveBatch = testrun.MaxBatch
	// MaxSampleTime bounds SampleTime: a sample is one call.
	MaxSampleTime = time.Second
	// MaxPlacements bounds Placements and GroupLoads: every load is a
	// program JIT-compiled and held in the kernel for the run.
	MaxPlacements = engine.MaxPlacements
	// MinResamples and MaxResamples bound Stats.Resamples.
	MinResamples = stats.MinResamples
	MaxResamples = stats.MaxResamples
)

// Options are a run: what to measure, how to sample it, and how to judge
// a comparison; data only. Its zero value (or nil, where a pointer is
// taken) is the command's defaults, every one filled in one place,
// Complete, and the whole checked there before anything is loaded.
type Options struct {
	// Programs are what to measure, in the same rounds; with Compared,
	// two: before, then after, whose change is judged. Measure and
	// Compare set them from their arguments.
	Programs []Program
	Compared bool
	// Live measures the one program twice in the same rounds, as a plain
	// test run and with live frames (live.go), and compares the two: the
	// change is what the program's action costs. LiveBatch is the frames
	// the kernel runs and flushes together, 0 for its default.
	Live      bool
	LiveBatch int
	// Cases are the packets to run: Measure and Compare take nil for the
	// source-address classes on bundled builds, else the protocol mix.
	// Build them with Frame, Classes, Mix, or package packets.
	Cases []packets.Case
	// States runs every case once in each map state (packets.ParseState:
	// steady or first), named name@state (packets.InStates); nil
	// runs each in its own Case.State, steady when it has none.
	States []string
	// MapInit, if set, fills the maps of every program measured after
	// loading, and sets variables and map sizes before (ReadMapInit).
	MapInit *MapInit
	// Load changes every program measured before it is loaded.
	Load LoadOptions
	// CPU pins the measuring threads to one CPU; nil lets xdpmicro choose
	// a quiet one.
	CPU *int
	// Warmup is how long every case is sampled, in turn, before samples
	// are kept: zero is DefaultWarmup, NoWarmup one round.
	Warmup time.Duration
	// Samples, with Precision FixedSamples, is the exact number of
	// rounds; otherwise it is the fewest before precision is judged.
	Samples int
	// Precision, with Budget, samples until every estimate (every change,
	// when comparing by slope) is known to ±Precision, or Budget is spent:
	// zero is stats.DefaultPrecision; FixedSamples takes Samples rounds.
	Precision float64
	// Budget bounds calibration, warm-up and sampling: zero is
	// DefaultBenchBudget for one program, DefaultBudget
	// comparing or measuring several side by side.
	// Benchmark takes -test.benchtime when it is a duration other than 1s.
	Budget time.Duration
	// Repeat, when set, is the top level of runs a call: the most a call
	// runs, as bpftool's repeat.
	Repeat   uint32
	Sampling testrun.SamplingMode // linear when empty
	Timer    testrun.Timer
	// Placements loads each program that many times, sampled in the same
	// rounds: 0 chooses, DefaultPlacements a build when comparing, else
	// DefaultLoads. Each case stands for the mean over its loads.
	Placements int
	// GroupLoads is how many loads of each program are measured together,
	// in one group, loaded, anchored, sampled and closed on its own: zero
	// is DefaultGroupLoads for a program measured alone, every load in one
	// group comparing, and LongRepeatLoads for calls of at least
	// engine.LongRepeat runs.
	GroupLoads int
	// SampleTime is how long a sample lasts, linear sampling's top level
	// chosen for it: zero is testrun.TargetSample for one program,
	// CompareSample where several are measured side by side.
	SampleTime time.Duration
	SingleRun  bool
	Restore    bool
	// NoFloor leaves out the empty program of the measured type.
	NoFloor  bool
	NoAnchor bool
	// Estimator is what stands for a case; empty: DefaultEstimator of
	// the sampling, the slope with linear sampling, the low quantile with
	// flat.
	Estimator stats.Estimator
	// Stats are the intervals' confidence, resamples, seed and low
	// quantile: each zero field is stats.DefaultOptions' (the low
	// quantile stats.DefaultLowQuantile).
	Stats stats.Options
	// Compare judges a comparison: against the first program, or
	// Baseline. Each zero field is the default: Stats' options,
	// stats.DefaultSignificance, the kernel's resolution as the quantum,
	// and the noise threshold stats.DefaultNoiseThreshold gives the
	// estimator (NoNoiseThreshold for none). Its Estimator is always
	// Estimator.
	Compare  stats.CompareOptions
	Baseline *results.Run
	// BaselineName labels Baseline's side of the comparison.
	BaselineName string
	// History, if set, is the path of the file that remembers, run after
	// run, the floor this machine reads in its fast phase
	// (internal/phases): a run that meets only a slow phase is scaled to
	// it. Empty: every run stands on its own.
	History string
	// Started is when the caller's clock started (zero: when Run is
	// called): the budget counts from it, everything after sampling
	// included, and the report's wall time is the time since.
	Started time.Time
	// Settings records, in the report, what the options do not say: the
	// program and the frame sizes as the caller gave them; Run fills the
	// rest from the options and what it chose.
	Settings results.Settings
}

// Defaults of what Options leave zero, chosen from measurements
// (docs/measurement-notes.md). With anchored calls the bundled program's
// five classes and the floor reach ±1 % on this project's machines within
// engine.MinSamplingTime; the budget bounds a machine that never settles.
const (
	// DefaultBudget is the budget of a comparison, or of several programs
	// side by side: time to settle the verdicts.
	DefaultBudget = 5 * time.Second
	// DefaultBenchBudget is the budget of a program measured alone, loading
	// and analysis included: loads, not time, narrow its interval, and a
	// person waits for it.
	DefaultBenchBudget = 2 * time.Second
	// DefaultWarmup is how long every case is sampled before samples count.
	DefaultWarmup = 100 * time.Millisecond
	// DefaultPlacements is how many times each build of a comparison is
	// loaded: two loads of one program differ by up to a few per cent,
	// and eight of each bound that in the comparison.
	DefaultPlacements = 8
	// DefaultLoads is how many times a program measured alone is loaded:
	// its figures are the mean over its loads, their interval Student's t
	// over them, which narrows as the square root of the loads.
	DefaultLoads = 16
	// DefaultGroupLoads is how many loads of a program measured alone one
	// group holds: what a group shares moves a program about as much as
	// its loads differ, so many small groups narrow the interval most for
	// the time (docs/measurement-notes.md).
	DefaultGroupLoads = 2
	// LongRepeatLoads is the group of a repeat of engine.LongRepeat or
	// more: calls of tens of milliseconds, the budget holds one group at
	// most, and its loads are all the interval has; four give Student's t
	// three degrees of freedom.
	LongRepeatLoads = 4
)

// CompareSample is how long a sample lasts where several programs are
// measured side by side (two builds compared, validate's ladder), not
// testrun.TargetSample: their differences are judged over loads measured
// side by side, and a load's slope reads truer from more, shorter calls
// (docs/measurement-notes.md, "Shorter samples for comparisons").
const CompareSample = 60 * time.Microsecond

// Defaults are the zero Options of a program measured alone, every
// default filled as Complete fills it (Programs aside): what the
// command's flags show as their defaults.
func Defaults() Options { return withDefaults(Options{}) }

// CompareDefaults are Defaults for two builds compared, where the
// budget, the loads and the noise threshold differ.
func CompareDefaults() Options { return withDefaults(Options{Compared: true}) }

// DefaultEstimator is the estimator of a sampling mode when Options
// name none: the slope with linear sampling (also the empty mode), the
// low quantile with flat.
func DefaultEstimator(sampling testrun.SamplingMode) stats.Estimator {
	if sampling == testrun.SamplingFlat {
		return stats.Low
	}
	return stats.Slope
}

// Complete checks every option, nested ones included, and fills each one
// left zero with its default: every default is decided here, and nothing
// is loaded before it. Run, MeasureRaw, Measure, Compare, Benchmark,
// Worst's timing and Validate complete the options they are given;
// completing completed options changes nothing. Its errors wrap
// ErrOptions (bad input).
func (o Options) Complete() (Options, error) {
	if err := checkOptions(o); err != nil {
		return o, err
	}
	o = withDefaults(o)
	o.States, _ = statesOf(o.States) // checked above: each as packets names it
	if err := checkCompleted(o); err != nil {
		return o, err
	}
	return o, nil
}

// withDefaults fills what o leaves zero. Live frames compare the program
// with itself, interleaved: they take a comparison's defaults.
func withDefaults(o Options) Options {
	compared := o.Compared || o.Live
	if o.Warmup == 0 {
		o.Warmup = DefaultWarmup
	}
	if o.Precision == 0 {
		o.Precision = stats.DefaultPrecision
	}
	if o.Precision != FixedSamples && o.Budget == 0 {
		o.Budget = DefaultBenchBudget
		if compared || len(o.Programs) > 1 {
			o.Budget = DefaultBudget // time to settle the verdicts, or the ladder's rungs
		}
	}
	if o.Sampling == "" {
		o.Sampling = testrun.SamplingLinear
	}
	if o.Estimator == "" {
		o.Estimator = DefaultEstimator(o.Sampling)
	}
	if o.Placements == 0 {
		o.Placements = DefaultLoads
		if compared {
			o.Placements = DefaultPlacements
		}
	}
	if o.GroupLoads == 0 {
		switch {
		case compared:
			o.GroupLoads = o.Placements
		case o.Repeat >= engine.LongRepeat:
			o.GroupLoads = min(o.Placements, LongRepeatLoads)
		default:
			o.GroupLoads = min(o.Placements, DefaultGroupLoads)
		}
	}
	if o.SampleTime == 0 {
		o.SampleTime = testrun.TargetSample
		if compared || len(o.Programs) > 1 {
			o.SampleTime = CompareSample
		}
	}
	o.Stats = withStatsDefaults(o.Stats, stats.DefaultOptions())
	o.Compare = withCompareDefaults(o.Compare, o.Stats, o.Estimator, compared)
	return o
}

// withStatsDefaults fills each zero field of opts from def.
func withStatsDefaults(opts, def stats.Options) stats.Options {
	if opts.Confidence == 0 {
		opts.Confidence = def.Confidence
	}
	if opts.Resamples == 0 {
		opts.Resamples = def.Resamples
	}
	if opts.Seed == 0 {
		opts.Seed = def.Seed
	}
	if opts.LowQuantile == 0 {
		opts.LowQuantile = cmp.Or(def.LowQuantile, stats.DefaultLowQuantile)
	}
	return opts
}

// withCompareDefaults fills each zero field of c: the statistics from
// base, the significance, the kernel's resolution as the quantum, and the
// noise threshold of est, for sides sampled together when interleaved.
func withCompareDefaults(c stats.CompareOptions, base stats.Options, est stats.Estimator, interleaved bool) stats.CompareOptions {
	c.Options = withStatsDefaults(c.Options, base)
	if c.Significance == 0 {
		c.Significance = stats.DefaultSignificance
	}
	if c.Quantum == 0 {
		c.Quantum = testrun.Resolution
	}
	if c.NoiseThreshold == 0 {
		c.NoiseThreshold, c.ThresholdChosen = stats.DefaultNoiseThreshold(est, interleaved), true
	}
	c.Estimator = est
	return c
}

// noiseThreshold is the threshold c judges by: NoNoiseThreshold is zero.
func noiseThreshold(c stats.CompareOptions) float64 {
	if c.NoiseThreshold == NoNoiseThreshold {
		return 0
	}
	return c.NoiseThreshold
}

// completeSaved completes the options of a comparison of two saved runs
// (CompareSaved) as Complete completes a run's: each zero field its
// default, the noise threshold of separate runs, and checks them. An
// empty Estimator stays empty: the files decide (analysis.Against).
func completeSaved(c stats.CompareOptions) (stats.CompareOptions, error) {
	if c.NoiseThreshold < 0 && c.NoiseThreshold != NoNoiseThreshold {
		return c, fmt.Errorf("%w: a noise threshold of %g: want a fraction in (0, 1), 0 for the default, or NoNoiseThreshold", ErrOptions, c.NoiseThreshold)
	}
	c = withCompareDefaults(c, stats.DefaultOptions(), c.Estimator, false)
	c.NoiseThreshold = noiseThreshold(c)
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return c, nil
}

// checkOptions refuses options that cannot hold together, whatever the
// defaults.
func checkOptions(o Options) error {
	switch {
	case len(o.Programs) == 0:
		return fmt.Errorf("%w: no program to measure", ErrOptions)
	case o.Compared && len(o.Programs) != 2:
		return fmt.Errorf("%w: %d programs to compare: want two, before and after", ErrOptions, len(o.Programs))
	case o.Compared && o.Baseline != nil:
		return fmt.Errorf("%w: compare two programs or against a baseline, not both", ErrOptions)
	case o.Placements < 0 || o.Placements > MaxPlacements:
		return fmt.Errorf("%w: %d placements: want 1 to %d, or 0 for the default", ErrOptions, o.Placements, MaxPlacements)
	case o.Samples < 0 || o.Samples > MaxSamples:
		return fmt.Errorf("%w: %d samples: want %d to %d, or 0 for the default", ErrOptions, o.Samples, MinSamples, MaxSamples)
	case o.Precision != FixedSamples && (o.Precision < 0 || o.Precision >= 1):
		return fmt.Errorf("%w: precision %g: want a fraction in (0, 1), 0 for the default, or FixedSamples for a fixed number of samples", ErrOptions, o.Precision)
	case o.Budget < 0 || o.Budget > MaxDuration:
		return fmt.Errorf("%w: a time budget of %s: want up to %s, or 0 for the default", ErrOptions, o.Budget, MaxDuration)
	case o.Warmup < 0 && o.Warmup != NoWarmup || o.Warmup > MaxDuration:
		return fmt.Errorf("%w: a warm-up of %s: want up to %s, 0 for the default, or NoWarmup", ErrOptions, o.Warmup, MaxDuration)
	case o.CPU != nil && *o.CPU < testrun.AnyCPU:
		return fmt.Errorf("%w: CPU %d: want a CPU number, or testrun.AnyCPU to choose", ErrOptions, *o.CPU)
	case len(o.Cases)*max(len(o.States), 1) > packets.MaxCases:
		return fmt.Errorf("%w: %d packet cases in %d map states: want at most %d", ErrOptions, len(o.Cases), max(len(o.States), 1), packets.MaxCases)
	case o.Live && (o.Compared || o.Baseline != nil || len(o.Programs) != 1):
		return fmt.Errorf("%w: live frames measure one program against its own test run: no second build or baseline", ErrOptions)
	case o.LiveBatch < 0 || o.LiveBatch > MaxLiveBatch:
		return fmt.Errorf("%w: a batch of %d live frames: want 1 to %d, or 0 for the kernel's %d", ErrOptions, o.LiveBatch, MaxLiveBatch, testrun.DefaultBatch)
	case o.SampleTime < 0 || o.SampleTime > MaxSampleTime:
		return fmt.Errorf("%w: samples of %s: want up to %s, or 0 for the default", ErrOptions, o.SampleTime, MaxSampleTime)
	case o.GroupLoads < 0 || o.GroupLoads > MaxPlacements:
		return fmt.Errorf("%w: %d loads a group: want 1 to %d, or 0 for the default", ErrOptions, o.GroupLoads, MaxPlacements)
	case o.Sampling != "" && o.Sampling != testrun.SamplingLinear && o.Sampling != testrun.SamplingFlat:
		return fmt.Errorf("%w: sampling %q: want %s or %s", ErrOptions, o.Sampling, testrun.SamplingLinear, testrun.SamplingFlat)
	case o.Compare.NoiseThreshold < 0 && o.Compare.NoiseThreshold != NoNoiseThreshold:
		return fmt.Errorf("%w: a noise threshold of %g: want a fraction in (0, 1), 0 for the default, or NoNoiseThreshold", ErrOptions, o.Compare.NoiseThreshold)
	}
	if o.Estimator != "" {
		if _, err := stats.ParseEstimator(string(o.Estimator)); err != nil {
			return fmt.Errorf("%w: %w", ErrOptions, err)
		}
	}
	return checkStates(o)
}

// checkStates refuses map states that are not one, a state listed twice,
// and those live frames cannot be measured in.
func checkStates(o Options) error {
	states, err := statesOf(o.States)
	if err != nil {
		return err
	}
	for _, c := range o.Cases {
		if c.State != "" {
			st, err := packets.ParseState(c.State)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrOptions, err)
			}
			states = append(states, st)
		}
	}
	for _, st := range states {
		if o.Live && st != packets.StateSteady {
			return fmt.Errorf("%w: live frames are measured in the steady map state, not %s", ErrOptions, st)
		}
	}
	return nil
}

// statesOf is each of states as packets.ParseStates names it, checked,
// none twice.
func statesOf(states []string) ([]string, error) {
	if len(states) == 0 {
		return nil, nil
	}
	out, err := packets.ParseStates(strings.Join(states, ","))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return out, nil
}

// checkCompleted refuses what only the defaults make clear, and checks
// the statistics' options whole, the defaults filled.
func checkCompleted(o Options) error {
	switch {
	case o.Estimator.Fitted() && o.Sampling != testrun.SamplingLinear:
		return fmt.Errorf("%w: the %s estimator needs linear sampling", ErrOptions, o.Estimator)
	case o.Precision > 0 && o.Estimator == stats.Min:
		return fmt.Errorf("%w: the min estimator has no interval to bring to a precision: give a number of samples", ErrOptions)
	}
	if err := o.Stats.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrOptions, err)
	}
	c := o.Compare
	c.NoiseThreshold = noiseThreshold(c)
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return nil
}

// config completes o and turns it into the engine's run: the programs
// resolved (labelled before and after when compared), the map states
// applied to the cases, and each sentinel turned into testrun's value.
func (o Options) config() (engine.Config, error) {
	o, err := o.Complete()
	if err != nil {
		return engine.Config{}, err
	}
	progs, err := targets(o.Programs)
	if err != nil {
		return engine.Config{}, err
	}
	c := engine.Config{
		Programs: progs, Compared: o.Compared, Live: o.Live, LiveBatch: o.LiveBatch,
		Cases: packets.InStates(o.Cases, o.States), MapInit: o.MapInit, Load: o.Load, CPU: testrun.AnyCPU,
		Warmup: o.Warmup, Samples: o.Samples, Precision: o.Precision, Budget: o.Budget, Repeat: o.Repeat,
		Sampling: o.Sampling, Timer: o.Timer, SampleTime: o.SampleTime, Placements: o.Placements, GroupLoads: o.GroupLoads,
		SingleRun: o.SingleRun, Restore: o.Restore, NoFloor: o.NoFloor, NoAnchor: o.NoAnchor,
		Estimator: o.Estimator, Stats: o.Stats, Compare: o.Compare, Baseline: o.Baseline, BaselineName: o.BaselineName,
		History: o.History, Started: o.Started, Settings: o.Settings,
	}
	if o.CPU != nil {
		c.CPU = *o.CPU
	}
	if c.Started.IsZero() {
		c.Started = time.Now() // the budget counts from the call
	}
	if c.Warmup == NoWarmup {
		c.Warmup = 0 // one round, as testrun takes a zero warm-up
	}
	if c.Precision == FixedSamples {
		c.Precision = 0 // exactly Samples rounds, no budget
	}
	c.Compare.NoiseThreshold = noiseThreshold(c.Compare)
	return c, nil
}
