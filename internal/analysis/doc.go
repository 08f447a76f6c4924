// Package analysis turns what a run measured (results.Measured) into its
// findings (results.Report): each case's summary and fit, its time net of
// the floor's, series by frame size, and comparisons of two builds or of
// a run against an earlier one, with their verdicts. The statistics are
// package stats'; this package decides which apply to which case.
//
// It renders nothing: package report writes what it finds.
package analysis
