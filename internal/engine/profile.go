package engine

import (
	"context"
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/profile"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Profile runs every case once through each program's instrumented copy
// and attributes each case's instructions to the program's lines and
// functions; with two programs, it compares them. Nothing is timed.
func Profile(ctx context.Context, o Config, notice func(string)) (*profile.Report, error) {
	cfg := testrun.Config{Programs: o.Programs, Cases: o.Cases, MapInit: o.MapInit, Load: o.Load, CPU: o.CPU, KeepBlocks: true}
	cfg.Notice = notice
	res, err := testrun.Check(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rep := &profile.Report{}
	for _, pr := range res.Programs {
		p, err := profileOf(pr)
		if err != nil {
			return nil, err
		}
		rep.Profiles = append(rep.Profiles, p)
	}
	if len(rep.Profiles) == 2 {
		rep.Diff = profile.Compare(rep.Profiles[0], rep.Profiles[1])
	}
	return rep, nil
}

// profileOf attributes a checked program's block counts.
func profileOf(pr testrun.ProgramResult) (*profile.Profile, error) {
	if pr.Counted == nil {
		why := "its instructions were not counted"
		if len(pr.Cases) > 0 && pr.Cases[0].NoCount != "" {
			why = "instructions " + pr.Cases[0].NoCount
		}
		return nil, fmt.Errorf("%s in %s: %s", pr.Info.Name, pr.Object, why)
	}
	prog, err := profile.NewProgram(pr.Counted.Instructions, pr.Counted.Blocks)
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %w", pr.Info.Name, pr.Object, err)
	}
	if pr.Counted.JIT != nil {
		_ = prog.AddJIT(pr.Counted.JIT, pr.Counted.JITLines) // the profile says why not
	} else {
		prog.NoMachine = pr.Counted.JITError
	}
	names := make([]string, len(pr.Cases))
	blocks := make([][]uint64, len(pr.Cases))
	for i, c := range pr.Cases {
		names[i], blocks[i] = c.Case.Name, c.Blocks
	}
	prof, err := profile.New(pr.Label, pr.Object, pr.Info.Name, pr.Info.Type.String(), prog, names, blocks)
	if err != nil {
		return nil, err
	}
	if pr.Counted.Verified == nil {
		prof.NoVerifier = pr.Counted.VerifiedNote
		return prof, nil
	}
	walk, err := prog.Verified(pr.Counted.Verified)
	if err != nil {
		prof.NoVerifier = err.Error()
		return prof, nil
	}
	prof.Verifier = &walk
	return prof, nil
}
