package phases

import (
	"math"

	"github.com/xdpmicro/xdpmicro/stats"
)

// ChangeTransfer bounds how far the machine's phase moves a change: in a
// run whose floor read f times the recalled fast phase's, the change's
// size at the fast phase lies within f^±ChangeTransfer of the size
// measured. A phase slows the instructions a change adds or removes by
// another factor than the rest. Measured here on 2026-11-26, v3 -> v4: a
// run at ×1.40 read every case's change 1.5 to 2.0 times its size in
// runs at the fast phase (none -17.3 % against -10.2 to -11.1 %, its
// interval excluding them), one at ×1.15 up to 1.34 times. A phase did not
// turn a change's sign, so an interval that excludes no change still does.
const ChangeTransfer = 2.0

// LiveChangeTransfer is ChangeTransfer for what live frames add to a test
// run, the cost of carrying the action out, which follows the phase far
// more closely than a program's change does: here xdp-tutorial's icmp
// echo read +125.8, +130.9, +130.5, +129.4 and +130.7 ns for XDP_TX in
// runs at ×1.04, ×1.30, ×1.26, ×1.45 and ×1.03 once scaled, XDP_PASS
// +383, +363, +359, +352 and +388 ns: a quarter of the phases' log apart
// at most. Twice that is kept. (katran's XDP_TX, whose restored test run
// is known to ±4 to ±14 %, read +122.6, +155.8 and +132.2 ns at ×1.07,
// ×1.29 and ×1.52, each within the others' intervals.)
const LiveChangeTransfer = 0.5

// Transfer is the exponent for what a run compares: the cost of the
// action live frames carry out, or a change between builds.
func Transfer(live bool) float64 {
	if live {
		return LiveChangeTransfer
	}
	return ChangeTransfer
}

// ChangeSpread is the factor, 1 or more, within which a change measured
// at runFloor holds its size at the recalled floor, transfer being
// ChangeTransfer or LiveChangeTransfer; 1 without either floor.
func ChangeSpread(runFloor, recalled, transfer float64) float64 {
	if !(runFloor > 0) || !(recalled > 0) || SamePhase(runFloor, recalled) {
		return 1 // one phase: its drift moves a change's size far less
	}
	f := math.Pow(runFloor/recalled, transfer)
	return max(f, 1/f)
}

// Widen moves each bound of e, a change, away from and toward no change
// by spread, never across it.
func Widen(e stats.Estimate, spread float64) stats.Estimate {
	if !(spread > 1) {
		return e
	}
	e.Lower, e.Upper = min(e.Lower*spread, e.Lower/spread), max(e.Upper*spread, e.Upper/spread)
	return e
}

// SamePhase says whether two fast floors, a run's and the recalled one,
// lie within stats.PhaseTolerance of each other: one phase's spread.
func SamePhase(a, b float64) bool {
	return a > 0 && b > 0 && max(a, b) <= min(a, b)*(1+stats.PhaseTolerance)
}
