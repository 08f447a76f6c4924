// Package analysis turns what a run measured (results.Measured) into its
// findings (results.Report): each case's summary and fit, its time net of
// the floor's, series by frame size, and comparisons of two builds or of
// a run against an earlier one, with their verdicts. The statistics are
// package stats'; this package decides which apply to which case and puts
// stats' values into the report as they are: the saved schema's
// statistics are stats' types. A comparison of a case alone is saved in
// a type of its own (CaseComparison, its one conversion). What
// the renderers say beyond the saved figures, it works out too
// (derived.go), so that report computes nothing.
//
// It renders nothing: package report writes what it finds.
package analysis
