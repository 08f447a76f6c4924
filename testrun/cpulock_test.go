package testrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// claimTestCPU claims a CPU as Run would, from the machine's lock
// directory, until the test ends.
func claimTestCPU(t *testing.T) *cpuClaim {
	t.Helper()
	allowed, err := allowedCPUs(AnyCPU)
	if err != nil {
		t.Fatal(err)
	}
	claim, err := chooseCPU(context.Background(), AnyCPU, allowed, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(claim.release)
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
	want := CPULock{Path: filepath.Join(dir, "xdpmicro-cpu1.lock"), Preferred: 1}
	if claim.cpu != 1 || claim.why != "only allowed CPU other than 0" || fmt.Sprint(claim.info) != fmt.Sprint(want) {
		t.Errorf("got CPU %d %q %+v, want CPU 1 %+v", claim.cpu, claim.why, claim.info, want)
	}
	if pid, _ := os.ReadFile(want.Path); string(pid) != fmt.Sprintf("%d\n", os.Getpid()) {
		t.Errorf("lock file holds %q, want this pid", pid)
	}
	if lockFree(t, dir, 1) {
		t.Error("CPU 1's lock is free while claimed")
	}
	claim.release()
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
	defer claim.release()
	n.none(t)
	if claim.cpu != 0 || claim.info.Preferred != 1 || !slices.Equal(claim.info.HeldByOthers, []int{1}) || claim.info.Waited != 0 {
		t.Errorf("got CPU %d %+v, want CPU 0 moved from 1", claim.cpu, claim.info)
	}
	if want := "moved from CPU 1 (only allowed CPU other than 0), which another xdpmicro run held"; claim.why != want {
		t.Errorf("got %q, want %q", claim.why, want)
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
		claim *cpuClaim
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
	defer r.claim.release()
	if r.claim.cpu != 1 || r.claim.info.Waited <= 0 || !slices.Equal(r.claim.info.HeldByOthers, []int{1}) {
		t.Errorf("got CPU %d %+v, want CPU 1 after a wait", r.claim.cpu, r.claim.info)
	}
	if !strings.HasPrefix(r.claim.why, "requested; waited ") || !strings.HasSuffix(r.claim.why, " for another xdpmicro run") {
		t.Errorf("got %q", r.claim.why)
	}
}

// When every candidate is held, the first to come free is taken.
func TestClaimCPUWaitsForAny(t *testing.T) {
	dir, n := t.TempDir(), newNotices()
	holdCPU(t, dir, 1)
	release0 := holdCPU(t, dir, 0)
	done := make(chan *cpuClaim, 1)
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
	defer claim.release()
	if claim.cpu != 0 || claim.info.Waited <= 0 || !slices.Equal(claim.info.HeldByOthers, []int{1, 0}) {
		t.Errorf("got CPU %d %+v, want CPU 0 after a wait", claim.cpu, claim.info)
	}
	if want := "moved from CPU 1 (only allowed CPU other than 0): other xdpmicro runs held CPUs 0,1; waited "; !strings.HasPrefix(claim.why, want) {
		t.Errorf("got %q, want it to begin %q", claim.why, want)
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
	defer claim.release()
	if claim.cpu != 1 || claim.info.Path != "" || !strings.HasPrefix(claim.note, "no CPU lock (open CPU lock: ") {
		t.Errorf("got CPU %d %+v %q", claim.cpu, claim.info, claim.note)
	}
}

// Two runs started together never measure on one CPU at the same time:
// chosen, the second takes another CPU or waits; requested, it waits.
// A run's measuring, anchors included, lies within [Start, Start+Wall].
func TestRunsDoNotShareCPU(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	first := claimTestCPU(t)
	requested := first.cpu
	first.release()
	for _, tc := range []struct {
		name string
		cpu  int
	}{{"chosen", AnyCPU}, {"requested", requested}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Programs: []Program{{Object: bundled(t, "v4")}}, Cases: allCases(t), CPU: tc.cpu,
				Samples: 200, Repeat: 10000}
			var envs [2]Environment
			var notices [2][]string
			var wg sync.WaitGroup
			for i := range envs {
				wg.Go(func() {
					c := cfg
					c.Notice = func(s string) { notices[i] = append(notices[i], s) }
					res, err := Run(context.Background(), c)
					if err != nil {
						t.Error(err)
					}
					envs[i] = res.Environment
				})
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			a, b := envs[0], envs[1]
			if b.Start.Before(a.Start) {
				a, b = b, a
			}
			for _, e := range []Environment{a, b} {
				t.Logf("CPU %d (%s); lock %+v", e.CPU, e.CPUChoice, e.CPULock)
			}
			t.Logf("notices: %q", notices)
			if a.CPU == b.CPU && b.Start.Before(a.Start.Add(a.Wall)) {
				t.Errorf("both measured on CPU %d at once", a.CPU)
			}
			if len(a.CPULock.HeldByOthers)+len(b.CPULock.HeldByOthers) == 0 {
				t.Error("neither run found the other holding its CPU: did they run at once?")
			}
			if tc.cpu != AnyCPU && a.CPULock.Waited == 0 && b.CPULock.Waited == 0 {
				t.Errorf("both ran on requested CPU %d without a wait", tc.cpu)
			}
			if len(notices[0])+len(notices[1]) > 1 {
				t.Errorf("more than one notice: %q", notices)
			}
		})
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
	claim.release()
	if claim.cpu != 2 || claim.note != "" || !slices.Equal(claim.info.HeldByOthers, []int{1}) {
		t.Errorf("got CPU %d %+v %q, want CPU 2 locked", claim.cpu, claim.info, claim.note)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if claim, err := claimCPU(ctx, dir, []int{1, 0}, "only allowed CPU other than 0", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %+v, %v; want a wait for CPU 1", claim, err)
	}
}
