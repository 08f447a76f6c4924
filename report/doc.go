// Package report renders a run's findings (results.Report) for people and
// tools: a table for the terminal, as wide and verbose as its View asks,
// Bencher Metric Format for CI dashboards, the saved schema's JSON, Go
// benchmark lines for benchstat, a static HTML page with plots, and the
// ladder's validation.
//
// It computes nothing of the findings: package analysis does, and gives
// the plots the bulk and the density of a sample. It imports no
// statistics and knows nothing of how the samples were taken. Files are written atomically, so
// an interrupted run never leaves half a report.
package report
