package xdpmicro

import (
	"context"
	"fmt"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/ladder"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Ladder is o measuring the bundled ladder and its fine rungs, as each of
// Validate's runs does: their one case, by linear sampling, every rung over
// as many loads as the XDP dispatcher holds at once (a load's placement
// moves a rung by more than a fine step); Complete fills the rest, the
// budget of several programs among them.
func Ladder(o Options) (Options, error) {
	cases, err := ladder.Cases()
	if err != nil {
		return Options{}, err
	}
	o.Programs, o.Compared, o.Baseline, o.Cases = ladderPrograms(), false, nil, cases
	o.Sampling, o.Placements = testrun.SamplingLinear, testrun.MostLoads(len(o.Programs))
	return o, nil
}

// DefaultValidateRuns is how many runs Validate makes when runs is zero:
// the spread from run to run needs more than two.
const DefaultValidateRuns = 3

// Validate measures the bundled ladder (Ladder) in runs separate runs (zero: DefaultValidateRuns),
// each loading everything anew, every one on the first one's CPU, and
// checks the measurements (internal/ladder): the order of the rungs, the
// linearity of their cost, the spread from run to run, the fine rungs. Of
// o it takes how to sample and the statistics; the validation's Failures
// say which checks failed. It returns the runs' reports with it. A run
// that fails, or is interrupted, ends it with that run's error.
func Validate(ctx context.Context, o Options, runs int, obs Observer) (*results.Validation, []*results.Run, error) {
	if runs == 0 {
		runs = DefaultValidateRuns
	}
	if runs < 1 || runs > MaxValidateRuns {
		return nil, nil, fmt.Errorf("%w: %d runs: want 1 to %d", ErrOptions, runs, MaxValidateRuns)
	}
	o, err := Ladder(o)
	if err != nil {
		return nil, nil, err
	}
	if o, err = o.Complete(); err != nil {
		return nil, nil, err
	}
	var reps []*results.Run
	for i := range runs {
		rep, err := Run(ctx, o, obs)
		if err != nil {
			return nil, nil, fmt.Errorf("run %d: %w", i+1, err)
		}
		reps = append(reps, rep)
		// Every run on the first one's CPU: the runs' spread is a check,
		// and CPUs differ. Between runs another xdpmicro run may take it;
		// then the next run waits for it rather than move.
		cpu := rep.Environment.CPU
		o.CPU = &cpu
	}
	v, err := ladder.Validate(bpf.LadderSteps, bpf.FineBase, ladder.FineSteps, reps, o.Stats)
	if err != nil {
		return nil, nil, err
	}
	return v, reps, nil
}

// ladderPrograms are the ladder's programs as Options hold them, each
// labelled with its steps.
func ladderPrograms() []Program {
	var progs []Program
	for _, p := range ladder.Programs() {
		progs = append(progs, Program{object: object.Object(p.Object), program: p.Program, label: p.Label, bundled: true, rung: true})
	}
	return progs
}
