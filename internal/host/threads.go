package host

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/crash"
	"golang.org/x/sys/unix"
)

// ErrThread reports a thread that could not be pinned to its CPU.
var ErrThread = errors.New("pinned thread")

// A Thread is an OS thread pinned to one CPU that runs one job after
// another, for every run of this process on that CPU: making a thread and
// moving it to its CPU took 1 to 5 ms here, and a run asks for three a
// group. Idle, it waits for a job and takes no CPU. A job starts at
// SCHED_NORMAL; a thread whose job left it at another policy that it
// may not leave (SCHED_IDLE, without CAP_SYS_NICE) is not kept.
type Thread struct {
	tid  int
	jobs chan func()
}

// TID is the thread's ID, for signals and for setting its policy.
func (t *Thread) TID() int { return t.tid }

// Run starts job on the thread; the thread is not the caller's after.
func (t *Thread) Run(job func()) { t.jobs <- job }

var threads struct {
	sync.Mutex
	idle map[int][]*Thread // by CPU
}

// ThreadOn takes an idle thread pinned to cpu, or starts one.
func ThreadOn(cpu int) (*Thread, error) {
	threads.Lock()
	if idle := threads.idle[cpu]; len(idle) > 0 {
		t := idle[len(idle)-1]
		threads.idle[cpu] = idle[:len(idle)-1]
		threads.Unlock()
		return t, nil
	}
	threads.Unlock()
	t := &Thread{jobs: make(chan func())}
	ready := make(chan error, 1)
	go func() {
		defer crash.Guard()
		// Locked for good: a thread whose affinity and policy were
		// changed runs no other goroutine; it exits locked, and the
		// runtime discards it.
		if err := lockTo(cpu); err != nil {
			ready <- fmt.Errorf("%w: %w", ErrThread, err)
			return
		}
		t.tid = unix.Gettid()
		ready <- nil
		normal := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}
		for job := range t.jobs {
			job()
			if unix.SchedSetAttr(0, &normal, 0) != nil {
				return
			}
			threads.Lock()
			if threads.idle == nil {
				threads.idle = map[int][]*Thread{}
			}
			threads.idle[cpu] = append(threads.idle[cpu], t)
			threads.Unlock()
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return t, nil
}

// NapTime is how long Nap sleeps.
const NapTime = 100 * time.Microsecond

// Nap sleeps NapTime on this thread, in the kernel: Go's timers would
// wake it through another thread.
func Nap() {
	ts := unix.NsecToTimespec(NapTime.Nanoseconds())
	_ = unix.Nanosleep(&ts, nil)
}

// A Waker wakes on its CPU every NapTime until ended, so that the CPU
// never idles for long: a thread that runs in the kernel until something
// else wants its CPU (a test run's loop, inside an RCU read-side section)
// then yields it within NapTime.
type Waker struct {
	stop  atomic.Bool
	ended chan struct{}
}

// StartWaker starts a Waker on cpu.
func StartWaker(cpu int) (*Waker, error) {
	t, err := ThreadOn(cpu)
	if err != nil {
		return nil, err
	}
	w := &Waker{ended: make(chan struct{})}
	t.Run(func() {
		defer close(w.ended)
		for !w.stop.Load() {
			Nap()
		}
	})
	return w, nil
}

// End stops the Waker and returns once it has.
func (w *Waker) End() {
	w.stop.Store(true)
	<-w.ended
}
