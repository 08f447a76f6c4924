package xdpmicro

import (
	"context"
	"io"

	"github.com/xdpmicro/xdpmicro/internal/kernels"
	"github.com/xdpmicro/xdpmicro/results"
)

// Runs across kernels (--kernel): the same command on each kernel given,
// booted under QEMU with xdpmicro as its /init (docs/kernels.md). The
// machinery is internal; these are the names a caller needs.
type (
	// KernelTarget is one kernel to run on: the running one, or an image.
	KernelTarget = kernels.Target
	// KernelJob is the command line to run on each kernel, with the input
	// files its VM needs.
	KernelJob = kernels.Job
	// KernelOutcome is what one kernel's run gave.
	KernelOutcome = kernels.Outcome
)

// KernelTargets reads --kernel's values (an image's path, or host) and
// finds QEMU where an image needs it.
func KernelTargets(values []string) (targets []KernelTarget, qemu string, err error) {
	return kernels.Targets(values)
}

// KernelInputs are the files a VM needs for a command line's values and
// its map-init files: objects, packet files, captures, the objects a
// map-init file names.
func KernelInputs(values, mapInits []string) ([]string, error) {
	return kernels.Inputs(values, mapInits)
}

// RunOnKernels runs job on each target in turn; a kernel that refuses the
// program, or does not boot, does not stop the others.
func RunOnKernels(ctx context.Context, job KernelJob, targets []KernelTarget) ([]KernelOutcome, error) {
	return kernels.Run(ctx, job, targets)
}

// KernelReports gathers the outcomes into the reports across kernels.
func KernelReports(outcomes []KernelOutcome, args []string) results.KernelRuns {
	return kernels.Reports(outcomes, args)
}

// IsGuest says this process is the /init of a VM that a run across
// kernels booted.
func IsGuest() bool { return kernels.IsGuest() }

// Guest runs the guest's side, with run as the command line's entry, and
// returns the exit code; the VM powers off after.
func Guest(run func(args []string, stdout, stderr io.Writer) int) int { return kernels.Guest(run) }
