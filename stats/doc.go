// Package stats turns benchmark samples into the figures xdpmicro reports:
// bootstrap point estimates with percentile confidence intervals for the
// mean, median, standard deviation, median absolute deviation and a low
// quantile, Tukey's outlier classification, comparisons of two samples
// (relative change with its interval, a p-value, a verdict), linear
// sampling's fits (the time per run as the slope of a call's time over its
// repeat, and comparisons of slopes, over several placements of a build
// too), and a density estimate for plots, following Criterion.rs.
//
// A sample is one measurement in nanoseconds per run, as a float64; the
// kernel reports whole nanoseconds, so samples often tie, and a bootstrap
// of tied samples resamples their tally (tally.go, resample.go). Every
// function here is pure: it takes slices, never modifies them, and returns
// values. The package knows nothing of BPF, I/O or presentation.
//
// Quantiles, quartiles and medians all use one definition, [Quantile]
// (R type 7, numpy's default), which is also Criterion's.
package stats
