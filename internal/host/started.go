package host

import (
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// userHZ is the unit of /proc's process times (USER_HZ), fixed by the
// kernel's ABI.
const userHZ = 100

// ProcessStarted is when the kernel started this process, to the 10 ms
// of /proc's clock, or now where /proc does not say. A user's clock
// (time, a shell's prompt) counts from there; the Go runtime's and its
// libraries' start-up comes before main (gopacket's tables alone take
// 40 ms here), and a budget that counted from main overran it.
func ProcessStarted() time.Time {
	now := time.Now()
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return now
	}
	fields := statFields(string(stat))
	const starttime = 22 - 3 // the stat line's 22nd field
	if len(fields) <= starttime {
		return now
	}
	ticks, err := strconv.ParseUint(fields[starttime], 10, 64)
	if err != nil {
		return now
	}
	var boot unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &boot); err != nil {
		return now
	}
	since := time.Duration(boot.Nano()) - time.Duration(ticks)*(time.Second/userHZ)
	if since < 0 || since > time.Minute {
		return now // not this process as its clock would have it
	}
	return now.Add(-since)
}
