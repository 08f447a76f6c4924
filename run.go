package xdpmicro

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/analysis"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/internal/stopping"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// ErrBadInput is what every error that is the caller's input being wrong
// wraps (an object, a case, a file, an option), as opposed to the kernel
// or the machine refusing: errors.Is(err, ErrBadInput) tells them apart.
var ErrBadInput = badinput.Err

// ErrOptions: options that cannot hold together. It wraps ErrBadInput.
var ErrOptions = badinput.New("bad options")

// Sentinels of Options for what a zero value cannot say, as zero is the
// default.
const (
	// FixedSamples, as Precision, takes exactly Samples rounds: no
	// adaptive sampling, no time budget.
	FixedSamples = -1
	// NoWarmup, as Warmup, warms up for one round only.
	NoWarmup time.Duration = -1
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
)

// Options are a run: what to measure, how to sample it, and how to judge
// a comparison. Its zero value (or nil, where a pointer is taken) is the
// command's defaults, every one filled in one place (complete) and the
// whole checked before anything is loaded.
type Options struct {
	// Programs are what to measure, in the same rounds; with Compared,
	// two: before, then after, whose change is judged. Measure and
	// Compare set them from their arguments.
	Programs []testrun.Program
	Compared bool
	// Live measures the one program twice in the same rounds, as a plain
	// test run and with live frames (live.go), and compares the two: the
	// change is what the program's action costs. LiveBatch is the frames
	// the kernel runs and flushes together, 0 for its default.
	Live      bool
	LiveBatch int
	// liveNet is where live frames go, open while Run measures.
	liveNet *testrun.LiveNet
	// Cases are the packets to run: Measure and Compare take nil for the
	// source-address classes on bundled builds, else the protocol mix.
	// Build them with Frame, Classes, Mix, or package packets.
	Cases []packets.Case
	// MapInit, if set, fills the maps of every program measured after
	// loading, and sets variables and map sizes before (ReadMapInit).
	MapInit *MapInit
	// Load changes every program measured before it is loaded.
	Load LoadOptions
	// CPU pins the measuring threads to one CPU; nil lets xdpmicro choose
	// a quiet one.
	CPU *int
	// Warmup is how long every case is sampled, in turn, before samples
	// are kept: zero is testrun.DefaultWarmup, NoWarmup one round.
	Warmup time.Duration
	// Samples, with Precision FixedSamples, is the exact number of
	// rounds; otherwise it is the fewest before precision is judged.
	Samples int
	// Precision, with Budget, samples until every estimate (every change,
	// when comparing by slope) is known to ±Precision, or Budget is spent:
	// zero is stats.DefaultPrecision; FixedSamples takes Samples rounds.
	Precision float64
	// Budget bounds calibration, warm-up and sampling: zero is
	// testrun.DefaultBenchBudget, or testrun.DefaultBudget comparing.
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
	// in one group (groups.go): 0 chooses.
	GroupLoads int
	SingleRun  bool
	Restore    bool
	// NoFloor leaves out the empty program of the measured type.
	NoFloor  bool
	NoAnchor bool
	// Estimator is what stands for a case; empty: the slope with linear
	// sampling, the low quantile with flat.
	Estimator stats.Estimator
	// Stats are the intervals' confidence and resamples: zero is
	// stats.DefaultOptions.
	Stats stats.Options
	// Compare judges a comparison: against the first program, or
	// Baseline. Zero is Stats with stats.DefaultSignificance, the
	// kernel's resolution as the quantum, and the estimator's default
	// noise threshold.
	Compare  stats.CompareOptions
	Baseline *results.Report
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

// Observer hears of a run while it goes: every sample's progress, on the
// measuring thread (it must return at once), and notices for a person.
type Observer interface {
	Progress(testrun.Progress)
	Notice(string)
}

// partialResamples bounds the bootstrap of an interrupted run's report:
// whoever interrupted it wants the figures at once.
const partialResamples = 1000

// Run measures, analyses and, for two programs or a baseline, compares.
// When ctx is cancelled mid-run it returns the report of what was
// measured, marked Partial, with ctx's error.
func Run(ctx context.Context, o Options, obs Observer) (*results.Report, error) {
	o, err := o.complete()
	if err != nil {
		return nil, err
	}
	if o.Live {
		if o.liveNet, err = testrun.OpenLiveNet(); err != nil {
			return nil, err
		}
		defer o.liveNet.Close()
	}
	res, runErr := o.measureRaw(ctx, obs)
	if runErr != nil && !res.Partial {
		return nil, runErr
	}
	m := measuredOf(res)
	settings, opts := o.settings(), o.Stats
	if m.Partial {
		opts.Resamples = min(opts.Resamples, partialResamples)
		settings.Resamples = opts.Resamples
	}
	rep, err := analysis.New(settings, m, opts)
	if err != nil {
		return nil, err
	}
	if m.Partial {
		return rep, runErr
	}
	if o.History != "" {
		o.recall(rep, obs)
	}
	if rep, err = o.compare(rep); err != nil {
		return nil, err
	}
	if o.Compared {
		addLineChanges(rep.Comparison, res)
	}
	rep.Environment.Wall = time.Since(o.Started)
	return rep, nil
}

// MeasureRaw measures as Run does, and returns what was measured, raw: for
// callers that analyse it their own way.
func MeasureRaw(ctx context.Context, o Options, obs Observer) (results.Measured, error) {
	o, err := o.complete()
	if err != nil {
		return results.Measured{}, err
	}
	return o.measure(ctx, obs)
}

func (o Options) measure(ctx context.Context, obs Observer) (results.Measured, error) {
	res, err := o.measureRaw(ctx, obs)
	if err != nil && !res.Partial {
		return results.Measured{}, err
	}
	return measuredOf(res), err
}

// measureRaw measures, and returns what package testrun found.
func (o Options) measureRaw(ctx context.Context, obs Observer) (testrun.Result, error) {
	return o.measureGroups(ctx, obs)
}

// complete checks the options and fills what they leave zero with the
// defaults, every one of them here: nothing is loaded before it.
func (o Options) complete() (Options, error) {
	if err := o.check(); err != nil {
		return o, err
	}
	if o.Live {
		o = o.asLive()
	}
	if o.Started.IsZero() {
		o.Started = time.Now()
	}
	switch o.Warmup {
	case 0:
		o.Warmup = testrun.DefaultWarmup
	case NoWarmup:
		o.Warmup = 0 // one round, as testrun takes a zero warm-up
	}
	switch o.Precision {
	case 0:
		o.Precision = stats.DefaultPrecision
	case FixedSamples:
		o.Precision = 0 // exactly Samples rounds, no budget
	}
	if o.Precision > 0 && o.Budget == 0 {
		o.Budget = testrun.DefaultBenchBudget
		if o.Compared {
			o.Budget = testrun.DefaultBudget // time to settle the verdicts
		}
	}
	if o.Sampling == "" {
		o.Sampling = testrun.SamplingLinear
	}
	if o.Estimator == "" {
		o.Estimator = stats.Slope
		if o.Sampling == testrun.SamplingFlat {
			o.Estimator = stats.Low
		}
	}
	if o.Placements == 0 {
		o.Placements = testrun.DefaultLoads
		if o.Compared {
			o.Placements = testrun.DefaultPlacements
		}
	}
	if o.Stats == (stats.Options{}) {
		o.Stats = stats.DefaultOptions()
	}
	if o.Compare == (stats.CompareOptions{}) {
		o.Compare = stats.CompareOptions{
			Options: o.Stats, Significance: stats.DefaultSignificance, Quantum: testrun.Resolution,
			NoiseThreshold: stats.DefaultNoiseThreshold(o.Estimator, o.Compared), ThresholdChosen: true,
		}
	}
	if err := o.checkCompleted(); err != nil {
		return o, err
	}
	o.Compare.Estimator = o.Estimator
	return o, nil
}

// check refuses options that cannot hold together, whatever the defaults.
func (o Options) check() error {
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
		return fmt.Errorf("%w: %d samples: want %d to %d, or 0 for the default", ErrOptions, o.Samples, testrun.MinSamples, MaxSamples)
	case o.Precision != FixedSamples && (o.Precision < 0 || o.Precision >= 1):
		return fmt.Errorf("%w: precision %g: want a fraction in (0, 1), 0 for the default, or FixedSamples for a fixed number of samples", ErrOptions, o.Precision)
	case o.Budget < 0 || o.Budget > MaxDuration:
		return fmt.Errorf("%w: a time budget of %s: want up to %s, or 0 for the default", ErrOptions, o.Budget, MaxDuration)
	case o.Warmup < 0 && o.Warmup != NoWarmup || o.Warmup > MaxDuration:
		return fmt.Errorf("%w: a warm-up of %s: want up to %s, 0 for the default, or NoWarmup", ErrOptions, o.Warmup, MaxDuration)
	case o.CPU != nil && *o.CPU < testrun.AnyCPU:
		return fmt.Errorf("%w: CPU %d: want a CPU number, or testrun.AnyCPU to choose", ErrOptions, *o.CPU)
	case len(o.Cases) > packets.MaxCases:
		return fmt.Errorf("%w: %d packet cases: want at most %d", ErrOptions, len(o.Cases), packets.MaxCases)
	case o.Live && (o.Compared || o.Baseline != nil || len(o.Programs) != 1):
		return fmt.Errorf("%w: live frames measure one program against its own test run: no second build or baseline", ErrOptions)
	case o.LiveBatch < 0 || o.LiveBatch > testrun.MaxBatch:
		return fmt.Errorf("%w: a batch of %d live frames: want 1 to %d, or 0 for the kernel's %d", ErrOptions, o.LiveBatch, testrun.MaxBatch, testrun.DefaultBatch)
	case o.GroupLoads < 0 || o.GroupLoads > MaxPlacements:
		return fmt.Errorf("%w: %d loads a group: want 1 to %d, or 0 for the default", ErrOptions, o.GroupLoads, MaxPlacements)
	}
	// Zero is the default, filled in by complete; anything else is the
	// caller's, checked here with the rest.
	if o.Stats != (stats.Options{}) {
		if err := o.Stats.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrOptions, err)
		}
	}
	if o.Compare != (stats.CompareOptions{}) {
		if err := o.Compare.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrOptions, err)
		}
	}
	return nil
}

// checkCompleted refuses what only the defaults make clear.
func (o Options) checkCompleted() error {
	switch {
	case o.Estimator.Fitted() && o.Sampling != testrun.SamplingLinear:
		return fmt.Errorf("%w: the %s estimator needs linear sampling", ErrOptions, o.Estimator)
	case o.Precision > 0 && o.Estimator == stats.Min:
		return fmt.Errorf("%w: the min estimator has no interval to bring to a precision: give a number of samples", ErrOptions)
	}
	return nil
}

// cpu is the CPU to measure on, or testrun.AnyCPU.
func (o Options) cpu() int {
	if o.CPU == nil {
		return testrun.AnyCPU
	}
	return *o.CPU
}

// Measured is the program the run is about: the only one, or the after
// build of a comparison (see results.Report.Measured).
func (o *Options) Measured() *testrun.Program {
	if len(o.Programs) == 0 {
		return nil
	}
	return &o.Programs[len(o.Programs)-1]
}

// sampling is how many samples to take, or until when.
type sampling struct {
	samples int
	enough  func(int, []testrun.CaseResult) bool
	budget  time.Duration
	minTime time.Duration
}

// plan is a fixed number of rounds without Precision, else adaptive
// sampling until stats' stopping rule has enough.
func (o Options) plan() sampling {
	if o.Precision == 0 {
		return sampling{samples: o.Samples}
	}
	rounds := testrun.MinAdaptiveRounds
	if o.Samples > 0 {
		rounds = o.Samples // the fewest, then
	}
	rule := stopping.Rule{Estimator: o.Estimator, Precision: o.Precision, Options: o.Stats,
		Compare: o.Compared, Placements: o.Placements, Threshold: o.Compare.NoiseThreshold}
	enough := func(_ int, results []testrun.CaseResult) bool { return rule.Enough(sampled(results)) }
	return sampling{samples: rounds, enough: enough, budget: o.Budget, minTime: min(testrun.MinSamplingTime, o.Budget/2)}
}

// sampled hands testrun's results so far to the stopping rules (internal/stopping).
func sampled(results []testrun.CaseResult) []stopping.Sampled {
	out := make([]stopping.Sampled, len(results))
	for i, r := range results {
		out[i].Samples = r.Samples
		if len(r.Runs) > 0 {
			t := stats.Timings{Runs: make([]float64, len(r.Runs)), Total: r.Wall}
			for j, n := range r.Runs {
				t.Runs[j] = float64(n)
			}
			out[i].Timings = t
		}
	}
	return out
}

// config is testrun's configuration of the run.
func (o Options) config(plan sampling, obs Observer) testrun.Config {
	cfg := testrun.Config{
		Programs: o.Programs, Cases: o.Cases, MapInit: o.MapInit, Load: o.Load, CPU: o.cpu(),
		Warmup: o.Warmup, Samples: plan.samples, Enough: plan.enough, Budget: plan.budget, MinTime: plan.minTime,
		Repeat: o.Repeat, Timer: o.Timer, Sampling: o.Sampling, Placements: o.Placements,
		SingleRun: o.SingleRun, Restore: o.Restore,
		// Two builds' block counts name the lines whose counts changed.
		Profile: o.Compared,
	}
	if !o.NoFloor {
		cfg.Floor = &testrun.Object{Name: "floor (bundled)", ELF: bpf.Floor()}
	}
	if o.NoAnchor {
		cfg.Anchor = testrun.AnchorNever
	}
	if o.liveNet != nil {
		cfg.Live = &testrun.Live{Net: o.liveNet, Batch: uint32(o.LiveBatch)}
	}
	if obs != nil {
		cfg.Progress, cfg.Notice = obs.Progress, obs.Notice
	}
	return cfg
}

// settings are the report's record of the run.
func (o Options) settings() results.Settings {
	s := o.Settings
	s.Cases, s.CPU, s.Samples, s.Repeat, s.Warmup = nil, o.cpu(), o.Samples, o.Repeat, o.Warmup.String()
	for _, c := range o.Cases {
		s.Cases = append(s.Cases, c.Name)
	}
	s.Estimator = o.Estimator
	s.Confidence, s.Resamples = o.Stats.Confidence, o.Stats.Resamples
	if s.Object == "" {
		s.Object = o.Measured().Object.Name
	}
	if o.Compared && s.Before == "" {
		s.Before = o.Programs[0].Object.Name
	}
	if o.Precision > 0 {
		s.Precision, s.Budget = o.Precision, o.Budget.String()
	}
	return s
}

// compare judges the change between the two programs, or from the
// baseline, when there is one to judge.
func (o Options) compare(rep *results.Report) (*results.Report, error) {
	switch {
	case o.Compared:
		if err := analysis.CompareInterleaved(rep, o.Compare, phases.Transfer(o.Live)); err != nil {
			return nil, err
		}
		if o.Live {
			o.markLive(rep)
		}
	case o.Baseline != nil:
		return analysis.Against(o.Baseline, rep, o.BaselineName, o.Compare)
	}
	return rep, nil
}

// Interrupted says whether err is a run stopped by its context.
func Interrupted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
