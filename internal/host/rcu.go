package host

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/xdpmicro/xdpmicro/internal/socklock"
)

// Grace periods. Every change of the XDP dispatcher waits out an RCU
// grace period (synchronize_rcu, since 6.2), and a group of loads changes
// it twice a program: once as each anchor enters, once as it leaves. On
// a Xeon guest (HZ 250, lazy RCU) that was 15 ms an anchor in and 9 out,
// 0.85 s of a 1.7 s default run; with expedited grace periods, 4 and 1 ms
// a group. The kernel expedites every synchronize_rcu while
// /sys/kernel/rcu_expedited is 1, which costs the other CPUs an IPI per
// grace period: so it is set only while anchors come and go, never while
// samples are taken, and put back after.

// rcuKnob is the kernel's switch, the marker that says xdpmicro set it,
// and the lock that makes one process at a time the one that sets it.
type rcuKnob struct {
	knob, marker, lock string
}

// systemRCU is this machine's. The marker lives in /run, which, as the
// knob, does not outlive a boot.
var systemRCU = rcuKnob{
	knob:   "/sys/kernel/rcu_expedited",
	marker: "/run/xdpmicro/rcu_expedited",
	lock:   "xdpmicro-rcu-expedited",
}

// ExpediteRCU makes the kernel's grace periods expedited until end is
// called, where this process may and nobody else set them so: an
// administrator's setting is left alone, and so is one another xdpmicro
// run holds now. A run killed before end leaves the knob set and its
// marker; the next run to expedite puts it back. expedited says whether
// the grace periods are expedited now.
func ExpediteRCU() (end func(), expedited bool) {
	return systemRCU.expedite()
}

func (k rcuKnob) expedite() (end func(), expedited bool) {
	nothing := func() {}
	lock, err := socklock.Try(k.lock)
	if err != nil {
		// Another run is changing its dispatcher: the knob is its to put back.
		return nothing, k.isSet()
	}
	value, err := os.ReadFile(k.knob)
	if err != nil {
		lock.Release()
		return nothing, false
	}
	switch {
	case bytes.Equal(bytes.TrimSpace(value), []byte("0")):
		if err := k.set(); err != nil {
			lock.Release()
			return nothing, false
		}
	case !k.marked():
		// Set by someone else, who keeps it.
		lock.Release()
		return nothing, k.isSet()
	}
	// Set now by this process, or left set by a run killed in its window.
	return func() {
		if os.WriteFile(k.knob, []byte("0\n"), 0) == nil {
			_ = os.Remove(k.marker)
		}
		lock.Release()
	}, true
}

// set marks the knob as xdpmicro's, then sets it: a run killed between
// the two leaves a marker and the knob at 0, which the next run sets and
// puts back.
func (k rcuKnob) set() error {
	if err := os.MkdirAll(filepath.Dir(k.marker), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(k.marker, []byte("set by xdpmicro while it changes the XDP dispatcher; it writes 0 back\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(k.knob, []byte("1\n"), 0); err != nil {
		_ = os.Remove(k.marker)
		return err
	}
	return nil
}

func (k rcuKnob) marked() bool {
	_, err := os.Lstat(k.marker)
	return err == nil
}

func (k rcuKnob) isSet() bool {
	value, err := os.ReadFile(k.knob)
	return err == nil && !bytes.Equal(bytes.TrimSpace(value), []byte("0"))
}
