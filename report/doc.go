// Package report turns a run's samples into what people and tools read:
// a table for the terminal, Bencher Metric Format for CI dashboards, and a
// JSON document holding everything (configuration, environment, packets,
// raw samples, estimates, outliers) for later comparison.
//
// It computes statistics with package stats and presents them; it knows
// nothing of how the samples were taken. Files are written atomically, so
// an interrupted run never leaves half a report.
package report
