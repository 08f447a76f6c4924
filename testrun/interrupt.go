package testrun

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/crash"
	"golang.org/x/sys/unix"
)

// errCancelled ends a call that a cancelled run interrupted: it is not
// restarted, and the sample it was is not taken.
var errCancelled = errors.New("the run was cancelled during a test-run call")

// cancelledThreads holds the thread ids whose run was cancelled: a call
// that such a thread's signal interrupted returns errCancelled instead of
// starting over. Looked up only on EINTR, so a sample pays nothing.
var cancelledThreads sync.Map // int → struct{}

// callCancelled says whether the calling thread's run was cancelled.
func callCancelled() bool {
	_, ok := cancelledThreads.Load(unix.Gettid())
	return ok
}

// interrupter ends a test-run call when its run is cancelled. A call of
// repeat 10^9 takes a minute, and the kernel looks for a signal only on
// the calling thread: a SIGINT delivered to another thread of the process
// would leave it running, and a restart after an interruption would start
// it over. So, once ctx is done, the measuring thread is marked and sent
// SIGURG (which the Go runtime takes for preemption and otherwise
// ignores) until it leaves; the kernel ends its loop with EINTR.
type interrupter struct {
	mu   sync.Mutex
	tid  int // the measuring thread, 0 outside
	done chan struct{}
}

// interruptOn starts watching ctx; close ends the watch.
func interruptOn(ctx context.Context) *interrupter {
	i := &interrupter{done: make(chan struct{})}
	go func() {
		defer crash.Guard()
		select {
		case <-ctx.Done():
		case <-i.done:
			return
		}
		// A signal that lands between two calls interrupts nothing:
		// send again until the thread has left.
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			i.mu.Lock()
			if i.tid != 0 {
				cancelledThreads.Store(i.tid, struct{}{})
				_ = unix.Tgkill(unix.Getpid(), i.tid, unix.SIGURG)
			}
			i.mu.Unlock()
			select {
			case <-i.done:
				return
			case <-tick.C:
			}
		}
	}()
	return i
}

// enter marks the calling thread as the one to interrupt.
func (i *interrupter) enter() {
	i.mu.Lock()
	i.tid = unix.Gettid()
	i.mu.Unlock()
}

// leave is enter's end, on the same thread: no signal reaches it after.
func (i *interrupter) leave() {
	i.mu.Lock()
	cancelledThreads.Delete(i.tid)
	i.tid = 0
	i.mu.Unlock()
}

func (i *interrupter) close() { close(i.done) }
