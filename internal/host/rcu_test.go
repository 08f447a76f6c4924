package host

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/crash"
	"golang.org/x/sys/unix"
)

// testKnob is a knob in a file of the test's own, with a marker and a lock
// no real run uses.
func testKnob(t *testing.T, value string) *rcuKnob {
	t.Helper()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	k := &rcuKnob{knob: filepath.Join(dir, "rcu_expedited"), dir: run, marker: filepath.Join(run, "marker"), lock: filepath.Join(run, "marker.lock")}
	if value != "" {
		if err := os.WriteFile(k.knob, []byte(value+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// leaveSet leaves k as a run killed in its window does: set, marked,
// and its lock let go with the process.
func leaveSet(t *testing.T, k *rcuKnob) {
	t.Helper()
	lock, err := k.tryLock()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(lock)
	if err := k.set(); err != nil {
		t.Fatal(err)
	}
}

func knobValue(t *testing.T, k *rcuKnob) string {
	t.Helper()
	b, err := os.ReadFile(k.knob)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// The knob is set only where xdpmicro may put it back, and always put
// back where it was set: by this run, or by one killed in its window.
func TestExpediteRCU(t *testing.T) {
	for _, tc := range []struct {
		name                string
		value               string
		marked, otherHolds  bool
		during, after       string
		expedited, unmarked bool
	}{
		{name: "normal", value: "0", during: "1", after: "0", expedited: true, unmarked: true},
		{name: "the administrator's", value: "1", during: "1", after: "1", expedited: true, unmarked: true},
		{name: "left by a killed run", value: "1", marked: true, during: "1", after: "0", expedited: true, unmarked: true},
		{name: "another run's window", value: "1", marked: true, otherHolds: true, during: "1", after: "1", expedited: true},
		{name: "another run's, normal", value: "0", otherHolds: true, during: "0", after: "0", unmarked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := testKnob(t, tc.value)
			if tc.marked {
				leaveSet(t, k)
			}
			if tc.otherHolds {
				// Another open file's flock, as another process's is.
				other, err := k.tryLock()
				if err != nil {
					t.Fatal(err)
				}
				defer unix.Close(other)
			}
			end, expedited := k.expedite()
			if got := knobValue(t, k); got != tc.during || expedited != tc.expedited {
				t.Errorf("during: knob %s, expedited %v; want %s, %v", got, expedited, tc.during, tc.expedited)
			}
			end()
			if got := knobValue(t, k); got != tc.after {
				t.Errorf("after: knob %s, want %s", got, tc.after)
			}
			if k.marked() == tc.unmarked {
				t.Errorf("after: marker there %v, want %v", k.marked(), !tc.unmarked)
			}
			if l, err := k.tryLock(); err != nil && !tc.otherHolds {
				t.Errorf("the lock is still held after the end: %v", err)
			} else if err == nil {
				unix.Close(l)
			}
		})
	}
	// No knob (no such kernel, or no permission): nothing is set.
	k := testKnob(t, "")
	end, expedited := k.expedite()
	end()
	if expedited || k.marked() {
		t.Errorf("without a knob: expedited %v, marker left %v", expedited, k.marked())
	}
}

// A marker whose lock is free was left by a run that died in its window:
// the next run puts the knob back at its start. One whose lock is held
// is a live run's, left alone.
func TestRecoverRCU(t *testing.T) {
	for _, tc := range []struct {
		name               string
		value              string
		marked, otherHolds bool
		after              string
		markerLeft, said   bool
	}{
		{name: "nothing left", value: "0", after: "0"},
		{name: "the administrator's", value: "1", after: "1"},
		{name: "left set by a dead run", value: "1", marked: true, after: "0", said: true},
		{name: "a live run's window", value: "1", marked: true, otherHolds: true, after: "1", markerLeft: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := testKnob(t, tc.value)
			if tc.marked {
				leaveSet(t, k)
			}
			if tc.otherHolds {
				other, err := k.tryLock()
				if err != nil {
					t.Fatal(err)
				}
				defer unix.Close(other)
			}
			said := k.recover()
			if got := knobValue(t, k); got != tc.after {
				t.Errorf("knob %s, want %s", got, tc.after)
			}
			if k.marked() != tc.markerLeft {
				t.Errorf("marker there %v, want %v", k.marked(), tc.markerLeft)
			}
			if (said != "") != tc.said {
				t.Errorf("said %q", said)
			}
			if tc.said && !strings.Contains(said, "pid "+strconv.Itoa(os.Getpid())) {
				t.Errorf("said %q: want the pid of the run that left it", said)
			}
		})
	}
}

// rcuChild, when set in a child's environment, is what the child does
// with the knob in rcuChildDir: "hold" expedites and waits to be
// killed; "panic" expedites and panics in a goroutine under crash.Guard;
// "try" takes the lock once and exits 0 if it got it, 3 if not.
const (
	rcuChild    = "XDPMICRO_TEST_RCU_CHILD"
	rcuChildDir = "XDPMICRO_TEST_RCU_DIR"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(rcuChild); mode != "" {
		os.Exit(runRCUChild(mode, os.Getenv(rcuChildDir)))
	}
	if name := os.Getenv(squatName); name != "" {
		os.Exit(squat(name, os.Getenv(squatListen) != ""))
	}
	os.Exit(m.Run())
}

// knobIn is testKnob's knob in dir, for a child.
func knobIn(dir string) *rcuKnob {
	run := filepath.Join(dir, "run")
	return &rcuKnob{knob: filepath.Join(dir, "rcu_expedited"), dir: run, marker: filepath.Join(run, "marker"), lock: filepath.Join(run, "marker.lock")}
}

func runRCUChild(mode, dir string) int {
	k := knobIn(dir)
	switch mode {
	case "try":
		fd, err := k.tryLock()
		if err != nil {
			return 3
		}
		unix.Close(fd)
		return 0
	case "hold", "panic":
		if _, expedited := k.expedite(); !expedited {
			return 4
		}
		if mode == "panic" {
			go func() {
				defer crash.Guard()
				panic("a bug elsewhere")
			}()
		}
		time.Sleep(time.Minute) // until killed, or the panic ends it
		return 6
	}
	return 5
}

// child starts the test binary as a child doing mode with the knob in
// dir (runRCUChild).
func child(t *testing.T, mode, dir string, attr *syscall.SysProcAttr) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), rcuChild+"="+mode, rcuChildDir+"="+dir)
	cmd.SysProcAttr = attr
	return cmd
}

// waitMarked waits until the child of pid has set the knob.
func waitMarked(t *testing.T, k *rcuKnob, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if marker, err := os.ReadFile(k.marker); err == nil {
			if got, ok := markerPid(marker); ok && got == pid && knobValue(t, k) == "1" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never set the knob")
		}
	}
}

// A run killed outright (SIGKILL) in its window: while it lives, the
// next run leaves its knob alone; once dead, whatever pid its marker
// names, its lock is gone with it and the next run puts the knob back.
func TestRecoverRCUKilledRun(t *testing.T) {
	dir := filepath.Dir(testKnob(t, "0").knob)
	k := knobIn(dir)
	cmd := child(t, "hold", dir, nil)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitMarked(t, k, cmd.Process.Pid)
	if said := k.recover(); said != "" || knobValue(t, k) != "1" {
		t.Errorf("a live run's knob put back: %q", said)
	}
	if _, expedited := k.expedite(); !expedited {
		t.Error("not told that the grace periods are expedited, by another run")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if said := k.recover(); said == "" || knobValue(t, k) != "0" || k.marked() {
		t.Errorf("after SIGKILL: said %q, knob %s, marker there %v; want put back", said, knobValue(t, k), k.marked())
	}
}

// A panic in another goroutine ends the process at once, no deferred
// end run: crash.Exit puts the knob back first.
func TestPanicPutsRCUBack(t *testing.T) {
	dir := filepath.Dir(testKnob(t, "0").knob)
	k := knobIn(dir)
	cmd := child(t, "panic", dir, nil)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != crash.ExitCode {
		t.Fatalf("child: %v, want exit %d; stderr:\n%s", err, crash.ExitCode, stderr.String())
	}
	if knobValue(t, k) != "0" || k.marked() {
		t.Errorf("after the panic: knob %s, marker there %v", knobValue(t, k), k.marked())
	}
}

// The lock keeps off runs in other network namespaces (a --live run's),
// and no other user can take it, nor open its file: a squatter cannot
// keep a knob left at 1 from being put back.
func TestRCULockExcludes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("another network namespace and another user need root")
	}
	dir := filepath.Dir(testKnob(t, "1").knob)
	k := knobIn(dir)
	held, err := k.tryLock()
	if err != nil {
		t.Fatal(err)
	}
	try := func(attr *syscall.SysProcAttr) int {
		err := child(t, "try", dir, attr).Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	if got := try(&syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}); got != 3 {
		t.Errorf("a run in another network namespace: exit %d, want 3 (lock held)", got)
	}
	unix.Close(held)
	if got := try(&syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}); got != 0 {
		t.Errorf("the lock released: exit %d, want 0 (taken from another namespace)", got)
	}

	// Another user: the lock file is root's, 0600, in root's 0755
	// directory. flock(1) as nobody, on a path it can reach.
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("no flock(1) to try the lock as another user")
	}
	for d := dir; d != "/"; d = filepath.Dir(d) {
		_ = os.Chmod(d, 0o755) // t.TempDir's are 0700
		if d == os.TempDir() {
			break
		}
	}
	nobody := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	// The lock file as it is, and a file of its own in the directory.
	for _, target := range []string{k.lock, filepath.Join(k.dir, "squat.lock")} {
		squat := exec.Command(flock, "-n", target, "sleep", "30")
		squat.SysProcAttr = nobody
		out, err := squat.CombinedOutput()
		if err == nil {
			t.Errorf("another user held %s: %s", target, out)
		}
	}
	if err := os.WriteFile(filepath.Join(k.dir, "planted"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	leaveSet(t, k)
	if said := k.recover(); said == "" || knobValue(t, k) != "0" {
		t.Errorf("left set, with another user about: said %q, knob %s", said, knobValue(t, k))
	}
}

// A lock file or directory another user could have made or could write
// is refused: the knob is then left alone.
func TestRCULockRefusesPlanted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(k *rcuKnob) error
	}{
		{"a directory others may write", func(k *rcuKnob) error { return os.Chmod(k.dir, 0o777) }},
		{"a lock file others may open", func(k *rcuKnob) error { return os.WriteFile(k.lock, nil, 0o644) }},
		{"a symlink at the lock", func(k *rcuKnob) error { return os.Symlink(filepath.Join(k.dir, "elsewhere"), k.lock) }},
		{"a symlink at the directory", func(k *rcuKnob) error {
			if err := os.Remove(k.dir); err != nil {
				return err
			}
			return os.Symlink(t.TempDir(), k.dir)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := testKnob(t, "0")
			if err := os.Mkdir(k.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tc.plant(k); err != nil {
				t.Fatal(err)
			}
			end, expedited := k.expedite()
			defer end()
			if expedited || knobValue(t, k) != "0" {
				t.Errorf("set the knob through a planted lock: expedited %v, knob %s", expedited, knobValue(t, k))
			}
		})
	}
}
