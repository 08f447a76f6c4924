package testrun

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
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
// completes. It starts at SCHED_NORMAL, so that its call enters the kernel
// at once, and is lowered once it holds its program. The kernel's loop
// checks for a pending signal between runs; releaseAnchors sends one and
// waits until the call has returned.
//
// While an anchor's loop runs it is inside an RCU read-side section,
// which it leaves only when something else wants its CPU: a change of
// the dispatcher (another anchor entering or leaving) waits for that. So
// the measuring thread never blocks for long while anchors come and go:
// it naps in short sleeps, each of whose wake-ups lets the grace period
// end, and all anchors are ended at once. Blocking instead, each change
// waited for the scheduler's tick: 3 to 5 ms an anchor here.
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
// lowers it, on a thread of the pool.
func startAnchor(cpu int, l *object.Loaded) (*anchor, error) {
	t, err := anchorThreadOn(cpu)
	if err != nil {
		return nil, err
	}
	a := &anchor{program: l.Info.Name, tid: t.tid, ended: make(chan error, 1)}
	fd := l.Prog.FD()
	t.done = a.ended // before the job: the thread reads it on taking one
	t.jobs <- func() error { return a.hold(fd) }
	return a, nil
}

// An anchorThread is a thread pinned to one CPU that holds one program
// after another in the dispatcher, for every run of this process on that
// CPU: creating a thread and moving it to its CPU took 1 to 5 ms an
// anchor here, a run's tenth over its groups. Idle, it waits on jobs and
// takes no CPU.
type anchorThread struct {
	tid  int
	jobs chan func() error
	done chan<- error // where the job in hand reports its end
}

// anchorThreads are the idle threads, by CPU.
var anchorThreads struct {
	sync.Mutex
	idle map[int][]*anchorThread
}

// anchorThreadOn takes an idle thread on cpu, or starts one.
func anchorThreadOn(cpu int) (*anchorThread, error) {
	anchorThreads.Lock()
	if idle := anchorThreads.idle[cpu]; len(idle) > 0 {
		t := idle[len(idle)-1]
		anchorThreads.idle[cpu] = idle[:len(idle)-1]
		anchorThreads.Unlock()
		return t, nil
	}
	anchorThreads.Unlock()
	t := &anchorThread{jobs: make(chan func() error)}
	ready := make(chan error, 1)
	go func() {
		defer crash.Guard()
		// Locked for good: a thread whose affinity and policy were
		// changed must not run other goroutines; it is never unlocked.
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			ready <- fmt.Errorf("%w: pin to CPU %d: %w", ErrAnchor, cpu, err)
			return
		}
		t.tid = unix.Gettid()
		ready <- nil
		normal := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}
		for job := range t.jobs {
			done := t.done
			// Every job starts at SCHED_NORMAL, whatever the last left.
			err := unix.SchedSetAttr(0, &normal, 0)
			if err != nil {
				err = fmt.Errorf("%w: SCHED_NORMAL: %w", ErrAnchor, err)
			} else {
				err = job()
			}
			// Idle again before it says so: the next group finds it.
			anchorThreads.Lock()
			if anchorThreads.idle == nil {
				anchorThreads.idle = map[int][]*anchorThread{}
			}
			anchorThreads.idle[cpu] = append(anchorThreads.idle[cpu], t)
			anchorThreads.Unlock()
			done <- err
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return t, nil
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
		nap()
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

// napTime is how long the measuring thread sleeps while anchors come and
// go: each wake-up ends a running anchor's RCU read-side section.
const napTime = 100 * time.Microsecond

// nap sleeps napTime on this thread, in the kernel: Go's timers would
// wake it through another thread.
func nap() {
	ts := unix.NsecToTimespec(napTime.Nanoseconds())
	_ = unix.Nanosleep(&ts, nil)
}

// A waker keeps the measuring CPU from idling for long while anchors come
// and go. An anchor's loop runs inside an RCU read-side section, which it
// leaves only when something else wants its CPU; a change of the
// dispatcher (another anchor entering or leaving, or a call that blocks on
// one) waits for that, and with the measuring thread blocked, nothing
// wanted the CPU until the scheduler's tick: 3 to 5 ms a change here, up
// to 46 ms a group. The waker wakes every napTime instead.
type waker struct {
	stop atomic.Bool
	done chan error
}

// startWaker starts a waker on cpu, on a thread of the pool.
func startWaker(cpu int) (*waker, error) {
	t, err := anchorThreadOn(cpu)
	if err != nil {
		return nil, err
	}
	w := &waker{done: make(chan error, 1)}
	t.done = w.done
	t.jobs <- func() error {
		for !w.stop.Load() {
			nap()
		}
		return nil
	}
	return w, nil
}

// end stops the waker and waits until it has.
func (w *waker) end() {
	w.stop.Store(true)
	<-w.done
}
