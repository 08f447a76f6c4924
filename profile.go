package xdpmicro

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/kernels"
	"github.com/xdpmicro/xdpmicro/internal/profile"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// ProfileReport is what Profile returns: each program's profile and, for
// two, their difference.
type ProfileReport = profile.Report

// Profile runs every case once through each program's instrumented copy,
// as bench counts instructions, and attributes each case's instructions to
// the program's lines and functions; with two programs (before, then
// after), it compares them. Of o it takes the programs, the cases, the
// maps, the loading and the CPU; nothing is timed.
func Profile(ctx context.Context, o Options, obs Observer) (*ProfileReport, error) {
	switch {
	case len(o.Programs) == 0 || len(o.Programs) > 2:
		return nil, fmt.Errorf("%w: %d programs to profile: want one, or two to compare", ErrOptions, len(o.Programs))
	case len(o.Cases) == 0:
		return nil, fmt.Errorf("%w: no packet case", ErrOptions)
	}
	o, err := o.Complete() // the checks every run's options pass
	if err != nil {
		return nil, err
	}
	cfg := testrun.Config{Programs: o.Programs, Cases: packets.InStates(o.Cases, o.States), MapInit: o.MapInit, Load: o.Load, CPU: cpuOf(o), Profile: true}
	if obs != nil {
		cfg.Notice = obs.Notice
	}
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

// KernelProfiles is a profile run on several kernels (profile --kernel),
// KernelProfile what one kernel gave.
type (
	KernelProfiles = profile.KernelProfiles
	KernelProfile  = profile.KernelProfile
)

// ProfileKernels gathers the outcomes of profile --format json on each
// kernel: each kernel's profile, or why it has none.
func ProfileKernels(outcomes []KernelOutcome, args []string) KernelProfiles {
	byKernel := map[string]*profile.Report{}
	runs := kernels.Runs(outcomes, args, func(k *results.KernelRun, stdout []byte) error {
		// A guest's output is no more trusted than a file: it passes a
		// saved profile's checks before anything renders it.
		rep, err := results.ParseProfile("profile's output", stdout)
		if err != nil {
			return errors.New("unreadable profile: " + strings.TrimPrefix(err.Error(), results.ErrBadResult.Error()+": "))
		}
		byKernel[k.Kernel] = rep
		return nil
	})
	kp := KernelProfiles{Schema: profile.KernelsSchema}
	for _, k := range runs.Kernels {
		kp.Kernels = append(kp.Kernels, profile.KernelProfile{KernelRun: k, Profile: byKernel[k.Kernel]})
	}
	return kp
}
