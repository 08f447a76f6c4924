package engine

import (
	"context"
	"errors"
	"time"

	"github.com/xdpmicro/xdpmicro/bpf"

	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Observer hears of a run while it goes: every sample's progress, on the
// measuring thread (it must return at once), and notices for a person.
type Observer interface {
	Progress(testrun.Progress)
	Notice(string)
}

// partialResamples bounds the bootstrap of an interrupted run's report:
// whoever interrupted it wants the figures at once.
const partialResamples = 1000

// partialAnalysis bounds the time an interrupted run's report takes to
// analyse: the stop must come within a second of the signal (issue 59),
// and fifty cases of two builds took 3 s here, resamples cut or not. The
// cases not begun by then show without figures.
const partialAnalysis = 400 * time.Millisecond

// runner is the engine of a run: its Config, live frames turned into
// their comparison, and what the run holds open.
type runner struct {
	Config
	// liveNet is where live frames go, open while the run measures.
	liveNet *testrun.LiveNet
	// mover, where set before measuring, chooses the groups' CPUs in
	// place of newCPUMover's.
	mover *cpuMover
	// recalledRef is the fast phase the report will scale a program
	// measured alone to, read after the first group; nil for none.
	recalledRef *Recalled
}

// newRunner is the engine of c.
func newRunner(c Config) *runner {
	if c.Live {
		c = asLive(c)
	}
	return &runner{Config: c}
}

// start opens what c's run needs; the caller closes the runner when done.
func start(c Config) (*runner, error) {
	r := newRunner(c)
	if r.Live {
		var err error
		if r.liveNet, err = testrun.OpenLiveNet(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// close closes what the run held open.
func (o *runner) close() {
	if o.liveNet != nil {
		_ = o.liveNet.Close()
	}
}

// Run measures, analyses and, for two programs or a baseline, compares.
// When ctx is cancelled mid-run it returns the report of what was
// measured, marked Partial, with ctx's error.
func Run(ctx context.Context, c Config, obs Observer) (*results.Run, error) {
	r, err := start(c)
	if err != nil {
		return nil, err
	}
	defer r.close()
	res, runErr := r.measureGroups(ctx, obs)
	if runErr != nil && !res.Partial {
		return nil, runErr
	}
	m := schemaOf(res)
	if m.Partial {
		return r.analysePartial(m, runErr)
	}
	rep, err := NewContext(ctx, r.settings(), m, r.Stats)
	if err != nil && ctx.Err() != nil {
		// Interrupted while analysing: what was measured, analysed at
		// once, as an interrupted run's is.
		m.Partial = true
		return r.analysePartial(m, ctx.Err())
	}
	if err != nil {
		return nil, err
	}
	if r.History != "" {
		r.recall(rep, obs)
	}
	compared, err := r.compare(ctx, rep)
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	if ctx.Err() != nil {
		// Interrupted while comparing, or after: not a report to save.
		rep.Partial = true
		return rep, ctx.Err()
	}
	rep = compared
	if r.Compared {
		addLineChanges(rep.Comparison, res)
	}
	rep.Environment.Wall = time.Since(r.Started)
	return rep, nil
}

// analysePartial is the report of an interrupted run, m, with the error
// that interrupted it: fewer resamples, no comparison, and only the cases
// analysed within partialAnalysis.
func (o *runner) analysePartial(m results.Raw, runErr error) (*results.Run, error) {
	settings, opts := o.settings(), o.Stats
	opts.Resamples = min(opts.Resamples, partialResamples)
	settings.Resamples = opts.Resamples
	ctx, cancel := context.WithTimeout(context.Background(), partialAnalysis)
	defer cancel()
	rep, err := NewContext(ctx, settings, m, opts)
	if err != nil {
		return nil, err
	}
	return rep, runErr
}

// MeasureRaw measures as Run does, and returns what was measured, raw: for
// callers that analyse it their own way.
func MeasureRaw(ctx context.Context, c Config, obs Observer) (results.Raw, error) {
	r, err := start(c)
	if err != nil {
		return results.Raw{}, err
	}
	defer r.close()
	res, err := r.measureGroups(ctx, obs)
	if err != nil && !res.Partial {
		return results.Raw{}, err
	}
	return schemaOf(res), err
}

// sampling is how many samples to take, or until when.
type sampling struct {
	samples int
	enough  func(int, []testrun.CaseResult) bool
	budget  time.Duration
	minTime time.Duration
}

// plan is a fixed number of rounds without Precision, else sampling
// until stats' stopping rule has enough, or budget is spent.
func (o *runner) plan(budget time.Duration) sampling {
	if o.Precision == 0 {
		return sampling{samples: o.Samples}
	}
	rounds := MinAdaptiveRounds
	if o.Samples > 0 {
		rounds = o.Samples // the fewest, then
	}
	rule := stopRule{Estimator: o.Estimator, Precision: o.Precision, Options: o.Stats,
		Compare: o.Compared, Placements: o.Placements, Threshold: o.Compare.NoiseThreshold}
	enough := func(_ int, results []testrun.CaseResult) bool { return rule.enough(sampled(results)) }
	return sampling{samples: rounds, enough: enough, budget: budget, minTime: min(MinSamplingTime, budget/2)}
}

// sampled hands testrun's results so far to the stopping rules (stopping.go).
func sampled(results []testrun.CaseResult) []sampledSide {
	out := make([]sampledSide, len(results))
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
func (o *runner) config(plan sampling, obs Observer) testrun.Config {
	cfg := testrun.Config{
		Programs: o.Programs, Cases: o.Cases, MapInit: o.MapInit, Load: o.Load, CPU: o.CPU,
		Warmup: o.Warmup, Samples: plan.samples, Enough: plan.enough, Budget: plan.budget, MinTime: plan.minTime,
		Repeat: o.Repeat, Timer: o.Timer, Sampling: o.Sampling, Placements: o.Placements,
		SingleRun: o.SingleRun, Restore: o.Restore, TargetSample: o.SampleTime,
		// Two builds' block counts name the lines whose counts changed.
		KeepBlocks: o.Compared,
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
func (o *runner) settings() results.Settings {
	s := o.Settings
	s.Cases, s.CPU, s.Samples, s.Repeat, s.Warmup = nil, o.CPU, o.Samples, o.Repeat, o.Warmup.String()
	for _, c := range o.Cases {
		s.Cases = append(s.Cases, c.Name)
	}
	s.Estimator = o.Estimator
	s.Confidence, s.Resamples = o.Stats.Confidence, o.Stats.Resamples
	if s.Object == "" {
		s.Object = o.measured().Object.Name
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
func (o *runner) compare(ctx context.Context, rep *results.Run) (*results.Run, error) {
	switch {
	case o.Compared:
		if err := CompareInterleavedContext(ctx, rep, o.Compare, phases.Transfer(o.Live)); err != nil {
			return nil, err
		}
		if o.Live {
			o.markLive(rep)
		}
	case o.Baseline != nil:
		return AgainstContext(ctx, o.Baseline, rep, o.BaselineName, o.Compare)
	}
	return rep, nil
}

// Interrupted says whether err is a run stopped by its context.
func Interrupted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
