// Package stats turns benchmark samples into the figures xdpmicro reports:
// bootstrap point estimates with percentile confidence intervals for the
// mean, median, standard deviation and median absolute deviation, and
// Tukey's outlier classification, following Criterion.rs.
//
// A sample is one measurement in nanoseconds per run, as a float64; the
// kernel reports whole nanoseconds, so samples often tie. Every function
// here is pure: it takes []float64, never modifies it, and returns values.
// The package knows nothing of BPF, I/O or presentation. Comparisons
// between benchmarks belong here too when they come.
//
// Quantiles, quartiles and medians all use one definition, [Quantile]
// (R type 7, numpy's default), which is also Criterion's.
package stats
