package host

import (
	"runtime"
	"sync"
)

// Threads that block in the kernel for a whole run (the anchors, each in a
// test run that lasts until it is signalled) each keep one of the Go
// runtime's Ps: a goroutine in a system call holds its P until the
// runtime's monitor takes it back, which it does only after up to 10 ms
// when no other P is idle. With GOMAXPROCS at the CPU count (2 here) and
// one anchor in the kernel, every wake-up of the measuring thread waited
// for that monitor: starting an anchor took 2 to 20 ms of the run's wall,
// most of a group's set-up. Spare Ps, one per blocked thread, let the
// others run at once; they cost nothing while idle.

var procs struct {
	sync.Mutex
	extra int // Ps lent out, over all holders
	base  int // GOMAXPROCS before the first was lent
}

// ReserveProcs raises GOMAXPROCS by n for threads that will block in the
// kernel, and returns what gives them back: when the last holder has
// given its back, GOMAXPROCS is what it was before.
func ReserveProcs(n int) (release func()) {
	if n <= 0 {
		return func() {}
	}
	procs.Lock()
	defer procs.Unlock()
	if procs.extra == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.extra += n
	runtime.GOMAXPROCS(procs.base + procs.extra)
	var once sync.Once
	return func() {
		once.Do(func() {
			procs.Lock()
			defer procs.Unlock()
			procs.extra -= n
			runtime.GOMAXPROCS(procs.base + procs.extra)
		})
	}
}
