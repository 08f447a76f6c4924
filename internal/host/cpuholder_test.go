package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// squatName, when set in a child's environment, is the abstract name
// the child binds, listening where squatListen is set too, as a
// squatter would; it says "held" and holds it until killed.
const (
	squatName   = "XDPMICRO_TEST_SQUAT"
	squatListen = "XDPMICRO_TEST_SQUAT_LISTEN"
)

func squat(name string, listen bool) int {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		err = unix.Bind(fd, &unix.SockaddrUnix{Name: "@" + name})
	}
	if err == nil && listen {
		err = unix.Listen(fd, 1)
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("held")
	time.Sleep(time.Hour)
	return 0
}

// squatter starts a process of user nobody that holds the lock of name
// (listening or not) and returns once it does.
func squatter(t *testing.T, name string, listen bool) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a process of another user needs root (sudo go test ...)")
	}
	// The test binary, where user nobody can run it.
	dir, err := os.MkdirTemp("", "host-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "host.test")
	data, err := os.ReadFile(os.Args[0])
	if err == nil {
		err = os.WriteFile(bin, data, 0o755)
	}
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), squatName+"="+name)
	if listen {
		cmd.Env = append(cmd.Env, squatListen+"=1")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make([]byte, 5)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "held\n" {
		t.Fatalf("the squatter said %q, %v", line, err)
	}
	return cmd
}

// A CPU lock another user's process holds, listening or not, is waited
// for at most squatWait, said at once with that process named; then the
// run fails, naming it again, and holds no lock.
func TestClaimCPUSquatted(t *testing.T) {
	defer func(w time.Duration) { squatWait = w }(squatWait)
	squatWait = 300 * time.Millisecond
	for _, listen := range []bool{true, false} {
		t.Run(fmt.Sprintf("listening %v", listen), func(t *testing.T) {
			locks, n := testLocks(t), newNotices()
			cmd := squatter(t, locks+"1", listen)
			who := fmt.Sprintf("pid %d (host.test) of user nobody (uid 65534)", cmd.Process.Pid)
			start := time.Now()
			claim, err := claimCPU(context.Background(), locks, []int{1}, "requested", n.notice)
			took := time.Since(start)
			if claim != nil || err == nil {
				t.Fatalf("claimed CPU %d with its lock held by another user's process", claim.CPU)
			}
			want := fmt.Sprintf("CPU 1's lock @%s1 is held by %s, neither root nor you: waiting at most 300ms for it", locks, who)
			if got := n.next(t); got != want {
				t.Errorf("notice %q, want %q", got, want)
			}
			var squat squatError
			if !errors.As(err, &squat) || !strings.Contains(err.Error(), who) || !strings.Contains(err.Error(), fmt.Sprintf("kill %d", cmd.Process.Pid)) {
				t.Errorf("error %q: want the holder named and how to end it", err)
			}
			if took < squatWait || took > squatWait+5*time.Second {
				t.Errorf("gave up after %v, want about %v", took, squatWait)
			}
			if !lockFree(t, locks, 0) {
				t.Error("a lock was left held")
			}
		})
	}
}

// A squatted first choice is passed over for a free CPU at once, and the
// claim names the squatter, not "another xdpmicro run".
func TestClaimCPUMovesFromSquatter(t *testing.T) {
	locks, n := testLocks(t), newNotices()
	cmd := squatter(t, locks+"1", true)
	claim, err := claimCPU(context.Background(), locks, []int{1, 0}, "only allowed CPU other than 0", n.notice)
	if err != nil {
		t.Fatal(err)
	}
	defer claim.Release()
	n.none(t)
	want := fmt.Sprintf("moved from CPU 1 (only allowed CPU other than 0): held were CPU 1's lock by pid %d (host.test) of user nobody (uid 65534)", cmd.Process.Pid)
	if claim.CPU != 0 || claim.Why != want {
		t.Errorf("got CPU %d %q, want CPU 0 %q", claim.CPU, claim.Why, want)
	}
}

// A squatted CPU and one another run of this user holds: the squatter's
// wait is given up, the run's waited for until it ends.
func TestClaimCPUSquatterAndRun(t *testing.T) {
	defer func(w time.Duration) { squatWait = w }(squatWait)
	squatWait = 100 * time.Millisecond
	locks, n := testLocks(t), newNotices()
	squatter(t, locks+"1", true)
	release0 := holdCPU(t, locks, 0)
	done := make(chan *Claim, 1)
	go func() {
		c, err := claimCPU(context.Background(), locks, []int{1, 0}, "only allowed CPU other than 0", n.notice)
		if err != nil {
			t.Error(err)
		}
		done <- c
	}()
	if got, want := n.next(t), fmt.Sprintf("CPU 0 is measuring another xdpmicro run (pid %d); waiting for it", os.Getpid()); got != want {
		t.Errorf("notice %q, want %q", got, want)
	}
	if got := n.next(t); !strings.HasPrefix(got, "CPU 1's lock") {
		t.Errorf("notice %q, want one of CPU 1's squatter", got)
	}
	time.Sleep(3 * squatWait) // past the squatter's wait: still waiting for CPU 0
	select {
	case c := <-done:
		t.Fatalf("gave up, or claimed, while another run held CPU 0: %+v", c)
	default:
	}
	release0()
	claim := <-done
	if claim == nil {
		return
	}
	defer claim.Release()
	if claim.CPU != 0 {
		t.Errorf("got CPU %d, want 0", claim.CPU)
	}
}

// Every candidate squatted: one error names them all, and how to end
// them.
func TestClaimCPUAllSquatted(t *testing.T) {
	defer func(w time.Duration) { squatWait = w }(squatWait)
	squatWait = 100 * time.Millisecond
	locks := testLocks(t)
	one, zero := squatter(t, locks+"1", true), squatter(t, locks+"0", false)
	_, err := claimCPU(context.Background(), locks, []int{1, 0}, "only allowed CPU other than 0", nil)
	want := fmt.Sprintf("wait for CPU 0,1: CPU 0's and CPU 1's locks were held for %%s by pid %d (host.test) of user nobody (uid 65534) and pid %d (host.test) of user nobody (uid 65534), "+
		"neither root nor you, so maybe no xdpmicro runs: not waiting longer; end them (kill %d %d), or measure on another CPU (--cpu)",
		zero.Process.Pid, one.Process.Pid, zero.Process.Pid, one.Process.Pid)
	var waited string
	if err == nil || !strings.HasPrefix(err.Error(), "wait for CPU 0,1: CPU 0's and CPU 1's locks were held for ") {
		t.Fatalf("error %v", err)
	}
	waited, _, _ = strings.Cut(strings.TrimPrefix(err.Error(), "wait for CPU 0,1: CPU 0's and CPU 1's locks were held for "), " ")
	if got := err.Error(); got != fmt.Sprintf(want, waited) {
		t.Errorf("error\n%q, want\n%q", got, fmt.Sprintf(want, waited))
	}
}
