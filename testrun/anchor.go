package testrun

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"golang.org/x/sys/unix"
)

// Anchors. For XDP with repeat > 1, BPF_PROG_TEST_RUN puts the program into
// the XDP dispatcher before its timed loop and takes it out after
// (bpf_prog_change_xdp). Changing the dispatcher's set of programs rebuilds
// its image and, since Linux 6.2, waits for an RCU grace period: ~20 ms per
// call here, against a timed loop of a fraction of that. A program already
// in the set is only counted again (bpf_dispatcher_change_prog), so while
// one test run of it is in flight, every other test run of it skips both
// changes.
//
// An anchor is that run in flight: a thread on the measuring CPU at
// SCHED_IDLE, so that it runs only when the CPU would otherwise idle, in a
// test run of the program with the largest repeat, re-entered if it ever
// completes. It starts at SCHED_NORMAL, so that its call enters the kernel
// at once, and is lowered once it holds its program. The kernel's loop
// checks for a pending signal between runs; releaseAnchors sends one and
// waits until the call has returned.
//
// While an anchor's loop runs it is inside an RCU read-side section,
// which it leaves only when something else wants its CPU: a change of
// the dispatcher (another anchor entering or leaving) waits for that.
// So while anchors come and go a waker (host.StartWaker) wakes on the
// CPU every 0.1 ms, the measuring thread naps rather than blocks, and all
// anchors are ended at once. Without, each change waited for the
// scheduler's tick: 3 to 5 ms an anchor here.
//
// The anchor's runs stop the clock of no sample: the kernel times a
// sample's loop only while that loop runs (bpf_test_timer_continue leaves
// the clock out of a reschedule), and the anchor only runs when the
// measuring thread does not.

// anchorRepeat is the anchor's repeat: as long as the kernel allows.
const anchorRepeat = MaxRepeat

// anchorFrame is what an anchor runs the program on: a minimal Ethernet
// frame of the IEEE 802 local experimental EtherType (0x88b5), which a
// program parsing its packets gives up on at the first header, so that the
// anchor leaves its maps as they are (most programs).
var anchorFrame = func() []byte {
	f := make([]byte, 60)
	f[12], f[13] = 0x88, 0xb5
	return f
}()

// anchorEndTimeout bounds release: the anchor's call returns once the
// program leaves the dispatcher, one RCU grace period after the signal.
// That is milliseconds, but a machine loaded five times over (two VMs
// under emulation and a build on two cores) once took more than 5 s: the
// bound is there for a kernel that never returns, not to fail a slow one.
const anchorEndTimeout = 30 * time.Second

// ErrAnchor reports an anchor that could not be started or ended.
var ErrAnchor = errors.New("anchor")

// anchor holds one program in the XDP dispatcher; see above.
type anchor struct {
	program  string
	tid      int
	stop     atomic.Bool
	ended    chan error
	restarts atomic.Int64 // calls after the first: each one changed the dispatcher again
	entering atomic.Bool  // its first call is about to enter the kernel
}

// startAnchor starts an anchor of l on cpu, at SCHED_NORMAL until idle
// lowers it, on a thread kept for the process (host.ThreadOn).
func startAnchor(cpu int, l *object.Loaded) (*anchor, error) {
	t, err := host.ThreadOn(cpu)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAnchor, err)
	}
	a := &anchor{program: l.Info.Name, tid: t.TID(), ended: make(chan error, 1)}
	fd := l.Prog.FD()
	t.Run(func() { a.ended <- a.hold(fd) })
	return a, nil
}

// idle lowers the anchor to SCHED_IDLE: once it holds its program, it
// runs only when the measuring thread does not.
func (a *anchor) idle() error {
	idle := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}
	if err := unix.SchedSetAttr(a.tid, &idle, 0); err != nil {
		return fmt.Errorf("%w: SCHED_IDLE: %w", ErrAnchor, err)
	}
	return nil
}

// hold keeps a test run of the program in flight until stop is set.
func (a *anchor) hold(fd int) error {
	for calls := 0; !a.stop.Load(); calls++ {
		if calls > 0 {
			a.restarts.Add(1)
		}
		a.entering.Store(true)
		_, _, err := testRun(fd, anchorFrame, nil, anchorRepeat)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("%w of %s: test run: %w", ErrAnchor, a.program, err)
		}
	}
	return nil
}

// releaseAnchors ends every anchor at once and returns once each call has
// returned: its program is then out of the dispatcher, unless another run
// holds it.
func releaseAnchors(anchors []*anchor) error {
	// At SCHED_IDLE an anchor runs only when its CPU has nothing else to
	// do: on a busy CPU it could take a second to see the signal. Ending,
	// it runs as any other thread. Best effort: the signal ends it anyway.
	normal := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}
	for _, a := range anchors {
		a.stop.Store(true)
		_ = unix.SchedSetAttr(a.tid, &normal, 0)
	}
	deadline := time.Now().Add(anchorEndTimeout)
	var errs []error
	left := slices.Clone(anchors)
	for len(left) > 0 {
		// Signal until each call returns: a signal that lands before the
		// call enters the kernel interrupts nothing.
		for _, a := range left {
			if err := unix.Tgkill(unix.Getpid(), a.tid, unix.SIGURG); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("%w of %s: signal: %w", ErrAnchor, a.program, err)
			}
		}
		host.Nap()
		left = slices.DeleteFunc(left, func(a *anchor) bool {
			select {
			case err := <-a.ended:
				errs = append(errs, err)
				return true
			default:
				return false
			}
		})
		if len(left) > 0 && time.Now().After(deadline) {
			return fmt.Errorf("%w of %s: still running %s after the signal", ErrAnchor, left[0].program, anchorEndTimeout)
		}
	}
	return errors.Join(errs...)
}
