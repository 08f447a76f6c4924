package host

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestReserveProcs(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	first := ReserveProcs(3)
	second := ReserveProcs(2)
	if got := runtime.GOMAXPROCS(0); got != base+5 {
		t.Fatalf("two holders of 3 and 2: GOMAXPROCS %d, want %d", got, base+5)
	}
	first()
	first() // a second call gives nothing back twice
	if got := runtime.GOMAXPROCS(0); got != base+2 {
		t.Fatalf("after the first gave back: GOMAXPROCS %d, want %d", got, base+2)
	}
	second()
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("after both: GOMAXPROCS %d, want %d as before", got, base)
	}
}

func TestProcessStarted(t *testing.T) {
	before := time.Now()
	started := ProcessStarted()
	// A test binary has run for a moment: its start is before now, by
	// less than the test's own run, and /proc's clock is to 10 ms.
	if started.After(before.Add(10 * time.Millisecond)) {
		t.Errorf("process started %s after now", started.Sub(before))
	}
	if age := before.Sub(started); age > 5*time.Minute {
		t.Errorf("process started %s ago: not this process", age)
	}
}

func TestThreadOnIsKeptAndPinned(t *testing.T) {
	cpus, err := AllowedCPUs(AnyCPU)
	if err != nil || len(cpus) == 0 {
		t.Skipf("no CPU to pin to: %v", err)
	}
	cpu := cpus[len(cpus)-1]
	first, err := ThreadOn(cpu)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan []int)
	affinity := func() {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			ran <- nil
			return
		}
		var on []int
		for c := range 1024 {
			if set.IsSet(c) {
				on = append(on, c)
			}
		}
		ran <- on
	}
	first.Run(affinity)
	if on := <-ran; len(on) != 1 || on[0] != cpu {
		t.Fatalf("the thread runs on CPUs %v, want only %d", on, cpu)
	}
	// Its job done, it waits in the pool for the next: no thread is made
	// twice.
	kept := func() bool {
		threads.Lock()
		defer threads.Unlock()
		return slices.Contains(threads.idle[cpu], first)
	}
	for deadline := time.Now().Add(5 * time.Second); !kept(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("thread %d was not kept for the next job", first.TID())
		}
	}
}

func TestWakerEnds(t *testing.T) {
	w, err := StartWaker(0)
	if err != nil {
		t.Skip(err)
	}
	time.Sleep(5 * NapTime)
	done := make(chan struct{})
	go func() { w.End(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the waker did not end")
	}
}
