package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// Re-analysis of saved runs. A saved run holds what was measured beside
// what was found: every load's samples (the kernel's figures, and for
// linear sampling each call's repeat and wall time), the floor's, and
// the environment. Stripped to that (results.Raw), it is analysed again
// as if just measured, by today's analysis: runs saved by older builds
// are judged by today's estimator, not by the one they were saved with.

// ErrNoRaw is returned for a saved run that holds no raw samples to
// analyse again: one saved before they were kept, or trimmed of them.
var ErrNoRaw = fmt.Errorf("%w: no raw samples to analyse again (saved without them)", results.ErrBadResult)

// Reanalysis is how a saved run is analysed again: its caller's options
// completed (xdpmicro.Analyze), each the run's own where not given.
type Reanalysis struct {
	// Stats are the bootstrap's options, completed.
	Stats stats.Options
	// Estimator stands for each case; empty for the run's own.
	Estimator stats.Estimator
	// Compare judges an interleaved run's two builds, completed but for
	// its statistics, which are Stats, and its estimator, Estimator.
	Compare stats.CompareOptions
	// History, where set, is the phase history whose fast phase the run
	// is scaled to (recalledFrom); empty: the run stands on its own.
	History string
}

// Reanalyze analyses saved again from its raw samples (results.Raw) as
// Run analyses what it measured: each case's summary over its loads, at
// the run's fast phase, net of its floor, scaled to the fast phase
// how.History recalls where one is given, and an interleaved run's two
// builds compared. A comparison of two runs measured apart (a baseline,
// two files) is analysed as its later run alone, the one it holds whole
// (its environment and floor): obs hears so. Errors from the file's
// samples are bad input (results.ErrBadResult).
func Reanalyze(ctx context.Context, saved *results.Run, how Reanalysis, obs Observer) (*results.Run, error) {
	apart := saved.Comparison != nil && saved.Comparison.Mode != results.Interleaved
	if apart && obs != nil {
		obs.Notice(fmt.Sprintf("the file compares two runs measured apart (%s): its later run is analysed alone; "+
			"compare the two saved runs to judge the change again", saved.Comparison.Mode))
	}
	rep, err := reanalyse(ctx, saved, how)
	if err != nil {
		return nil, err
	}
	if how.History != "" {
		recalledFrom(rep, how.History, how.Stats.Confidence, obs)
	}
	if apart || saved.Comparison == nil {
		return rep, nil
	}
	return rep, judgeInterleaved(ctx, rep, saved.Comparison, how)
}

// reanalyse is Reanalyze's analysis of the programs measured together,
// compared by nothing: a comparison apart keeps its later run alone.
func reanalyse(ctx context.Context, saved *results.Run, how Reanalysis) (*results.Run, error) {
	raw, ok := rawOf(saved)
	if !ok {
		return nil, ErrNoRaw
	}
	settings := saved.Settings
	settings.Confidence, settings.Resamples = how.Stats.Confidence, how.Stats.Resamples
	if how.Estimator != "" {
		settings.Estimator = how.Estimator
	}
	rep, err := NewContext(ctx, settings, raw, how.Stats)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		// What the analysis refuses here is the file's samples (too
		// few calls of a level to fit, say): the input, not the machine.
		return nil, fmt.Errorf("%w: %w", results.ErrBadResult, err)
	}
	return rep, nil
}

// judgeInterleaved compares rep's two builds as an interleaved run's are
// (runner.compare), saved being the comparison the file held: live
// frames marked as they were, and the lines whose instruction counts
// changed kept, as they come from the run's block counts, which no file
// holds.
func judgeInterleaved(ctx context.Context, rep *results.Run, saved *results.Comparison, how Reanalysis) error {
	opts := how.Compare
	opts.Options, opts.Estimator = how.Stats, rep.Settings.ChosenEstimator()
	if err := CompareInterleavedContext(ctx, rep, opts, phases.Transfer(saved.Live != nil)); err != nil {
		if ctx.Err() == nil && !errors.Is(err, ErrNotComparable) {
			err = fmt.Errorf("%w: %w", results.ErrBadResult, err)
		}
		return err
	}
	if saved.Live != nil {
		markLiveAs(rep, *saved.Live)
	}
	for i := range rep.Comparison.Cases {
		cc := &rep.Comparison.Cases[i]
		j := slices.IndexFunc(saved.Cases, func(s results.ComparedCase) bool { return s.Name == cc.Name })
		if j >= 0 && cc.InsnsCounted() && cc.InsnsBefore != cc.InsnsAfter {
			cc.LinesChanged = saved.Cases[j].LinesChanged
		}
	}
	return nil
}

// rawOf is what saved measured, as the analysis takes it: its programs
// (the later run alone of a comparison measured apart), their loads and
// the floor's, each case's samples with its frame, action and counts,
// and the environment; every figure the analysis finds left out (each
// case's summary and net, the series). ok is false where a case of a
// load holds no samples: nothing to analyse again.
func rawOf(saved *results.Run) (raw results.Raw, ok bool) {
	programs := saved.Programs
	if saved.Comparison != nil && saved.Comparison.Mode != results.Interleaved {
		programs = programs[len(programs)-1:]
	}
	raw = results.Raw{Environment: saved.Environment, Partial: saved.Partial}
	ok = len(programs) > 0
	for _, p := range programs {
		q, has := rawProgram(p)
		raw.Programs, ok = append(raw.Programs, q), ok && has
	}
	if saved.Floor != nil {
		f, has := rawProgram(*saved.Floor)
		raw.Floor, ok = &f, ok && has
	}
	return raw, ok
}

// rawProgram is p and its placements without what the analysis finds;
// has says every case of every load holds samples.
func rawProgram(p results.Program) (results.Program, bool) {
	out := p
	out.Series = nil
	out.Results = slices.Clone(p.Results)
	has := len(out.Results) > 0
	for i := range out.Results {
		c := &out.Results[i]
		c.Stats, c.Net = nil, nil
		has = has && len(c.Samples) > 0
	}
	out.Placements = nil
	for _, q := range p.Placements {
		r, ok := rawProgram(q)
		out.Placements, has = append(out.Placements, r), has && ok
	}
	return out, has
}

// RecordedLowQuantile is the low estimator's quantile saved's summaries
// were found at; ok is false where none is recorded (no summary).
func RecordedLowQuantile(saved *results.Run) (q float64, ok bool) {
	progs := slices.Clone(saved.Programs)
	if saved.Floor != nil {
		progs = append(progs, *saved.Floor)
	}
	for _, p := range progs {
		for _, c := range p.Results {
			if c.Stats != nil && c.Stats.Estimates.LowQuantile > 0 {
				return c.Stats.Estimates.LowQuantile, true
			}
		}
	}
	return 0, false
}

// recalledFrom scales rep to the fast phase the history at path recalls
// for it (AtRecalled), as a run on this boot and CPU would be, and as the
// history stood when rep's run began: a saved run is judged by the runs
// before it, never by its own floor, which its run added after it. The
// history is only read: a run analysed again is no new run of the
// machine. What cannot be recalled is said, and the run stands on its
// own.
func recalledFrom(rep *results.Run, path string, confidence float64, obs Observer) {
	say := func(format string, args ...any) {
		if obs != nil {
			obs.Notice("phase history (--history): " + fmt.Sprintf(format, args...))
		}
	}
	if _, _, ok := FloorLevel(rep); !ok {
		say("the run has no plain floor to scale by: it stands on its own")
		return
	}
	boot, err := phases.Boot()
	if err != nil {
		say("%v", err)
		return
	}
	h, err := phases.Load(path)
	if err != nil {
		say("%v: the run stands on its own", err)
		return
	}
	key := savedHistoryKey(rep, boot)
	ref, ok := h.Reference(key, rep.Environment.Start, confidence)
	if !ok {
		say("%s holds no fast phase of this boot for this run's CPU and design (%s) in the %s before it began: it stands on its own",
			path, key, phases.MaxAge)
		return
	}
	AtRecalled(rep, Recalled{Floor: ref.Floor, RelHalf: ref.RelHalf, Runs: ref.Runs, Drift: ref.Drift, DriftKnown: ref.DriftKnown}, confidence)
}

// savedHistoryKey is the phase history's key of a saved run on this
// boot, as runner.historyKey makes a run's from its Config: the run's
// programs and loads a group as its environment recorded them.
func savedHistoryKey(rep *results.Run, boot string) phases.Key {
	env := rep.Environment
	floorPerGroup := (1 + len(rep.Floor.Placements)) / max(env.Groups, 1)
	return phases.Key{Boot: boot, CPU: env.MainCPU(), Type: rep.Floor.Info.Type,
		Design: phases.NewDesign(len(rep.Programs), env.LoadsPerGroup, floorPerGroup),
		Frames: phases.NewFrames(FloorLevelFrames(rep))}
}
