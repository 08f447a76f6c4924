package host

import (
	"runtime"
	"testing"
	"time"
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
