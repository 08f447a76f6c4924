package testrun

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/crash"
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
// completes. The kernel's loop checks for a pending signal between runs;
// release sends one and waits until the call has returned.
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
}

// startAnchor starts an anchor of l on cpu. It returns once the anchor's
// thread exists; its call enters the kernel when the CPU is next idle.
func startAnchor(cpu int, l *object.Loaded) (*anchor, error) {
	a := &anchor{program: l.Info.Name, ended: make(chan error, 1)}
	ready := make(chan error, 1)
	fd := l.Prog.FD()
	go func() {
		defer crash.Guard()
		// The thread keeps its affinity and policy to the end: it exits
		// locked, so the runtime discards it.
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			ready <- fmt.Errorf("%w: pin to CPU %d: %w", ErrAnchor, cpu, err)
			return
		}
		idle := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}
		if err := unix.SchedSetAttr(0, &idle, 0); err != nil {
			ready <- fmt.Errorf("%w: SCHED_IDLE: %w", ErrAnchor, err)
			return
		}
		a.tid = unix.Gettid()
		ready <- nil
		a.ended <- a.hold(fd)
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return a, nil
}

// hold keeps a test run of the program in flight until stop is set.
func (a *anchor) hold(fd int) error {
	for calls := 0; !a.stop.Load(); calls++ {
		if calls > 0 {
			a.restarts.Add(1)
		}
		_, _, err := testRun(fd, anchorFrame, nil, anchorRepeat)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("%w of %s: test run: %w", ErrAnchor, a.program, err)
		}
	}
	return nil
}

// release ends the anchor and returns once its call has returned: the
// program is then out of the dispatcher, unless another run holds it.
func (a *anchor) release() error {
	a.stop.Store(true)
	// At SCHED_IDLE the anchor runs only when its CPU has nothing else to
	// do: on a busy CPU it could take a second to see the signal. Ending,
	// it runs as any other thread. Best effort: the signal ends it anyway.
	other := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}
	_ = unix.SchedSetAttr(a.tid, &other, 0)
	deadline := time.After(anchorEndTimeout)
	// Signal until the call returns: a signal that lands before the call
	// enters the kernel interrupts nothing.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if err := unix.Tgkill(unix.Getpid(), a.tid, unix.SIGURG); err != nil && !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("%w of %s: signal: %w", ErrAnchor, a.program, err)
		}
		select {
		case err := <-a.ended:
			return err
		case <-tick.C:
		case <-deadline:
			return fmt.Errorf("%w of %s: still running %s after the signal", ErrAnchor, a.program, anchorEndTimeout)
		}
	}
}
