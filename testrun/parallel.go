package testrun

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// Samples in flight. An XDP test run with repeat > 1 spends ~16 ms
// sleeping outside its timed loop while the kernel swaps the program into
// the dispatcher and back, waiting for RCU grace periods; the timed loop
// itself may last only half a millisecond. A program already in the
// dispatcher is only counted again, so calls of the same program in flight
// together share one swap: the cases of a program overlap their waits.
// Calls of distinct programs do not: each swap waits its turn on the
// dispatcher's lock (measured: three programs in flight return after 16,
// 32 and 47 ms), so more programs in a round cost more time, not less.
//
// The timing stays true: the kernel runs the timed loop with preemption
// disabled and stops its clock while it yields to another thread
// (bpf_test_timer_continue), so no sample counts another's runs; the
// one that yielded comes back to caches the other touched, which costs a
// few cold runs out of thousands.
const maxParallel = 8

// parallelism is how many samples of a round of n may be in flight.
func parallelism(cfg Config, n int) int {
	switch {
	case cfg.Parallel > 0:
		return min(cfg.Parallel, n)
	case cfg.Timer == TimerStats:
		// run_time_ns is kept per program: two cases of one program in
		// flight at once would read each other's runs.
		return 1
	}
	return max(1, min(maxParallel, n))
}

// workers are OS threads pinned to one CPU that run jobs.
type workers struct {
	jobs chan job
	wg   sync.WaitGroup
}

type job struct {
	f    func() error
	done chan<- error
}

// startWorkers starts n threads pinned to cpu. Like onPinnedThread, each
// exits locked, so its thread, with the changed affinity, is discarded.
func startWorkers(cpu, n int) (*workers, error) {
	w := &workers{jobs: make(chan job)}
	ready := make(chan error, n)
	for range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			runtime.LockOSThread()
			var set unix.CPUSet
			set.Set(cpu)
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				ready <- fmt.Errorf("pin to CPU %d: %w", cpu, err)
				return
			}
			ready <- nil
			for j := range w.jobs {
				j.done <- j.f()
			}
		}()
	}
	var errs []error
	for range n {
		errs = append(errs, <-ready)
	}
	if err := errors.Join(errs...); err != nil {
		w.stop()
		return nil, err
	}
	return w, nil
}

// run runs every job and waits for all; it returns the first error in
// job order.
func (w *workers) run(jobs []func() error) error {
	results := make([]chan error, len(jobs))
	for i := range results {
		results[i] = make(chan error, 1)
	}
	go func() {
		for i, f := range jobs {
			w.jobs <- job{f, results[i]}
		}
	}()
	var first error
	for i := range jobs {
		if err := <-results[i]; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (w *workers) stop() {
	close(w.jobs)
	w.wg.Wait()
}
