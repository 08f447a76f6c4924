package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/crash"
	"github.com/xdpmicro/xdpmicro/internal/socklock"
	"github.com/xdpmicro/xdpmicro/results"
)

// CPU locks. Two xdpmicro runs measuring on one CPU at once each get part
// of it, and each one's samples time the other's slices: CI runners run
// jobs side by side, and `go test` runs packages in parallel. So a run
// holds a machine-wide lock on its measuring CPU from the moment it is
// chosen until Run or Check returns: the abstract unix socket
// @xdpmicro-cpuN, bound and listening (internal/socklock). It is no file:
// a run as root opens, creates, truncates or chmods nothing that another
// user could have planted a symlink or a file at (issue 37: the lock
// files it used to keep in /run/lock were such). Any user can bind one,
// so runs by root and by a user with capabilities keep each other off a
// CPU; the kernel frees it with the socket, so a run that crashes or is
// killed never leaves one held; and a waiting run learns the holder's pid
// from the kernel.
//
// Abstract sockets belong to a network namespace: runs in another one (a
// container with its own network, ip netns exec) do not see each other's
// locks. A run that can tell it is in another network namespace than the
// machine's says so in its notes (netnsNote).

// cpuLockPrefix begins the name of every CPU's lock.
const cpuLockPrefix = "xdpmicro-cpu"

// cpuLockName is the lock name of cpu for names beginning prefix.
func cpuLockName(prefix string, cpu int) string { return prefix + strconv.Itoa(cpu) }

// CPULockName is the address of the abstract socket a run binds while it
// measures on cpu, as ss -xl shows it: @xdpmicro-cpuN.
func CPULockName(cpu int) string { return socklock.Address(cpuLockName(cpuLockPrefix, cpu)) }

// CPULockHolder is the pid of the process holding cpu's lock, 0 when it
// is free or the holder is unknown.
func CPULockHolder(cpu int) int { return socklock.Holder(cpuLockName(cpuLockPrefix, cpu)) }

// cpuLock is one CPU's lock, held or not.
type cpuLock struct {
	cpu  int
	name string
	held *socklock.Lock // nil while another run holds it
	who  lockHolder     // who held it when this run found it held
}

// tryCPU takes cpu's lock if it is free; a lock held elsewhere is
// returned not held, for waiting. An error means that this CPU's lock
// cannot be had at all.
func tryCPU(prefix string, cpu int) (*cpuLock, bool, error) {
	l := &cpuLock{cpu: cpu, name: cpuLockName(prefix, cpu)}
	held, err := socklock.Try(l.name)
	switch {
	case errors.Is(err, socklock.ErrHeld):
		l.who = holderOf(l.name)
		return l, false, nil
	case err != nil:
		return nil, false, err
	}
	l.held = held
	return l, true, nil
}

// close gives the lock up, if held.
func (l *cpuLock) close() {
	if l != nil {
		l.held.Release()
		l.held = nil
	}
}

// Where this process's network namespace is told and the machine's.
var (
	ownNetns  = "/proc/self/ns/net"
	initNetns = "/proc/1/ns/net"
)

// netnsNote says, when this process is in another network namespace
// than pid 1's (the machine's, outside a container), that its CPU lock
// keeps off only the runs in its own; else it is empty, as it is when
// this process may not read pid 1's (only root may).
func netnsNote() string {
	own, err := os.Readlink(ownNetns)
	if err != nil {
		return ""
	}
	machine, err := os.Readlink(initNetns)
	if err != nil || own == machine {
		return ""
	}
	return "this run's network namespace is not the machine's: its CPU lock kept off only the xdpmicro runs in the same network namespace (" + own + ")"
}

// Claim is the CPU a run measures on, with the lock that keeps other
// runs off it.
type Claim struct {
	CPU  int
	Why  string // why this CPU, the lock's story included
	Lock results.CPULock
	// Note is for the run's notes: why no lock was taken, if none was, or
	// which runs the lock cannot keep off (netnsNote).
	Note string
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
// order is the policy's preference, why the reason for its first CPU;
// the locks' names begin with prefix. When every one is held, it says so
// through notice and waits for the first to come free, until ctx is
// done; a lock held by a process neither root's nor this user's, at most
// squatWait (cpuholder.go). Where no lock can be had at all (a security module refusing the
// socket: the first CPU's lock fails), the run measures on order[0]
// without one, and the claim's note says so; a later CPU whose lock
// fails is passed over.
func claimCPU(ctx context.Context, prefix string, order []int, why string, notice func(string)) (*Claim, error) {
	var held []*cpuLock
	for _, cpu := range order {
		l, got, err := tryCPU(prefix, cpu)
		switch {
		case err != nil && len(held) == 0:
			return unlocked(order[0], why, err), nil
		case err != nil:
			continue
		case got:
			return claimed(l, order, why, held, 0), nil
		}
		held = append(held, l)
	}
	if notice != nil {
		for _, line := range waitMessages(held) {
			notice(line)
		}
	}
	start := time.Now()
	l, err := waitAny(ctx, held)
	if err != nil {
		return nil, fmt.Errorf("wait for CPU %s: %w", formatCPUList(sorted(heldCPUs(held))), err)
	}
	// At least a microsecond: a wait, however short, is told as one.
	return claimed(l, order, why, held, max(time.Since(start), time.Microsecond)), nil
}

// claimed is the claim of a lock taken after the locks in held were
// found held by other processes, and waited for that long.
func claimed(l *cpuLock, order []int, why string, held []*cpuLock, waited time.Duration) *Claim {
	taken := heldCPUs(held)
	return &Claim{
		CPU: l.cpu, lock: l,
		Why:  describeClaim(l.cpu, order[0], why, held, waited),
		Lock: results.CPULock{Path: socklock.Address(l.name), Preferred: order[0], HeldByOthers: taken, Waited: waited},
		Note: netnsNote(),
	}
}

// unlocked is a claim of the preferred CPU without a lock.
func unlocked(cpu int, why string, err error) *Claim {
	return &Claim{CPU: cpu, Why: why, Lock: results.CPULock{Preferred: cpu},
		Note: fmt.Sprintf("no CPU lock (%v): another xdpmicro run may have measured on CPU %d at the same time", err, cpu)}
}

// describeClaim says why a run measures on cpu, in a few words: the
// policy's reason, and a move or a wait when other processes held CPUs,
// named where they are not runs of root's or this user's.
func describeClaim(cpu, preferred int, why string, held []*cpuLock, waited time.Duration) string {
	if cpu != preferred {
		taken := heldCPUs(held)
		by := ", which another xdpmicro run held"
		if len(taken) > 1 {
			by = ": other xdpmicro runs held CPUs " + formatCPUList(sorted(taken))
		}
		var others []string
		for _, l := range held {
			if !l.who.trusted() {
				others = append(others, fmt.Sprintf("CPU %d's lock by %s", l.cpu, l.who))
			}
		}
		if len(others) > 0 {
			by = ": held were " + strings.Join(others, ", ")
			if n := len(held) - len(others); n > 0 {
				by += fmt.Sprintf(", and %d by other xdpmicro runs", n)
			}
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

// waitMessages tell which CPUs other runs hold and whose they are,
// before a run waits for them: one line for those of root's and this
// user's, and one for each lock held by another's, waited for at most
// squatWait.
func waitMessages(held []*cpuLock) []string {
	var runs, lines []string
	var trusted []*cpuLock
	for _, l := range held {
		if l.who.trusted() {
			trusted = append(trusted, l)
			continue
		}
		lines = append(lines, fmt.Sprintf("CPU %d's lock %s is held by %s, neither root nor you: waiting at most %s for it",
			l.cpu, socklock.Address(l.name), l.who, roundWait(squatWait)))
	}
	if len(trusted) > 0 {
		runs = []string{waitMessage(trusted)}
	}
	return append(runs, lines...)
}

// waitMessage tells, in one line, which CPUs other runs hold and whose
// they are, before a run waits for them.
func waitMessage(held []*cpuLock) string {
	var pids []string
	for _, l := range held {
		if pid := l.who.pid; pid > 0 {
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

// waitAny waits for the first of the locks to come free and takes it.
// Each is waited for on a goroutine of its own (socklock.Wait, a thread
// blocked in poll(2) until the lock's holder lets go), one held by a
// process not trusted to end at most squatWait; when one is taken or ctx
// is done, the others are called off, and any lock taken meanwhile is
// given back before waitAny returns. When every wait was given up, the
// error names each holder.
func waitAny(parent context.Context, locks []*cpuLock) (*cpuLock, error) {
	type outcome struct {
		l   *cpuLock
		err error
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	done := make(chan outcome, len(locks)) // buffered: no waiter blocks on it
	start := time.Now()
	for _, l := range locks {
		go func() {
			defer crash.Guard()
			wait, cancelWait := ctx, func() {}
			if !l.who.trusted() {
				wait, cancelWait = context.WithTimeout(ctx, squatWait)
			}
			defer cancelWait()
			var err error
			l.held, err = socklock.Wait(wait, l.name)
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				err = errSquatted
			}
			done <- outcome{l, err}
		}()
	}
	var won *cpuLock
	var errs []error
	squatted := squatError{waited: squatWait}
	for range locks {
		o := <-done
		switch {
		case o.err == nil && won == nil:
			won = o.l
			cancel()
		case o.err == nil:
			o.l.close()
		case errors.Is(o.err, errSquatted):
			squatted.locks = append(squatted.locks, o.l)
			squatted.waited = time.Since(start)
		default:
			errs = append(errs, o.err)
		}
	}
	if won != nil {
		return won, nil
	}
	if err := parent.Err(); err != nil {
		return nil, err
	}
	if len(squatted.locks) > 0 {
		slices.SortFunc(squatted.locks, func(a, b *cpuLock) int { return a.cpu - b.cpu })
		errs = append(errs, squatted)
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
