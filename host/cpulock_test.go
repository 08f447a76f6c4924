package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/results"
)

// claimTestCPU claims a CPU as Run would, from the machine's lock
// directory, until the test ends.
func claimTestCPU(t *testing.T) *Claim {
	t.Helper()
	allowed, err := AllowedCPUs(AnyCPU)
	if err != nil {
		t.Fatal(err)
	}
	claim, err := ChooseCPU(context.Background(), AnyCPU, allowed, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(claim.Release)
	return claim
}

// holdCPU holds cpu's lock in dir as another run would, until release
// or the test's end.
func holdCPU(t *testing.T, dir string, cpu int) (release func()) {
	t.Helper()
	l, err := openCPULock(dir, cpu)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := l.try(); err != nil || !got {
		t.Fatalf("hold CPU %d: got %v, %v", cpu, got, err)
	}
	l.claim()
	t.Cleanup(l.close)
	return l.close
}

// lockFree says whether cpu's lock in dir can be taken now; it gives it
// back at once.
func lockFree(t *testing.T, dir string, cpu int) bool {
	t.Helper()
	l, err := openCPULock(dir, cpu)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	got, err := l.try()
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// notices collects what a claim tells its caller.
type notices struct{ lines chan string }

func newNotices() *notices            { return &notices{lines: make(chan string, 10)} }
func (n *notices) notice(line string) { n.lines <- line }

func (n *notices) none(t *testing.T) {
	t.Helper()
	select {
	case line := <-n.lines:
		t.Errorf("unexpected notice %q", line)
	default:
	}
}

func (n *notices) next(t *testing.T) string {
	t.Helper()
	select {
	case line := <-n.lines:
		return line
	case <-time.After(5 * time.Second):
		t.Fatal("no notice")
		return ""
	}
}

// A free CPU is taken as the policy ranks it, and its lock holds the
// claimer's pid until released.
func TestClaimCPUFree(t *testing.T) {
	dir, n := t.TempDir(), newNotices()
	claim, err := claimCPU(context.Background(), dir, []int{1, 0}, "only allowed CPU other than 0", n.notice)
	if err != nil {
		t.Fatal(err)
	}
	n.none(t)
	want := results.CPULock{Path: filepath.Join(dir, "xdpmicro-cpu1.lock"), Preferred: 1}
	if claim.CPU != 1 || claim.Why != "only allowed CPU other than 0" || fmt.Sprint(claim.Lock) != fmt.Sprint(want) {
		t.Errorf("got CPU %d %q %+v, want CPU 1 %+v", claim.CPU, claim.Why, claim.Lock, want)
	}
	if pid, _ := os.ReadFile(want.Path); string(pid) != fmt.Sprintf("%d\n", os.Getpid()) {
		t.Errorf("lock file holds %q, want this pid", pid)
	}
	if lockFree(t, dir, 1) {
		t.Error("CPU 1's lock is free while claimed")
	}
	claim.Release()
	if !lockFree(t, dir, 1) {
		t.Error("CPU 1's lock is held after release")
	}
}

// A chosen CPU that another run holds is passed over for the next free
// one, CPU 0 included, without waiting; the move is told.
func TestClaimCPUMoves(t *testing.T) {
	dir, n := t.TempDir(), newNotices()
	holdCPU(t, dir, 1)
	claim, err := claimCPU(context.Background(), dir, []int{1, 0}, "only allowed CPU other than 0", n.notice)
	if err != nil {
		t.Fatal(err)
	}
	defer claim.Release()
	n.none(t)
	if claim.CPU != 0 || claim.Lock.Preferred != 1 || !slices.Equal(claim.Lock.HeldByOthers, []int{1}) || claim.Lock.Waited != 0 {
		t.Errorf("got CPU %d %+v, want CPU 0 moved from 1", claim.CPU, claim.Lock)
	}
	if want := "moved from CPU 1 (only allowed CPU other than 0), which another xdpmicro run held"; claim.Why != want {
		t.Errorf("got %q, want %q", claim.Why, want)
	}
	if lockFree(t, dir, 0) {
		t.Error("CPU 0's lock is free while claimed")
	}
	if pid, _ := os.ReadFile(cpuLockPath(dir, 1)); string(pid) != fmt.Sprintf("%d\n", os.Getpid()) {
		t.Errorf("CPU 1's holder's pid is gone: %q", pid)
	}
}

// A requested CPU that another run holds is waited for, said at once;
// the wait ends when the other run gives it up.
func TestClaimCPUWaitsForRequested(t *testing.T) {
	dir, n := t.TempDir(), newNotices()
	release := holdCPU(t, dir, 1)
	type result struct {
		claim *Claim
		err   error
	}
	done := make(chan result, 1)
	go func() {
		c, err := claimCPU(context.Background(), dir, []int{1}, "requested", n.notice)
		done <- result{c, err}
	}()
	if got, want := n.next(t), fmt.Sprintf("CPU 1 is measuring another xdpmicro run (pid %d); waiting for it", os.Getpid()); got != want {
		t.Errorf("notice %q, want %q", got, want)
	}
	select {
	case r := <-done:
		t.Fatalf("claimed while held: %+v %v", r.claim, r.err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.claim.Release()
	if r.claim.CPU != 1 || r.claim.Lock.Waited <= 0 || !slices.Equal(r.claim.Lock.HeldByOthers, []int{1}) {
		t.Errorf("got CPU %d %+v, want CPU 1 after a wait", r.claim.CPU, r.claim.Lock)
	}
	if !strings.HasPrefix(r.claim.Why, "requested; waited ") || !strings.HasSuffix(r.claim.Why, " for another xdpmicro run") {
		t.Errorf("got %q", r.claim.Why)
	}
}

// When every candidate is held, the first to come free is taken.
func TestClaimCPUWaitsForAny(t *testing.T) {
	dir, n := t.TempDir(), newNotices()
	holdCPU(t, dir, 1)
	release0 := holdCPU(t, dir, 0)
	done := make(chan *Claim, 1)
	go func() {
		c, err := claimCPU(context.Background(), dir, []int{1, 0}, "only allowed CPU other than 0", n.notice)
		if err != nil {
			t.Error(err)
		}
		done <- c
	}()
	pid := os.Getpid()
	if got, want := n.next(t), fmt.Sprintf("CPUs 0,1 are measuring other xdpmicro runs (pids %d, %d); waiting for the first to come free", pid, pid); got != want {
		t.Errorf("notice %q, want %q", got, want)
	}
	release0()
	claim := <-done
	if claim == nil {
		return
	}
	defer claim.Release()
	if claim.CPU != 0 || claim.Lock.Waited <= 0 || !slices.Equal(claim.Lock.HeldByOthers, []int{1, 0}) {
		t.Errorf("got CPU %d %+v, want CPU 0 after a wait", claim.CPU, claim.Lock)
	}
	if want := "moved from CPU 1 (only allowed CPU other than 0): other xdpmicro runs held CPUs 0,1; waited "; !strings.HasPrefix(claim.Why, want) {
		t.Errorf("got %q, want it to begin %q", claim.Why, want)
	}
}

// A wait ends when its context does (Ctrl-C), and leaves no lock held:
// the abandoned wait gives the lock up as soon as it gets it.
func TestClaimCPUWaitCancelled(t *testing.T) {
	dir, n := t.TempDir(), newNotices()
	release := holdCPU(t, dir, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	claim, err := claimCPU(ctx, dir, []int{1}, "requested", n.notice)
	if !errors.Is(err, context.DeadlineExceeded) || claim != nil {
		t.Fatalf("got %+v, %v; want %v", claim, err, context.DeadlineExceeded)
	}
	if want := "wait for CPU 1: context deadline exceeded"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	n.next(t)
	release()
	for deadline := time.Now().Add(5 * time.Second); !lockFree(t, dir, 1); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the abandoned wait kept CPU 1's lock")
		}
	}
}

// Without a lock directory the run measures on its first choice anyway,
// and says that it holds no lock.
func TestClaimCPUWithoutLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	claim, err := claimCPU(context.Background(), dir, []int{1, 0}, "only allowed CPU other than 0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer claim.Release()
	if claim.CPU != 1 || claim.Lock.Path != "" || !strings.HasPrefix(claim.Note, "no CPU lock (open CPU lock: ") {
		t.Errorf("got CPU %d %+v %q", claim.CPU, claim.Lock, claim.Note)
	}
}

// A CPU whose lock cannot be had is passed over once another's is known
// held: never measure unlocked on a CPU another run holds.
func TestClaimCPUPassesOverBrokenLock(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(cpuLockPath(dir, 0), 0o755); err != nil { // no file to lock
		t.Fatal(err)
	}
	holdCPU(t, dir, 1)
	claim, err := claimCPU(context.Background(), dir, []int{1, 0, 2}, "least busy of 1,2", nil)
	if err != nil {
		t.Fatal(err)
	}
	claim.Release()
	if claim.CPU != 2 || claim.Note != "" || !slices.Equal(claim.Lock.HeldByOthers, []int{1}) {
		t.Errorf("got CPU %d %+v %q, want CPU 2 locked", claim.CPU, claim.Lock, claim.Note)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if claim, err := claimCPU(ctx, dir, []int{1, 0}, "only allowed CPU other than 0", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %+v, %v; want a wait for CPU 1", claim, err)
	}
}
