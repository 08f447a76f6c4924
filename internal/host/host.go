package host

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/crash"
	"golang.org/x/sys/unix"
)

// AnyCPU lets ChooseCPU choose the CPU to measure on.
const AnyCPU = -1

var (
	// ErrNoCPU: the process may run on no CPU it could measure on; the
	// machine's state, not the user's input.
	ErrNoCPU = errors.New("no CPU available")
	// ErrCPU: the CPU asked for is not one this process may run on; the
	// user's input.
	ErrCPU = badinput.New("bad CPU")
	// ErrPermission: this process may not load or run BPF programs.
	ErrPermission = errors.New("not permitted")
)

// PermissionHint says how to get the privileges that loading needs: the
// capabilities on a copy only a group may run, since with CAP_PERFMON
// whoever runs it can read kernel memory (docs/usage.md, Privileges).
const PermissionHint = "run as root (sudo), or give the capabilities (sudo setcap cap_bpf,cap_net_admin,cap_perfmon+ep) " +
	"to a copy that only a trusted group may run: docs/usage.md, Privileges"

// Pin runs f on an OS thread bound to cpu. The thread is never handed
// back to the scheduler: the goroutine exits locked, so the runtime
// discards the thread with its changed affinity.
func Pin(cpu int, f func() error) error {
	done := make(chan error, 1)
	go func() {
		defer crash.Guard()
		if err := lockTo(cpu); err != nil {
			done <- err
			return
		}
		done <- f()
	}()
	return <-done
}

// lockTo locks the calling goroutine to its OS thread for good and binds
// the thread to cpu.
func lockTo(cpu int) error {
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("pin to CPU %d: %w", cpu, err)
	}
	return nil
}

// Kernel is this kernel's release and version, as uname gives them;
// empty where it does not.
func Kernel() (release, version string) {
	var uts unix.Utsname
	if unix.Uname(&uts) != nil {
		return "", ""
	}
	return unix.ByteSliceToString(uts.Release[:]), unix.ByteSliceToString(uts.Version[:])
}

// CPUModel is the CPU's model name, as /proc/cpuinfo gives it.
func CPUModel() string {
	if model, ok := cpuinfoField(cpuinfoPath, "model name"); ok {
		return model
	}
	return "unknown"
}
