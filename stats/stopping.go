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
	// several loads, compared by each load's time over the floor measured
	// with it: their intervals hold the loads' placement, and the
	// threshold covers what dividing by the floor leaves of the machine's
	// phases. Ten separate default v4 runs on a host whose floor moved
	// between 26 and 38 ns, compared in ten pairs: 1 % let 6 of 50
	// verdicts claim a change (6 to 10 %), 3 % 2 of 50. Since runs are
	// scaled to the machine's fast phase and their intervals hold the
	// next run's figure (issue 50), 55 pairs of separate default v4 runs
	// here claimed none of 275 at 1.5 %, 2 % or 3 %, while saved v3
	// against saved v4 read buzz's -5 to -8 % improved in 7 of 8 pairs at
	// 3 %, 8 of 8 at 2 %: Criterion's own default, 2 %.
	AcrossLoadsNoiseThreshold = 0.02
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
