package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/xdpmicro/xdpmicro/internal/kernels"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// kernelFlags are --kernel and its timeout.
type kernelFlags struct {
	kernels []string
	timeout time.Duration
}

func (k *kernelFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&k.kernels, "kernel", nil, "run on the kernel image `VMLINUZ` too, booted under QEMU (KVM, else emulated), "+
		"or host, the running one; repeatable: one table across kernels (docs/kernels.md)")
	fl.DurationVar(&k.timeout, "kernel-timeout", kernels.DefaultTimeout, "give each --kernel `D` after its boot to finish, before it is stopped and named; "+
		"at most "+shortDuration(maxDuration))
}

// check refuses a --kernel-timeout past its bounds.
func (k kernelFlags) check() error { return checkDuration("kernel-timeout", k.timeout, false, "10m") }

// notInGuest are flags the command in a VM is not given: --kernel's own,
// what the host writes (the table, files, baselines, verdicts), and
// what the guest chooses for itself (its CPU, among its own vCPUs).
var notInGuest = []string{"kernel", "kernel-timeout", "format", "output", "report", "quiet", "wide", "verbose",
	"save-baseline", "baseline", "baseline-dir", "fail-on-regression", "fail-on", "history", "cpu", "jit", "source"}

// hostOnly are flags of that list the host's run keeps.
var hostOnly = []string{"cpu", "history"}

// emulatedArgs shorten a run under TCG, where the time means nothing:
// ten rounds of one load, no warm-up, the fewest resamples; the actions
// and instruction counts are those of any run. A flag the user gave
// wins.
var emulatedArgs = [][2]string{{"samples", "10"}, {"placements", "1"}, {"warmup", "0"}, {"resamples", "1000"}}

// runBenchKernels runs bench on each --kernel and writes one table
// across them.
func runBenchKernels(cmd *cobra.Command, args []string, f benchFlags) error {
	if _, err := report.KindKernels.Parse(f.output.format); err != nil {
		return usageError(fmt.Errorf("--kernel: %w", err))
	}
	for _, name := range []string{"save-baseline", "baseline", "report"} {
		if cmd.Flags().Changed(name) {
			return usageError(fmt.Errorf("--%s is not for a run across kernels (--kernel)", name))
		}
	}
	outcomes, job, err := f.kernel.run(cmd, "bench", args, f.mapInit, !f.quiet)
	if err != nil {
		return err
	}
	runs := kernels.Reports(outcomes, job.Args)
	runs.Wall = time.Since(invoked)
	if err := f.output.target().Write(cmd.OutOrStdout(), report.OfKernels(runs)); err != nil {
		return err
	}
	return kernelsVerdict(f, runs)
}

// run runs sub on each --kernel, its progress on stderr if asked, every
// VM stopped on a signal.
func (k kernelFlags) run(cmd *cobra.Command, sub string, args []string, mapInit string, progress bool) ([]kernels.Outcome, kernels.Job, error) {
	targets, qemu, err := kernels.Targets(k.kernels)
	if err != nil {
		return nil, kernels.Job{}, err
	}
	job, err := kernelJob(cmd, sub, args, []string{mapInit})
	if err != nil {
		return nil, job, err
	}
	job.QEMU, job.Timeout = qemu, k.timeout
	if progress {
		job.Progress = cmd.ErrOrStderr()
	}
	ctx, stop, caught := signalContext(cmd.ErrOrStderr())
	defer stop()
	outcomes, err := kernels.Run(ctx, job, targets)
	if caught() != 0 {
		fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: interrupted; every VM stopped, nothing written")
		return nil, job, interrupted{signal: int(caught())}
	}
	return outcomes, job, err
}

// kernelsMissing fails a run across kernels where one gave nothing.
func kernelsMissing(kernels []results.KernelRun) error {
	var missing []string
	for _, k := range kernels {
		if k.Status != results.KernelMeasured {
			missing = append(missing, k.Name()+" ("+k.Status+")")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%d of %d kernels not measured: %s", len(missing), len(kernels), strings.Join(missing, ", "))
	}
	return nil
}

// kernelJob is the command line for each kernel: the subcommand, its
// arguments, and the flags given, but those of notInGuest; its input
// files; xdpmicro itself.
func kernelJob(cmd *cobra.Command, sub string, args, mapInits []string) (kernels.Job, error) {
	exe, err := os.Executable()
	if err != nil {
		return kernels.Job{}, fmt.Errorf("find xdpmicro itself for the VMs: %w", err)
	}
	dir, err := os.Getwd()
	if err != nil {
		return kernels.Job{}, err
	}
	job := kernels.Job{Binary: exe, Dir: dir, Args: append([]string{sub}, args...)}
	values := slices.Clone(args)
	var hostArgs []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		var vals []string
		if s, ok := fl.Value.(pflag.SliceValue); ok {
			vals = s.GetSlice()
		} else {
			vals = []string{fl.Value.String()}
		}
		if !slices.Contains(notInGuest, fl.Name) {
			values = append(values, vals...) // not --kernel's images, nor --output
		}
		for _, v := range vals {
			arg := "--" + fl.Name + "=" + v
			switch {
			case slices.Contains(hostOnly, fl.Name):
				hostArgs = append(hostArgs, arg)
			case !slices.Contains(notInGuest, fl.Name):
				job.Args = append(job.Args, arg)
			}
		}
	})
	job.HostArgs = append(hostArgs, "--format=json")
	job.GuestArgs = []string{"--format=json"}
	if sub == "bench" {
		benchArgs(cmd, &job)
	}
	var maps []string
	for _, m := range mapInits {
		if m != "" {
			maps = append(maps, m)
		}
	}
	job.Files, err = kernels.Inputs(values, maps)
	return job, err
}

// benchArgs are what bench adds on each kernel; a profile times nothing:
// it has no history, no progress, and nothing to shorten under TCG.
func benchArgs(cmd *cobra.Command, job *kernels.Job) {
	job.HostArgs = append(job.HostArgs, "--quiet")
	job.GuestArgs = append(job.GuestArgs, "--quiet", "--history=")
	for _, a := range emulatedArgs {
		if !cmd.Flags().Changed(a[0]) {
			job.EmulatedArgs = append(job.EmulatedArgs, "--"+a[0]+"="+a[1])
		}
	}
}

// kernelsVerdict fails the run where a kernel gave no report, and judges
// each kernel's comparison as --fail-on asks: under emulation only by
// its instructions.
func kernelsVerdict(f benchFlags, runs results.KernelRuns) error {
	if err := kernelsMissing(runs.Kernels); err != nil {
		return err
	}
	for _, k := range runs.Kernels {
		c := f.comparison
		if k.Emulated {
			// Emulated time is meaningless; instructions and the
			// verifier's figures are exact.
			c.failOn = slices.DeleteFunc(slices.Clone(c.failOn), func(f string) bool { return f == judgeTime })
			if len(c.failOn) == 0 {
				continue
			}
		}
		for i := range k.Reports {
			if err := c.verdict(&k.Reports[i]); err != nil {
				if errors.Is(err, errRegression) || errors.Is(err, errGrew) {
					return fmt.Errorf("%s: %w", k.Name(), err)
				}
				return err
			}
		}
	}
	return nil
}
