package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xdpmicro/xdpmicro/results"
	"golang.org/x/sys/unix"
)

// CPU locks. Two xdpmicro runs measuring on one CPU at once each get part
// of it, and each one's samples time the other's slices: CI runners run
// jobs side by side, and `go test` runs packages in parallel. So a run
// holds a machine-wide lock on its measuring CPU from the moment it is
// chosen until Run or Check returns: an exclusive flock(2) on a file per
// CPU. The kernel drops a flock with the last descriptor of its open file,
// so a run that crashes or is killed never leaves one held.
//
// Locks are shared by every process that sees the same lock directory:
// runs in separate containers with their own /run/lock do not see each
// other's.

// cpuLockDir is where CPU lock files go: /run/lock, the system's directory
// for them (world-writable and sticky), or the temporary directory where
// there is none (some containers). Every run must find the same one, so
// the choice does not depend on who may write where.
func cpuLockDir() string {
	if fi, err := os.Stat("/run/lock"); err == nil && fi.IsDir() {
		return "/run/lock"
	}
	return os.TempDir()
}

// CPULockPath is the file whose flock a run holds while it measures on
// cpu; while held, it holds the holder's pid.
func CPULockPath(cpu int) string { return cpuLockPath(cpuLockDir(), cpu) }

// cpuLockPath is the lock file of one CPU in dir.
func cpuLockPath(dir string, cpu int) string {
	return filepath.Join(dir, fmt.Sprintf("xdpmicro-cpu%d.lock", cpu))
}

// cpuLock is one CPU's lock file, open, not necessarily held.
type cpuLock struct {
	cpu      int
	f        *os.File
	writable bool // the holder's pid can be written into it
	locked   bool // this file holds the lock
}

// openCPULock opens (creating it if need be) the lock file of cpu in dir.
// Another user's file may refuse writing, or even O_CREAT on an existing
// file (fs.protected_regular in a sticky directory): a flock needs only a
// descriptor, so it is opened for reading then.
func openCPULock(dir string, cpu int) (*cpuLock, error) {
	path := cpuLockPath(dir, cpu)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if errors.Is(err, fs.ErrPermission) {
		f, err = os.OpenFile(path, os.O_RDWR, 0)
	}
	if errors.Is(err, fs.ErrPermission) {
		f, err = os.OpenFile(path, os.O_RDONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("open CPU lock: %w", err)
		}
		return &cpuLock{cpu: cpu, f: f}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open CPU lock: %w", err)
	}
	// The umask took the others' write bit: give it back, so that any
	// user's run can write its pid. Only the owner may; others need not.
	_ = f.Chmod(0o666)
	return &cpuLock{cpu: cpu, f: f, writable: true}, nil
}

// path is the lock file's name.
func (l *cpuLock) path() string { return l.f.Name() }

// try takes the lock if no other open file holds it.
func (l *cpuLock) try() (bool, error) {
	err := flockRetry(int(l.f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", l.path(), err)
	}
	l.locked = true
	return true, nil
}

// wait takes the lock, blocking until it is free.
func (l *cpuLock) wait() error {
	if err := flockRetry(int(l.f.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", l.path(), err)
	}
	l.locked = true
	return nil
}

// flockRetry is flock(2), resumed when a signal interrupts it.
func flockRetry(fd, how int) error {
	for {
		if err := unix.Flock(fd, how); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// claim writes this process's pid into a lock just taken, for a run that
// finds it held to say whose it is.
func (l *cpuLock) claim() {
	if !l.writable {
		return
	}
	if l.f.Truncate(0) == nil {
		_, _ = l.f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
}

// holder is the pid written into a held lock, or 0 when unknown: not
// written (a holder that could not write), or of no running process.
func (l *cpuLock) holder() int {
	buf := make([]byte, 32)
	n, _ := l.f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
		return 0
	}
	return pid
}

// close gives the lock up, if held, and closes the file. A held lock's
// pid is cleared first, so that a next holder that cannot write leaves
// none; another holder's is left alone.
func (l *cpuLock) close() {
	if l == nil {
		return
	}
	if l.locked && l.writable {
		_ = l.f.Truncate(0)
	}
	_ = l.f.Close()
}

// Claim is the CPU a run measures on, with the lock that keeps other
// runs off it.
type Claim struct {
	CPU  int
	Why  string // why this CPU, the lock's story included
	Lock results.CPULock
	Note string // why no lock was taken, if none was
	lock *cpuLock
}

// Release gives the CPU back to other runs.
func (c *Claim) Release() {
	if c != nil {
		c.lock.close()
		c.lock = nil
	}
}

// claimCPU takes the lock of the first CPU of order whose lock is free:
// order is the policy's preference, why the reason for its first CPU.
// When every one is held, it says so through notice and waits for the
// first to come free, until ctx is done. Where no lock can be had at all
// (no writable lock directory, a file system without flock: the first
// CPU's lock fails), the run measures on order[0] without one, and the
// claim's note says so; a later CPU whose lock fails is passed over.
func claimCPU(ctx context.Context, dir string, order []int, why string, notice func(string)) (*Claim, error) {
	var held []*cpuLock
	closeHeld := func() {
		for _, l := range held {
			l.close()
		}
	}
	for _, cpu := range order {
		l, got, err := tryCPU(dir, cpu)
		switch {
		case err != nil && len(held) == 0:
			return unlocked(order[0], why, err), nil
		case err != nil:
			continue
		case got:
			closeHeld()
			return claimed(l, order, why, heldCPUs(held), 0), nil
		}
		held = append(held, l)
	}
	if notice != nil {
		notice(waitMessage(held))
	}
	taken := heldCPUs(held)
	start := time.Now()
	l, err := waitAny(ctx, held)
	if err != nil {
		return nil, fmt.Errorf("wait for CPU %s: %w", formatCPUList(sorted(taken)), err)
	}
	// At least a microsecond: a wait, however short, is told as one.
	return claimed(l, order, why, taken, max(time.Since(start), time.Microsecond)), nil
}

// tryCPU opens cpu's lock and takes it if free; a lock held elsewhere is
// returned open, for waiting.
func tryCPU(dir string, cpu int) (*cpuLock, bool, error) {
	l, err := openCPULock(dir, cpu)
	if err != nil {
		return nil, false, err
	}
	got, err := l.try()
	if err != nil {
		l.close()
		return nil, false, err
	}
	return l, got, nil
}

// claimed is the claim of a lock taken after the CPUs in taken were
// found held by other runs, and waited for that long.
func claimed(l *cpuLock, order []int, why string, taken []int, waited time.Duration) *Claim {
	l.claim()
	return &Claim{
		CPU: l.cpu, lock: l,
		Why:  describeClaim(l.cpu, order[0], why, taken, waited),
		Lock: results.CPULock{Path: l.path(), Preferred: order[0], HeldByOthers: taken, Waited: waited},
	}
}

// unlocked is a claim of the preferred CPU without a lock.
func unlocked(cpu int, why string, err error) *Claim {
	return &Claim{CPU: cpu, Why: why, Lock: results.CPULock{Preferred: cpu},
		Note: fmt.Sprintf("no CPU lock (%v): another xdpmicro run may have measured on CPU %d at the same time", err, cpu)}
}

// describeClaim says why a run measures on cpu, in a few words: the
// policy's reason, and a move or a wait when other runs held CPUs.
func describeClaim(cpu, preferred int, why string, taken []int, waited time.Duration) string {
	if cpu != preferred {
		by := ", which another xdpmicro run held"
		if len(taken) > 1 {
			by = ": other xdpmicro runs held CPUs " + formatCPUList(sorted(taken))
		}
		why = fmt.Sprintf("moved from CPU %d (%s)%s", preferred, why, by)
	}
	if waited > 0 {
		why += fmt.Sprintf("; waited %s for another xdpmicro run", roundWait(waited))
	}
	return why
}

// roundWait rounds a wait for people: tenths of a second, or a
// millisecond's precision below a second.
func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return max(d.Round(time.Millisecond), time.Millisecond)
}

// waitMessage tells, in one line, which CPUs other runs hold and whose
// they are, before a run waits for them.
func waitMessage(held []*cpuLock) string {
	var pids []string
	for _, l := range held {
		if pid := l.holder(); pid > 0 {
			pids = append(pids, strconv.Itoa(pid))
		}
	}
	whose := ""
	switch {
	case len(pids) == 1:
		whose = " (pid " + pids[0] + ")"
	case len(pids) > 1:
		whose = " (pids " + strings.Join(pids, ", ") + ")"
	}
	if len(held) == 1 {
		return fmt.Sprintf("CPU %d is measuring another xdpmicro run%s; waiting for it", held[0].cpu, whose)
	}
	return fmt.Sprintf("CPUs %s are measuring other xdpmicro runs%s; waiting for the first to come free",
		formatCPUList(sorted(heldCPUs(held))), whose)
}

// waitAny waits for the first of the locks to come free and takes it; the
// others are closed. flock cannot be interrupted but by a signal, so each
// lock is waited for on a goroutine of its own; when ctx is done first,
// waitAny returns at once, and the goroutines give up each lock they get
// as soon as they get it. Until then each holds a thread, blocked.
func waitAny(ctx context.Context, locks []*cpuLock) (*cpuLock, error) {
	type outcome struct {
		l   *cpuLock
		err error
	}
	done := make(chan outcome, len(locks)) // buffered: no waiter blocks on it
	for _, l := range locks {
		go func() { done <- outcome{l, l.wait()} }()
	}
	// giveUp closes the locks of the n waits still to end.
	giveUp := func(n int) {
		go func() {
			for range n {
				(<-done).l.close()
			}
		}()
	}
	var errs []error
	for left := len(locks); left > 0; left-- {
		select {
		case o := <-done:
			if o.err == nil {
				giveUp(left - 1)
				return o.l, nil
			}
			o.l.close()
			errs = append(errs, o.err)
		case <-ctx.Done():
			giveUp(left)
			return nil, ctx.Err()
		}
	}
	return nil, errors.Join(errs...)
}

// heldCPUs are the CPUs of locks, in their order.
func heldCPUs(locks []*cpuLock) []int {
	var cpus []int
	for _, l := range locks {
		cpus = append(cpus, l.cpu)
	}
	return cpus
}

// sorted is an ascending copy of cpus.
func sorted(cpus []int) []int {
	s := slices.Clone(cpus)
	slices.Sort(s)
	return s
}
