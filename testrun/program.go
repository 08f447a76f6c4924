package testrun

import (
	"errors"
	"fmt"
	"time"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"golang.org/x/sys/unix"
)

// program is a loaded program as the sampler runs it.
type program struct {
	*object.Loaded
	// statsTimer takes samples from the program's run-time statistics.
	statsTimer bool
	// live runs the program with live frames, batch a batch (0: the
	// kernel's default).
	live  bool
	batch uint32
	// drain, after each live call, empties what the call left in the
	// pair's AF_XDP socket (livenet.Pair.Drain).
	drain func() error
}

// measurement is one sample: the kernel's figure for the time per run, the
// wall time of the call that gave it, and how often an interrupted call was
// restarted before it.
type measurement struct {
	perRun  float64 // ns
	wall    time.Duration
	retries int
	retval  uint32 // the last run's return
}

// sample runs a frame repeat times. The wall time is that of the last,
// complete call, read around the raw syscall on this thread: Go's
// monotonic clock, CLOCK_MONOTONIC through the vDSO, which reads the TSC in
// user space in tens of nanoseconds and enters no kernel code.
func (l *program) sample(frame, ctx []byte, repeat uint32) (m measurement, err error) {
	before, err := l.statsBefore()
	if err != nil {
		return m, err
	}
	var per uint32
	m.retval, per, m.wall, m.retries, err = l.call(frame, ctx, repeat)
	if err != nil {
		return m, err
	}
	m.perRun = float64(per)
	return m, l.statsSince(before, &m)
}

// call makes one test run of repeat runs (callRestarting) and returns
// the last run's return, the kernel's figure per run, the wall time of
// the complete call and the restarts.
func (l *program) call(frame, ctx []byte, repeat uint32) (ret, nsPerRun uint32, wall time.Duration, retries int, err error) {
	if l.live {
		ret, nsPerRun, wall, retries, err = callLive(l.Prog.FD(), frame, ctx, repeat, l.batch)
		if err == nil && l.drain != nil {
			// Outside the call's wall time and the kernel's.
			if err = l.drain(); err != nil {
				return 0, 0, wall, retries, err
			}
		}
	} else {
		ret, nsPerRun, wall, retries, err = callRestarting(l.Prog.FD(), frame, ctx, repeat)
	}
	if err != nil {
		return 0, 0, wall, retries, l.RunError(err, frame, ctx)
	}
	return ret, nsPerRun, wall, retries, nil
}

// callRestarting makes one test run of repeat runs of the program fd,
// restarted after each signal that interrupts it (the kernel gives up
// the whole loop, so does the call) unless the run was cancelled
// (errCancelled), and returns the last run's return,
// the kernel's figure per run, the wall time of the complete call and
// the restarts. The error is the system call's.
func callRestarting(fd int, frame, ctx []byte, repeat uint32) (ret, nsPerRun uint32, wall time.Duration, retries int, err error) {
	for {
		start := time.Now()
		ret, nsPerRun, err = testRun(fd, frame, ctx, repeat)
		wall = time.Since(start)
		if !errors.Is(err, unix.EINTR) {
			return ret, nsPerRun, wall, retries, err
		}
		if callCancelled() {
			return 0, 0, wall, retries, errCancelled
		}
		retries++
	}
}

// callLive is callRestarting with live frames, which give no return
// back: ret is NoReturn.
func callLive(fd int, frame, ctx []byte, repeat, batch uint32) (ret, nsPerRun uint32, wall time.Duration, retries int, err error) {
	for {
		start := time.Now()
		nsPerRun, err = testRunLive(fd, frame, ctx, repeat, batch)
		wall = time.Since(start)
		if !errors.Is(err, unix.EINTR) {
			return NoReturn, nsPerRun, wall, retries, err
		}
		if callCancelled() {
			return NoReturn, 0, wall, retries, errCancelled
		}
		retries++
	}
}

// NoReturn is the return of a live call, which gives none back.
const NoReturn = ^uint32(0)

// statsBefore reads the program's run-time statistics before a sample
// taken with the stats timer; nil without it.
func (l *program) statsBefore() (*ebpf.ProgramStats, error) {
	if !l.statsTimer {
		return nil, nil
	}
	s, err := l.Prog.Stats()
	if err != nil {
		return nil, fmt.Errorf("read run-time statistics: %w", err)
	}
	return s, nil
}

// statsSince sets m's time per run from the run-time statistics' growth
// since before, with the stats timer; it leaves m alone without it.
func (l *program) statsSince(before *ebpf.ProgramStats, m *measurement) error {
	if before == nil {
		return nil
	}
	after, err := l.Prog.Stats()
	if err != nil {
		return fmt.Errorf("read run-time statistics: %w", err)
	}
	runs := after.RunCount - before.RunCount
	if runs == 0 {
		return fmt.Errorf("run-time statistics counted no run")
	}
	m.perRun = float64(after.Runtime-before.Runtime) / float64(runs)
	return nil
}
