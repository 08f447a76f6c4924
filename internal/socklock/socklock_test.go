package socklock

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

// testName is a lock name of this test alone: tests of other packages,
// and xdpmicro runs, hold locks on the same machine.
func testName(t *testing.T) string {
	return fmt.Sprintf("xdpmicro-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
}

// Held once, a lock is refused until released, and names its holder.
func TestTry(t *testing.T) {
	name := testName(t)
	if pid := Holder(name); pid != 0 {
		t.Fatalf("a free lock's holder is %d", pid)
	}
	l, err := Try(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Try(name); !errors.Is(err, ErrHeld) {
		t.Errorf("took a held lock: %v", err)
	}
	if pid := Holder(name); pid != os.Getpid() {
		t.Errorf("holder %d, want this process, %d", pid, os.Getpid())
	}
	l.Release()
	again, err := Try(name)
	if err != nil {
		t.Fatalf("released, then: %v", err)
	}
	again.Release()
}

// A name no socket can have is an error, not a lock held elsewhere.
func TestTryImpossible(t *testing.T) {
	_, err := Try(strings.Repeat("x", 200))
	if err == nil || errors.Is(err, ErrHeld) {
		t.Fatalf("got %v, want an error other than ErrHeld", err)
	}
}

// A wait ends as soon as the holder lets go, and takes the lock.
func TestWaitRelease(t *testing.T) {
	name := testName(t)
	held, err := Try(name)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var got *Lock
	go func() {
		var err error
		got, err = Wait(context.Background(), name)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("took a held lock: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	released := time.Now()
	held.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if took := time.Since(released); took > time.Second {
		t.Errorf("took %v after the release", took)
	}
	if _, err := Try(name); !errors.Is(err, ErrHeld) {
		t.Errorf("the wait did not take the lock: %v", err)
	}
}

// A wait ends with its context, at once.
func TestWaitCancelled(t *testing.T) {
	name := testName(t)
	held, err := Try(name)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if l, err := Wait(ctx, name); !errors.Is(err, context.DeadlineExceeded) {
		l.Release()
		t.Fatalf("got %v, want %v", err, context.DeadlineExceeded)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %v to end a 100ms wait", took)
	}
}

// A socket that holds the name without listening (not an xdpmicro lock)
// keeps the lock too; the wait looks again until it is gone.
func TestWaitNotListening(t *testing.T) {
	name := testName(t)
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: Address(name)}); err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	if _, err := Try(name); !errors.Is(err, ErrHeld) {
		t.Errorf("took a bound name: %v", err)
	}
	if pid := Holder(name); pid != 0 {
		t.Errorf("holder %d of a socket that takes no connections", pid)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		unix.Close(fd)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l, err := Wait(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
}

// helperEnv makes the test binary hold a lock (TestHelperHold) for
// another test's process.
const helperEnv = "SOCKLOCK_HELPER_HOLD"

// TestHelperHold is not a test: run by holder, it takes the lock named in
// its environment, says so on stdout and holds it until killed.
func TestHelperHold(t *testing.T) {
	name := os.Getenv(helperEnv)
	if name == "" {
		t.Skip("run by other tests")
	}
	l, err := Try(name)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("held")
	time.Sleep(time.Hour)
	l.Release()
}

// holder starts a process, as cred's user if given, that holds the lock
// of name, and returns once it holds it.
func holder(t *testing.T, bin, name string, cred *syscall.Credential) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^TestHelperHold$")
	cmd.Env = append(os.Environ(), helperEnv+"="+name)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		if cred != nil && errors.Is(err, syscall.EACCES) {
			t.Skipf("user %d cannot run the test binary from the temporary directory: %v", cred.Uid, err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make([]byte, 5)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "held\n" {
		t.Fatalf("the holder said %q, %v", line, err)
	}
	return cmd
}

// A holder killed outright (SIGKILL, no clean-up of its own) lets the
// lock go: the kernel closes its socket.
func TestWaitHolderKilled(t *testing.T) {
	name := testName(t)
	cmd := holder(t, os.Args[0], name, nil)
	if pid := Holder(name); pid != cmd.Process.Pid {
		t.Errorf("holder %d, want the helper, %d", pid, cmd.Process.Pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l, err := Wait(ctx, name)
	if err != nil {
		t.Fatalf("the killed holder's lock: %v", err)
	}
	l.Release()
}

// Root and another user keep each other out: a user's lock is held
// against root, and root's against the user, whose pid root learns.
func TestOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a process as another user needs root (sudo go test ...)")
	}
	// The test binary, where user nobody can run it.
	dir, err := os.MkdirTemp("", "socklock-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "socklock.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}

	users := testName(t) + "-user"
	cmd := holder(t, bin, users, nobody)
	if _, err := Try(users); !errors.Is(err, ErrHeld) {
		t.Errorf("root took the lock user nobody holds: %v", err)
	}
	if pid := Holder(users); pid != cmd.Process.Pid {
		t.Errorf("holder %d, want nobody's process, %d", pid, cmd.Process.Pid)
	}

	roots := testName(t) + "-root"
	l, err := Try(roots)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	// Should it take root's lock, it would hold it an hour: not so long.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	try := exec.CommandContext(ctx, bin, "-test.run=^TestHelperHold$")
	try.Env = append(os.Environ(), helperEnv+"="+roots)
	try.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
	out, _ := try.Output()
	if got := strings.TrimSpace(string(out)); !strings.HasSuffix(got, ErrHeld.Error()) {
		t.Errorf("user nobody, trying root's lock: %q, want %q", got, ErrHeld)
	}
}

// HolderOf names the holder from the kernel where it listens, and from
// /proc where it only binds the name: a squatter need not listen.
func TestHolderOf(t *testing.T) {
	name := testName(t)
	if p, ok := HolderOf(name); ok {
		t.Fatalf("a free lock's holder is %+v", p)
	}
	l, err := Try(name)
	if err != nil {
		t.Fatal(err)
	}
	me := Peer{Pid: os.Getpid(), Uid: os.Geteuid()}
	if p, ok := HolderOf(name); !ok || p != me {
		t.Errorf("holder %+v %v, want %+v", p, ok, me)
	}
	l.Release()

	bound := name + "-bound"
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: Address(bound)}); err != nil {
		t.Fatal(err)
	}
	if p, ok := HolderOf(bound); !ok || p != me {
		t.Errorf("holder of a name bound, not listening: %+v %v, want %+v", p, ok, me)
	}
}
