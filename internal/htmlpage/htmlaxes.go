package htmlpage

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// evenTicks labels an axis at steps of 1, 2 or 5 times a power of ten,
// every label with the same number of decimals, enough for the step and
// no more: gonum's default gives "250.00" for sample numbers and "20" and
// "22.5" on one axis.
type evenTicks struct{}

// wantTicks is about how many labelled ticks an axis gets.
const wantTicks = 6

func (evenTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo, 0)}}
	}
	step, decimals := tickStep((hi - lo) / wantTicks)
	minor := step / 5
	if leading := step / math.Pow10(int(math.Floor(math.Log10(step)))); math.Round(leading) == 2 {
		minor = step / 4
	}
	var ticks []plot.Tick
	// Rounded to a decimal beyond the label's: k·minor is 1.2000000000000002.
	unit := math.Pow10(decimals + 2)
	for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+minor*1e-9; k++ {
		v := math.Round(k*minor*unit) / unit
		t := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			t.Label = formatTick(v, decimals)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// tickStep rounds raw up to 1, 2 or 5 times a power of ten, and says how
// many decimals its multiples need.
func tickStep(raw float64) (step float64, decimals int) {
	exp := math.Floor(math.Log10(raw))
	base := math.Pow10(int(exp))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*base >= raw*(1-1e-9) {
			step = m * base
			break
		}
	}
	decimals = max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	return step, decimals
}

func formatTick(v float64, decimals int) string {
	if math.Abs(v) < math.Pow10(-decimals)/2 {
		v = 0 // no "-0.0"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// integerTicks is evenTicks for counts: never a fractional step.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi-lo < wantTicks {
		var ticks []plot.Tick
		for v := math.Ceil(lo); v <= hi; v++ {
			ticks = append(ticks, plot.Tick{Value: v, Label: formatTick(v, 0)})
		}
		return ticks
	}
	return evenTicks{}.Ticks(lo, hi)
}

// span is the range an axis of nanoseconds shows.
type span struct{ lo, hi float64 }

func (s span) contains(v float64) bool { return v >= s.lo && v <= s.hi }

// beyond counts the values outside s: below and above.
func (s span) beyond(values []float64) (below, above int) {
	for _, v := range values {
		switch {
		case v < s.lo:
			below++
		case v > s.hi:
			above++
		}
	}
	return below, above
}

// bulkSpan is the range that shows the bulk of every set of values
// (Bulk), joined over the sets, widened to hold marks (the
// estimates and their intervals), with a margin. One machine hiccup of
// 170 ns no longer squeezes a 19 ns spike into a line; what lies beyond
// is counted and marked at the edge.
func bulkSpan(sets [][]float64, quantum float64, marks ...float64) span {
	s := span{lo: math.Inf(1), hi: math.Inf(-1)}
	for _, values := range sets {
		if len(values) == 0 {
			continue
		}
		lo, hi := Bulk(values, quantum)
		s.lo, s.hi = min(s.lo, lo), max(s.hi, hi)
	}
	for _, m := range marks {
		if !math.IsNaN(m) && !math.IsInf(m, 0) {
			s.lo, s.hi = min(s.lo, m), max(s.hi, m)
		}
	}
	if math.IsInf(s.lo, 0) {
		return span{0, 1}
	}
	// A margin, and room for whole-quantum bins at either end.
	pad := max((s.hi-s.lo)*0.04, quantum)
	if pad == 0 {
		pad = math.Max(math.Abs(s.lo)*0.01, 1e-9)
	}
	return span{lo: s.lo - pad, hi: s.hi + pad}
}
