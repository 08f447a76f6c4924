package stats

// Default noise thresholds, from A/A experiments (docs/measurement-notes.md):
// a build against itself, interleaved, never crossed 2 %; the same build in
// separate invocations, unpaired, differed by up to 24 %, and 12 % kept
// false verdicts to 2 % of cases. Slopes of builds compared interleaved,
// over placements, resolve far finer: builds against themselves never
// crossed 0.25 %.
const (
	InterleavedNoiseThreshold      = 0.03
	InterleavedSlopeNoiseThreshold = 0.0025
	AcrossRunsNoiseThreshold       = 0.12
	// AcrossLoadsNoiseThreshold is for separate runs that each measured
	// several loads, compared group by group over the floor measured with
	// them: their intervals hold the loads' placement and what dividing
	// by the floor leaves of the machine's phases, so the threshold need
	// only say what change is too small to matter, as Criterion's 1 %
	// does. Saved default runs on a Xeon host (2026-11-28): pairs of v4
	// runs claimed 1 of 560 verdicts within a set and 7 of 1280 across
	// sets up to an hour and 12 % of floor apart; saved v3 against saved
	// v4 read all five cases improved in 29 of 32 pairs, against 18 of 32
	// at 2 % (buzz -2.5 to -5.4 %).
	AcrossLoadsNoiseThreshold = 0.01
)

// DefaultSignificance is the p-value below which a change is
// distinguishable from none.
const DefaultSignificance = 0.05

// DefaultPrecision is the relative half-width adaptive sampling brings
// an estimate to: ±1 %.
const DefaultPrecision = 0.01

// DefaultNoiseThreshold is the noise threshold for a comparison of sides
// sampled together (interleaved) or at different times, by est.
func DefaultNoiseThreshold(est Estimator, interleaved bool) float64 {
	switch {
	case interleaved && est.Fitted():
		return InterleavedSlopeNoiseThreshold
	case interleaved:
		return InterleavedNoiseThreshold
	}
	return AcrossRunsNoiseThreshold
}

// Decided says whether a change's interval c settles its verdict: whole
// beyond +threshold or -threshold (a change), or whole between them (none
// worth the name). An interval across either threshold could still go
// both ways: a 2-instruction change of 0.8 %, stopped at ±0.5 % as
// [+0.13 % +1.12 %], read "within noise" against a 0.25 % threshold.
func Decided(c Estimate, threshold float64) bool {
	return c.Lower > threshold || c.Upper < -threshold || (c.Lower > -threshold && c.Upper < threshold)
}
