package kerneltest

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/socklock"
)

// Programs returns the IDs of the kernel's programs named name. Tests of
// different packages run in parallel, so a test counts only programs of a
// name no other test loads.
func Programs(t testing.TB, name string) []ebpf.ProgramID {
	t.Helper()
	return named(t, ebpf.ProgramGetNextID, func(id ebpf.ProgramID) (string, error) {
		p, err := ebpf.NewProgramFromID(id)
		if err != nil {
			return "", err
		}
		defer p.Close()
		info, err := p.Info()
		if err != nil {
			return "", err
		}
		return info.Name, nil
	}, name)
}

// ProgramsLeft waits up to wait for the programs named name that were not
// among before to be freed, and returns those still loaded. It compares
// IDs, not counts: a program another test closed just before is freed only
// after an RCU grace period, so a count taken then is one too high and a
// correct exit reads as one program too few.
func ProgramsLeft(t testing.TB, name string, before []ebpf.ProgramID, wait time.Duration) []ebpf.ProgramID {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		var left []ebpf.ProgramID
		for _, id := range Programs(t, name) {
			if !slices.Contains(before, id) {
				left = append(left, id)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Maps returns the IDs of the kernel's maps named name.
func Maps(t testing.TB, name string) []ebpf.MapID {
	t.Helper()
	return named(t, ebpf.MapGetNextID, func(id ebpf.MapID) (string, error) {
		m, err := ebpf.NewMapFromID(id)
		if err != nil {
			return "", err
		}
		defer m.Close()
		info, err := m.Info()
		if err != nil {
			return "", err
		}
		return info.Name, nil
	}, name)
}

func named[ID ~uint32](t testing.TB, next func(ID) (ID, error), nameOf func(ID) (string, error), name string) []ID {
	var ids []ID
	for id := ID(0); ; {
		n, err := next(id)
		if errors.Is(err, os.ErrNotExist) {
			return ids
		}
		if err != nil {
			t.Fatal(err)
		}
		id = n
		// An object freed meanwhile is simply not there any more.
		if got, err := nameOf(id); err == nil && got == name {
			ids = append(ids, id)
		}
	}
}

// lockName is the lock that kernel tests of different packages take in
// turn: the abstract unix socket @xdpmicro-kernel-tests (socklock). It is
// no file, so nothing in world-writable /tmp that another user could
// plant a symlink at, as the file it used to be was.
const lockName = "xdpmicro-kernel-tests"

var (
	lockOnce sync.Once
	lock     *socklock.Lock // held, and referenced, until the process exits
	lockErr  error
)

// Exclusive makes this test process the only one measuring in the kernel
// from now until it exits: `go test ./...` runs the packages' test
// binaries side by side, and two of them timing calls on one CPU time each
// other's slices. The first call waits for the lock and holds it for the
// life of the process; the kernel frees it when the process exits.
func Exclusive(t testing.TB) {
	t.Helper()
	lockOnce.Do(func() {
		lock, lockErr = socklock.Wait(context.Background(), lockName)
	})
	if lockErr != nil {
		t.Fatalf("kernel tests' lock: %v", lockErr)
	}
}

// RequireBPF skips a test that loads BPF programs when this process may
// not, with the reason: it loads the smallest program there is, as the
// kernel's answer is the only one that counts (capabilities, a sysctl
// such as kernel.unprivileged_bpf_disabled, a LSM all decide it).
func RequireBPF(t testing.TB) {
	t.Helper()
	if err := rlimit.RemoveMemlock(); err != nil && !errors.Is(err, unix.EPERM) {
		t.Fatal(err)
	}
	p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.SocketFilter, License: "GPL",
		Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}})
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		t.Skipf("loading BPF programs needs CAP_BPF and CAP_NET_ADMIN, or root (sudo go test ...): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
}

// RequireBPFAlone is RequireBPF for a test that times calls: it also
// takes the kernel tests' lock (Exclusive).
func RequireBPFAlone(t testing.TB) {
	t.Helper()
	RequireBPF(t)
	Exclusive(t)
}
