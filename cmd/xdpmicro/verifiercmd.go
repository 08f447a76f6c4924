package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

type verifierFlags struct {
	program, before, after string
	loads                  int
	load                   loadFlags
	failOn                 []string
	format, output         string
}

func verifierCommand() *cobra.Command {
	var f verifierFlags
	cmd := &cobra.Command{
		Use:   "verifier [OBJECT]",
		Short: "Load an object's programs, run nothing, and give what they cost the verifier; old build against new",
		Long: `Load every measurable program of OBJECT (the bundled default without one),
--loads times each, and run nothing: give what the kernel's verifier told
of each, as veristat does: instructions processed (the figure the
1,000,000-instruction limit holds), total and peak states, the most states
at one instruction, the program's size as the kernel rewrote it, its JIT
size and each function's stack depth, exact and the same for every load,
and the verification time, which is not: its median over the loads, with
the lowest and highest.

With --before and --after (or OBJECT as the new build), each figure old,
new and the difference, as veristat -C gives them. --fail-on makes it a
gate for CI or a pre-commit hook: exit 3 when a figure grew past what it
allows.`,
		Example: `  sudo xdpmicro verifier
  sudo xdpmicro verifier ./prog.o --format json
  sudo xdpmicro verifier --before v3 --after v4
  sudo xdpmicro verifier --before old.o --after new.o --fail-on verified-insns:+10%,jit-size:+5%`,
		Args:              atMostArgs(1),
		ValidArgsFunction: completeObject,
		RunE:              func(cmd *cobra.Command, args []string) error { return verify(cmd, f, args) },
	}
	fl := cmd.Flags()
	registerPrograms(fl, &f.program)
	fl.StringVar(&f.before, "before", "", "the old build `OBJECT` (a path or bundled build) to compare with")
	fl.StringVar(&f.after, "after", "", "the new build `OBJECT`; or give it as OBJECT")
	fl.IntVar(&f.loads, "loads", xdpmicro.DefaultVerifierLoads, fmt.Sprintf("load each program `N` times, for the verification time's spread; at most %d", xdpmicro.MaxVerifierLoads))
	f.load.register(cmd)
	fl.StringSliceVar(&f.failOn, "fail-on", nil, "exit 3 when the verifier's `FIGURE` grew, by more than the growth allowed if given: "+
		"verified-insns, states or jit-size (verified-insns:+10%); a comma list judges by each")
	fl.StringVar(&f.format, "format", string(report.Table), "write the figures in `FORMAT`: "+report.KindVerification.Help())
	fl.StringVarP(&f.output, "output", "o", "", "write the figures to `FILE`, atomically, instead of standard output")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(report.KindVerification.Formats()))
	return cmd
}

func verify(cmd *cobra.Command, f verifierFlags, args []string) error {
	if _, err := report.KindVerification.Parse(f.format); err != nil {
		return usageError(fmt.Errorf("--format: %w", err))
	}
	if err := f.load.check(); err != nil {
		return err
	}
	judges, err := f.judges()
	if err != nil {
		return err
	}
	progs, _, err := programChoice{program: f.program, before: f.before, after: f.after}.find(args)
	if err != nil {
		return err
	}
	v, err := xdpmicro.Verify(xdpmicro.Options{Programs: progs, Compared: f.before != "", Load: f.load.options()}, f.loads)
	if err != nil {
		return err
	}
	out := report.Output{Format: report.Format(f.format), Path: f.output}
	if err := out.Write(cmd.OutOrStdout(), report.OfVerification(v)); err != nil {
		return err
	}
	if err := refusals(v, len(judges) > 0); err != nil {
		return err
	}
	return judgeVerification(v, judges)
}

// judges are --fail-on's gates, each on a figure of the verifier's.
func (f verifierFlags) judges() ([]judge, error) {
	var judges []judge
	for _, s := range f.failOn {
		j, err := parseJudge(s)
		if err != nil {
			return nil, usageError(err)
		}
		if !slices.Contains(results.VerifierFigures, j.by) {
			return nil, usageError(fmt.Errorf("--fail-on %q: verifier judges the verifier's figures only: %v", s, results.VerifierFigures))
		}
		judges = append(judges, j)
	}
	if len(judges) > 0 && f.before == "" {
		return nil, usageError(fmt.Errorf("--fail-on needs --before: a gate compares an old build with a new one"))
	}
	return judges, nil
}

// refusals fails on every program the verifier refused; gated, a
// refusal of what it accepted before is the gate's failure.
func refusals(v *results.Verification, gated bool) error {
	var refused []string
	for _, p := range v.Programs {
		if len(p.Loads) == 0 || p.Loads[0].Verdict != results.VerdictFailure {
			continue
		}
		if gated && len(p.Before) > 0 && p.Before[0].Verdict != results.VerdictFailure {
			return fmt.Errorf("%w: the verifier refused %s, which it accepted before: %s", errGrew, p.Info.Name, p.Loads[0].Reason)
		}
		refused = append(refused, p.Info.Name)
	}
	if len(refused) > 0 {
		return fmt.Errorf("the verifier refused %s (see above)", strings.Join(refused, ", "))
	}
	return nil
}

// judgeVerification fails on the first figure that grew past its gate.
func judgeVerification(v *results.Verification, judges []judge) error {
	for _, p := range v.Programs {
		for _, j := range judges {
			if p.Change == nil {
				continue
			}
			if how, grew := p.Change.Grew(j.by, j.allowed); grew {
				return fmt.Errorf("%w: %s %s of %s, %s", errGrew, j.by, how, p.Info.Name, j.allowedText())
			}
		}
	}
	return nil
}
