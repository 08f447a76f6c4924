package testrun

import (
	"fmt"
	"time"
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

// sampleSingle runs a frame (frame's, anew each call) once per call, calls times, and returns the mean
// of the kernel's figures (or, with the stats timer, of its run-time
// statistics), their total wall time, and the return of the calls: want,
// or the first that differed from it. reset, if set, runs before every
// call: outside the kernel's figure, and the wall time, of the call.
func (l *program) sampleSingle(frame func() []byte, ctx []byte, calls int, want uint32, reset func() error) (m measurement, err error) {
	if calls <= 0 {
		return m, fmt.Errorf("a sample of %d calls", calls)
	}
	before, err := l.statsBefore()
	if err != nil {
		return m, err
	}
	total := 0.0
	m.retval = want
	for range calls {
		if reset != nil {
			if err := reset(); err != nil {
				return m, err
			}
		}
		ret, ns, wall, retries, err := l.call(frame(), ctx, 1)
		m.wall, m.retries = m.wall+wall, m.retries+retries
		if err != nil {
			return m, err
		}
		if ret != want && m.retval == want {
			m.retval = ret
		}
		total += float64(ns)
	}
	m.perRun = total / float64(calls)
	return m, l.statsSince(before, &m)
}
