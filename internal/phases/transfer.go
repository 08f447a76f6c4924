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

// ChangeSpread is the factor, 1 or more, within which a change measured
// at runFloor holds its size at the recalled floor; 1 without either.
func ChangeSpread(runFloor, recalled float64) float64 {
	if !(runFloor > 0) || !(recalled > 0) {
		return 1
	}
	f := math.Pow(runFloor/recalled, ChangeTransfer)
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
