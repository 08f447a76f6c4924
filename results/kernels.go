package results

import (
	"fmt"
	"time"
)

// KernelsSchema identifies the JSON document of a run across kernels.
const KernelsSchema = "xdpmicro.kernels/v1"

// KernelRuns is one command run on several kernels (--kernel): what each
// kernel gave, in the order asked.
type KernelRuns struct {
	Schema  string      `json:"schema"`
	Kernels []KernelRun `json:"kernels"`
	// Wall is the whole run's, boots and all.
	Wall time.Duration `json:"wall_ns"`
}

// The status of a kernel's run.
const (
	// KernelMeasured: the command ran and reported.
	KernelMeasured = "measured"
	// KernelRefused: the command ran and failed, the program refused by the
	// verifier or the loader (a kfunc the kernel lacks), or another error.
	KernelRefused = "refused"
	// KernelFailed: the kernel did not boot, hung, panicked or timed out.
	KernelFailed = "failed"
)

// KernelRun is what one kernel gave.
type KernelRun struct {
	// Kernel is as asked: "host" or the image's path; Release is the
	// kernel's own, as uname -r gives it.
	Kernel  string `json:"kernel"`
	Release string `json:"release"`
	// Accel is "host", "kvm" or "tcg". Emulated (tcg) times are not the
	// program's, and are neither shown nor compared.
	Accel    string `json:"accel"`
	Emulated bool   `json:"emulated,omitempty"`
	// KVMFallback says why a kernel ran under TCG.
	KVMFallback string `json:"kvm_fallback,omitempty"`
	VCPUs       int    `json:"vcpus,omitempty"`
	MemoryMiB   int    `json:"memory_mib,omitempty"`
	// Boot is the time to the guest's /init; Wall the kernel's whole.
	Boot time.Duration `json:"boot_ns,omitempty"`
	Wall time.Duration `json:"wall_ns"`
	// Args are the command's arguments there.
	Args   []string `json:"args,omitempty"`
	Status string   `json:"status"`
	Exit   int      `json:"exit"`
	// Error is why the kernel has no report: the command's one line, or
	// the VM's failure; Log what followed it (the verifier's log's tail).
	Error   string   `json:"error,omitempty"`
	Log     []string `json:"log,omitempty"`
	Console []string `json:"console_tail,omitempty"`
	// Reports are the command's, one per program measured; each one's
	// environment names the kernel it was measured on.
	Reports []Run `json:"reports,omitempty"`
}

// Name is the kernel's release, or as asked where it never said.
func (k KernelRun) Name() string {
	if k.Release != "" {
		return k.Release
	}
	return k.Kernel
}

// Why is what a kernel that gave no report says under a table: its status
// and error, then the verifier's log's or the console's last lines, at
// most tail of them (0: all), indented.
func (k KernelRun) Why(tail int) []string {
	if k.Status == KernelMeasured {
		return nil
	}
	out := []string{fmt.Sprintf("%s: %s", k.Status, k.Error)}
	lines := k.Log
	if k.Status == KernelFailed {
		lines = k.Console
		if len(lines) > 0 {
			out = append(out, "its console's tail:")
		}
	}
	if tail > 0 && len(lines) > tail {
		lines = lines[len(lines)-tail:]
	}
	for _, l := range lines {
		out = append(out, "  "+l)
	}
	return out
}
