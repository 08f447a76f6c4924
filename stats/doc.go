// Package stats turns benchmark samples into the figures xdpmicro reports:
// bootstrap point estimates with percentile confidence intervals for the
// mean, median, standard deviation and median absolute deviation, Tukey's
// outlier classification, comparisons of two samples (relative change with
// its interval, a p-value, a verdict), and a density estimate for plots,
// following Criterion.rs.
//
// A sample is one measurement in nanoseconds per run, as a float64; the
// kernel reports whole nanoseconds, so samples often tie. Every function
// here is pure: it takes []float64, never modifies it, and returns values.
// The package knows nothing of BPF, I/O or presentation.
//
// Quantiles, quartiles and medians all use one definition, [Quantile]
// (R type 7, numpy's default), which is also Criterion's.
package stats
