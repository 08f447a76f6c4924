// Package report turns a run's samples into what people and tools read:
// a table for the terminal, Bencher Metric Format for CI dashboards, a
// JSON document holding everything (configuration, environment, packets,
// raw samples, estimates, outliers, comparisons) for later comparison and
// as baselines, Go benchmark lines for benchstat, a static HTML page with
// plots, and the progress bar drawn while measuring.
//
// It computes statistics with package stats and presents them; it knows
// nothing of how the samples were taken. Files are written atomically, so
// an interrupted run never leaves half a report.
package report
