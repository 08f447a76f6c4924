// Package engine measures and judges, the one home of both. The runner
// (run.go, groups.go and the files beside them) samples a run's loads
// group by group: the groups, the stopping rules, the change spread, the
// CPU moves, the recalled fast phase, live frames. The analysis
// (analysis.go, compare.go, derived.go, recalled.go) turns what was
// measured (results.Raw) into findings (results.Run): each
// case's summary and fit, its time net of the floor's, series by frame
// size, comparisons of two builds or of a run against a saved one, with
// their verdicts, and what the renderers say beyond the saved figures,
// so that package report computes nothing.
//
// The statistics are package stats', whose types the saved schema names
// as they are; a comparison of a case alone is saved in a type of its own
// (results.CaseComparison, its one conversion). testrun's results become
// the schema once, on the way out (measured.go).
//
// It takes a Config: xdpmicro.Options completed, every default decided
// there. It decides no default of its own and checks nothing its caller
// gave. The public API is package xdpmicro; the command reaches the
// engine only through it.
package engine
