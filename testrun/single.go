package testrun

import (
	"errors"
	"fmt"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// Single runs. BPF_PROG_TEST_RUN runs every repeat of a call on one
// buffer: a program that changes its packet sees its own output from the
// second run on, and may take another path there. A call of repeat 1
// copies the frame anew, so such cases are sampled one run a call: a
// sample is the mean of the kernel's figure over several calls of one run
// each, and the floor of the case is sampled the same way, so that the
// clock reads around each run, which the kernel's figure of one run
// includes, fall out of the net. With anchors, such a call costs about a
// microsecond; without them a call of repeat 1 does not change the XDP
// dispatcher at all.

// singleCallsBounds bound the calls of one run each that make a sample.
const (
	minSingleCalls = 8
	maxSingleCalls = 512
)

// singleCalls is how many calls of one run make a sample of about
// TargetSample, each costing overhead beyond its run of about perRun ns.
func singleCalls(overhead time.Duration, perRun float64) int {
	per := float64(overhead.Nanoseconds()) + perRun
	return min(max(int(float64(TargetSample.Nanoseconds())/max(per, 1)), minSingleCalls), maxSingleCalls)
}

// sampleSingle runs frame once per call, calls times, and returns the mean
// of the kernel's figures (or, with the stats timer, of its run-time
// statistics), their total wall time, and the return of the calls: want,
// or the first that differed from it.
func (l *loaded) sampleSingle(frame []byte, calls int, want uint32) (m measurement, err error) {
	if calls <= 0 {
		return m, fmt.Errorf("a sample of %d calls", calls)
	}
	var before *ebpf.ProgramStats
	if l.statsTimer {
		if before, err = l.prog.Stats(); err != nil {
			return m, fmt.Errorf("read run-time statistics: %w", err)
		}
	}
	start := time.Now()
	total := 0.0
	m.retval = want
	for range calls {
		var ret, ns uint32
		for {
			ret, ns, err = testRun(l.prog.FD(), frame, 1)
			if !errors.Is(err, unix.EINTR) {
				break
			}
			m.retries++
		}
		if err != nil {
			return m, l.runError(err, frame)
		}
		if ret != want && m.retval == want {
			m.retval = ret
		}
		total += float64(ns)
	}
	m.wall = time.Since(start)
	m.perRun = total / float64(calls)
	if l.statsTimer {
		after, err := l.prog.Stats()
		if err != nil {
			return m, fmt.Errorf("read run-time statistics: %w", err)
		}
		runs := after.RunCount - before.RunCount
		if runs == 0 {
			return m, fmt.Errorf("run-time statistics counted no run")
		}
		m.perRun = float64(after.Runtime-before.Runtime) / float64(runs)
	}
	return m, nil
}
