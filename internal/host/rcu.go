package host

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/xdpmicro/xdpmicro/internal/crash"
	"golang.org/x/sys/unix"
)

// Grace periods. Every change of the XDP dispatcher waits out an RCU
// grace period (synchronize_rcu, since 6.2), and a group of loads changes
// it twice a program: once as each anchor enters, once as it leaves. On
// a Xeon guest (HZ 250, lazy RCU) that was 15 ms an anchor in and 9 out,
// 0.85 s of a 1.7 s default run; with expedited grace periods, 4 and 1 ms
// a group. The kernel expedites every synchronize_rcu while
// /sys/kernel/rcu_expedited is 1, which costs the other CPUs an IPI per
// grace period: so it is set only while anchors come and go, never while
// samples are taken, and put back after.
//
// The knob is machine-wide, so its lock must be too, and only what may
// write the knob (root) may hold it: an flock(2) on a file of root's own
// directory, /run/xdpmicro, mode 0600. It excludes runs in every network
// namespace (an abstract socket, the lock before issue 59, was per
// namespace, and a --live run took it in its own), no other user can
// open it to squat it, and the kernel lets go of it with its holder,
// however that ends. So a marker whose lock is free was left by a run
// that died in its window: the next run puts the knob back at its start.

// rcuKnob is the kernel's switch, the marker that says xdpmicro set it,
// and the lock that makes one process at a time the one that sets it.
type rcuKnob struct {
	knob, dir, marker, lock string

	// mu orders this process's writes of the knob: a put-back at exit
	// (crash.Exit) against a set on another goroutine.
	mu sync.Mutex
	// exiting: put back at exit; no set after it.
	exiting bool
}

// systemRCU is this machine's. Its directory lives in /run, which, as
// the knob, does not outlive a boot.
var systemRCU = &rcuKnob{
	knob:   "/sys/kernel/rcu_expedited",
	dir:    "/run/xdpmicro",
	marker: "/run/xdpmicro/rcu_expedited",
	lock:   "/run/xdpmicro/rcu_expedited.lock",
}

// ExpediteRCU makes the kernel's grace periods expedited until end is
// called, where this process may and nobody else set them so: an
// administrator's setting is left alone, and so is one another xdpmicro
// run holds now. A run killed before end leaves the knob set and its
// marker; the next run puts it back (RecoverRCU). A second Ctrl-C or a
// panic elsewhere puts it back before the process exits (crash.Exit).
// expedited says whether the grace periods are expedited now.
func ExpediteRCU() (end func(), expedited bool) {
	return systemRCU.expedite()
}

// RecoverRCU puts the knob back where a run that died in its window left
// it set: its marker is there, and its lock free. It says what it did in
// a line, or returns "" where it did nothing (no marker, a live run's
// window, no permission).
func RecoverRCU() string {
	return systemRCU.recover()
}

func (k *rcuKnob) expedite() (end func(), expedited bool) {
	nothing := func() {}
	lock, err := k.tryLock()
	if err != nil {
		// Another run is changing its dispatcher: the knob is its to put
		// back. Or no lock can be had here (not root): neither can the
		// knob be written.
		return nothing, k.isSet()
	}
	value, err := os.ReadFile(k.knob)
	if err != nil {
		unix.Close(lock)
		return nothing, false
	}
	var removeCleanup func()
	switch {
	case bytes.Equal(bytes.TrimSpace(value), []byte("0")):
		// Registered first: a second Ctrl-C between the set and end puts
		// it back.
		removeCleanup = crash.AtExit(k.putBackAtExit)
		if err := k.set(); err != nil {
			removeCleanup()
			unix.Close(lock)
			return nothing, false
		}
	case !k.marked():
		// Set by someone else, who keeps it.
		unix.Close(lock)
		return nothing, k.isSet()
	default:
		// Left set by a run that died in its window: this run's now.
		removeCleanup = crash.AtExit(k.putBackAtExit)
		_ = k.writeMarker()
	}
	return func() {
		// Put back while the clean-up at exit is still registered: a
		// second signal's crash.Exit then waits on k.mu for this put-back
		// and does its own, rather than end the process between the
		// knob's write and the marker's removal (which left the marker,
		// 1 run in 5 here).
		k.mu.Lock()
		k.putBack()
		k.mu.Unlock()
		removeCleanup()
		unix.Close(lock)
	}, true
}

// recover puts the knob back to 0 and removes the marker where the
// marker's run is gone: its lock is free.
func (k *rcuKnob) recover() string {
	if !k.marked() {
		return ""
	}
	lock, err := k.tryLock()
	if err != nil {
		return "" // a live run's window, or not root's to put back
	}
	defer unix.Close(lock)
	owner, _ := os.ReadFile(k.marker)
	if !k.marked() {
		return "" // its run put it back meanwhile
	}
	was := "0"
	if k.isSet() {
		was = "1"
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.putBack(); err != nil {
		return ""
	}
	who := "a run"
	if pid, ok := markerPid(owner); ok {
		who = "the run of pid " + strconv.Itoa(pid)
	}
	if was == "0" {
		return fmt.Sprintf("%s ended before it set %s and left its marker %s; removed it", who, k.knob, k.marker)
	}
	return fmt.Sprintf("%s ended without putting %s back; put it back to 0", who, k.knob)
}

// putBack writes 0 to the knob and, where that took, removes the marker;
// k.mu held.
func (k *rcuKnob) putBack() error {
	if err := os.WriteFile(k.knob, []byte("0\n"), 0); err != nil {
		return err
	}
	_ = os.Remove(k.marker)
	return nil
}

// putBackAtExit is putBack for crash.Exit, which ends the process next:
// nothing sets the knob after it.
func (k *rcuKnob) putBackAtExit() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.exiting = true
	_ = k.putBack()
}

// set marks the knob as xdpmicro's, then sets it: a run killed between
// the two leaves a marker and the knob at 0, which the next run removes.
func (k *rcuKnob) set() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.exiting {
		return errors.New("exiting")
	}
	if err := k.writeMarker(); err != nil {
		return err
	}
	if err := os.WriteFile(k.knob, []byte("1\n"), 0); err != nil {
		_ = os.Remove(k.marker)
		return err
	}
	return nil
}

// writeMarker says, in the marker, that this process set the knob. The
// pid is for people (and the note of the run that puts it back): the
// lock, not the pid, tells whether its run is alive.
func (k *rcuKnob) writeMarker() error {
	text := fmt.Sprintf("pid %d\nset by xdpmicro while it changes the XDP dispatcher; it writes 0 back, or the next run does once this pid's lock (%s) is free\n", os.Getpid(), k.lock)
	return os.WriteFile(k.marker, []byte(text), 0o644)
}

// markerPid is the pid a marker names; markers of runs before issue 59
// name none.
func markerPid(marker []byte) (int, bool) {
	first, _, _ := strings.Cut(string(marker), "\n")
	s, ok := strings.CutPrefix(first, "pid ")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(s)
	return pid, err == nil && pid > 0
}

// tryLock takes the knob's lock without waiting and returns its file
// descriptor, which holds it until closed (close-on-exec: no child
// inherits it). Its directory is made if missing, and must be a
// directory of this user's (root's, where the knob can be written) that
// no one else may write; the file, a regular file of this user's. So no
// other user can plant the file, or open it to hold the lock.
func (k *rcuKnob) tryLock() (int, error) {
	if err := ownDirectory(k.dir); err != nil {
		return -1, err
	}
	fd, err := unix.Open(k.lock, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0o600) // NONBLOCK: a FIFO is refused, not waited on
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", k.lock, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		unix.Close(fd)
		return -1, fmt.Errorf("%s: not a file of this user's that only it may open", k.lock)
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("lock %s: %w", k.lock, err)
	}
	return fd, nil
}

// ownDirectory makes dir (0755) if it is missing, its parents too (a
// --kernel guest's initramfs has no /run), and checks that it is a
// directory, not a symlink, of this user's, that no other may write.
func ownDirectory(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return fmt.Errorf("stat %s: %w", dir, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		return fmt.Errorf("%s: not a directory of this user's that only it may write", dir)
	}
	return nil
}

func (k *rcuKnob) marked() bool {
	_, err := os.Lstat(k.marker)
	return err == nil
}

func (k *rcuKnob) isSet() bool {
	value, err := os.ReadFile(k.knob)
	return err == nil && !bytes.Equal(bytes.TrimSpace(value), []byte("0"))
}
