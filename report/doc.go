// Package report renders a run's findings (results.Report) for people and
// tools: a table for the terminal, as wide and verbose as its View asks,
// Bencher Metric Format for CI dashboards, the saved schema's JSON, Go
// benchmark lines for benchstat, and the ladder's validation
// (results.Validation, which internal/ladder judges). The HTML
// page with plots is internal/htmlpage's.
//
// It computes nothing of the findings: internal/analysis does. It knows
// nothing of how the samples were taken. Files are written atomically,
// so an interrupted run never leaves half a report.
package report
