// Package analysis turns what a run measured (results.Measured) into its
// findings (results.Report): each case's summary and fit, its time net of
// the floor's, series by frame size, and comparisons of two builds or of
// a run against an earlier one, with their verdicts. The statistics are
// package stats'; this package decides which apply to which case, and
// copies stats' values into the saved schema's types (convert.go). What
// the renderers say beyond the saved figures, it works out too
// (derived.go), so that report computes nothing.
//
// It renders nothing: package report writes what it finds.
package analysis
