package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/socklock"
	"github.com/xdpmicro/xdpmicro/results"
)

// testLocks is a prefix of lock names of this test alone: the machine's
// own CPU locks are held by real runs, and by other packages' tests.
func testLocks(t *testing.T) string {
	return fmt.Sprintf("xdpmicro-test-%d-%s-cpu", os.Getpid(), t.Name())
}

// holdCPU holds cpu's lock of prefix as another run would, until release
// or the test's end.
func holdCPU(t *testing.T, prefix string, cpu int) (release func()) {
	t.Helper()
	l, got, err := tryCPU(prefix, cpu)
	if err != nil || !got {
		t.Fatalf("hold CPU %d: got %v, %v", cpu, got, err)
	}
	t.Cleanup(l.close)
	return l.close
}

// lockFree says whether cpu's lock of prefix can be taken now; it gives
// it back at once.
func lockFree(t *testing.T, prefix string, cpu int) bool {
	t.Helper()
	l, got, err := tryCPU(prefix, cpu)
	if err != nil {
		t.Fatal(err)
	}
	l.close()
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

// A free CPU is taken as the policy ranks it, and its lock names the
// claimer as its holder until released.
func TestClaimCPUFree(t *testing.T) {
	locks, n := testLocks(t), newNotices()
	claim, err := claimCPU(context.Background(), locks, []int{1, 0}, "only allowed CPU other than 0", n.notice)
	if err != nil {
		t.Fatal(err)
	}
	n.none(t)
	want := results.CPULock{Path: "@" + locks + "1", Preferred: 1}
	if claim.CPU != 1 || claim.Why != "only allowed CPU other than 0" || fmt.Sprint(claim.Lock) != fmt.Sprint(want) {
		t.Errorf("got CPU %d %q %+v, want CPU 1 %+v", claim.CPU, claim.Why, claim.Lock, want)
	}
	if pid := socklock.Holder(locks + "1"); pid != os.Getpid() {
		t.Errorf("CPU 1's lock is held by pid %d, want this one, %d", pid, os.Getpid())
	}
	if lockFree(t, locks, 1) {
		t.Error("CPU 1's lock is free while claimed")
	}
	claim.Release()
	if !lockFree(t, locks, 1) {
		t.Error("CPU 1's lock is held after release")
	}
}

// A chosen CPU that another run holds is passed over for the next free
// one, CPU 0 included, without waiting; the move is told.
func TestClaimCPUMoves(t *testing.T) {
	locks, n := testLocks(t), newNotices()
	holdCPU(t, locks, 1)
	claim, err := claimCPU(context.Background(), locks, []int{1, 0}, "only allowed CPU other than 0", n.notice)
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
	if lockFree(t, locks, 0) {
		t.Error("CPU 0's lock is free while claimed")
	}
	if pid := socklock.Holder(locks + "1"); pid != os.Getpid() {
		t.Errorf("CPU 1's holder is %d, want this process", pid)
	}
}

// A requested CPU that another run holds is waited for, said at once;
// the wait ends when the other run gives it up.
func TestClaimCPUWaitsForRequested(t *testing.T) {
	locks, n := testLocks(t), newNotices()
	release := holdCPU(t, locks, 1)
	type result struct {
		claim *Claim
		err   error
	}
	done := make(chan result, 1)
	go func() {
		c, err := claimCPU(context.Background(), locks, []int{1}, "requested", n.notice)
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
	locks, n := testLocks(t), newNotices()
	holdCPU(t, locks, 1)
	release0 := holdCPU(t, locks, 0)
	done := make(chan *Claim, 1)
	go func() {
		c, err := claimCPU(context.Background(), locks, []int{1, 0}, "only allowed CPU other than 0", n.notice)
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
	locks, n := testLocks(t), newNotices()
	release := holdCPU(t, locks, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	claim, err := claimCPU(ctx, locks, []int{1}, "requested", n.notice)
	if !errors.Is(err, context.DeadlineExceeded) || claim != nil {
		t.Fatalf("got %+v, %v; want %v", claim, err, context.DeadlineExceeded)
	}
	if want := "wait for CPU 1: context deadline exceeded"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	n.next(t)
	release()
	for deadline := time.Now().Add(5 * time.Second); !lockFree(t, locks, 1); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the abandoned wait kept CPU 1's lock")
		}
	}
}

// Where no lock can be had at all, the run measures on its first choice
// anyway, and says that it holds no lock.
func TestClaimCPUWithoutLock(t *testing.T) {
	locks := strings.Repeat("x", 200) // longer than any socket's name
	claim, err := claimCPU(context.Background(), locks, []int{1, 0}, "only allowed CPU other than 0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer claim.Release()
	if claim.CPU != 1 || claim.Lock.Path != "" || !strings.HasPrefix(claim.Note, "no CPU lock (lock @xxx") {
		t.Errorf("got CPU %d %+v %q", claim.CPU, claim.Lock, claim.Note)
	}
}

// A CPU whose lock cannot be had is passed over once another's is known
// held: never measure unlocked on a CPU another run holds.
func TestClaimCPUPassesOverBrokenLock(t *testing.T) {
	// CPU 1000's name, longer than CPU 1's and 2's, is one character too
	// long for a socket address (108 bytes).
	locks := testLocks(t)
	locks += strings.Repeat("x", 108-len("@"+locks+"100"))
	if _, _, err := tryCPU(locks, 1000); err == nil {
		t.Fatal("CPU 1000's lock is not broken")
	}
	holdCPU(t, locks, 1)
	claim, err := claimCPU(context.Background(), locks, []int{1, 1000, 2}, "least busy of 1,2,1000", nil)
	if err != nil {
		t.Fatal(err)
	}
	claim.Release()
	if claim.CPU != 2 || claim.Note != "" || !slices.Equal(claim.Lock.HeldByOthers, []int{1}) {
		t.Errorf("got CPU %d %+v %q, want CPU 2 locked", claim.CPU, claim.Lock, claim.Note)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if claim, err := claimCPU(ctx, locks, []int{1, 1000}, "only allowed CPU other than 0", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %+v, %v; want a wait for CPU 1", claim, err)
	}
}

// netnsHelper makes the test binary claim CPU 1 (TestHelperClaimNetns)
// for TestClaimCPUOtherNetns, with the lock names it gives.
const netnsHelper = "XDPMICRO_TEST_CLAIM_LOCKS"

// TestHelperClaimNetns is not a test: run by TestClaimCPUOtherNetns in a
// network namespace of its own, it claims CPU 1 without waiting and
// prints whether it got it, then its note.
func TestHelperClaimNetns(t *testing.T) {
	locks := os.Getenv(netnsHelper)
	if locks == "" {
		t.Skip("run by TestClaimCPUOtherNetns")
	}
	l, got, err := tryCPU(locks, 1)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	l.close()
	fmt.Printf("took CPU 1's lock: %v\n%s\n", got, netnsNote())
	os.Exit(0)
}

// Locks belong to a network namespace: a run in another one does not see
// this one's, and says so in its notes where it can tell (it reads pid
// 1's namespace, which a container may hide even from root).
func TestClaimCPUOtherNetns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a network namespace of its own needs root (sudo go test ...)")
	}
	if own, _ := os.Readlink(ownNetns); own == "" {
		t.Skipf("no %s", ownNetns)
	}
	if note := netnsNote(); note != "" {
		t.Skipf("the tests run outside the machine's network namespace: %s", note)
	}
	_, unreadable := os.Readlink(initNetns)
	tells := unreadable == nil
	locks := testLocks(t)
	holdCPU(t, locks, 1)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperClaimNetns$")
	cmd.Env = append(os.Environ(), netnsHelper+"="+locks)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNET}
	out, err := cmd.Output()
	if errors.Is(err, syscall.EPERM) {
		t.Skipf("no network namespace of its own here (a container without CAP_SYS_ADMIN?): %v", err)
	}
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 2 || lines[0] != "took CPU 1's lock: true" {
		t.Fatalf("in another network namespace:\n%s", out)
	}
	const want = "this run's network namespace is not the machine's: its CPU lock kept off only"
	switch {
	case tells && !strings.HasPrefix(lines[1], want):
		t.Errorf("note %q, want it to begin %q", lines[1], want)
	case !tells && lines[1] != "":
		t.Errorf("note %q where %s cannot be read", lines[1], initNetns)
	case !tells:
		t.Logf("no note, right where pid 1's namespace cannot be read: %v", unreadable)
	}
}

// The note compares this process's network namespace with pid 1's.
func TestNetnsNote(t *testing.T) {
	dir := t.TempDir()
	link := func(name, target string) string {
		path := dir + "/" + name
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	own, same, other := link("own", "net:[4026531840]"), link("same", "net:[4026531840]"), link("other", "net:[4026532999]")
	defer func(o, i string) { ownNetns, initNetns = o, i }(ownNetns, initNetns)
	for _, tc := range []struct {
		init string
		want bool
	}{{same, false}, {other, true}, {dir + "/unreadable", false}} {
		ownNetns, initNetns = own, tc.init
		if got := netnsNote(); (got != "") != tc.want || tc.want && !strings.HasSuffix(got, "(net:[4026531840])") {
			t.Errorf("pid 1's %s: note %q", tc.init, got)
		}
	}
}
