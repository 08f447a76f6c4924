// Package stats turns benchmark samples into the figures xdpmicro reports,
// following Criterion.rs: bootstrap estimates with percentile intervals
// (mean, median, standard deviation, MAD, a low quantile), Tukey's
// outliers, comparisons (relative change, interval, p-value, verdict),
// linear sampling's fits and comparisons of slopes over several loads.
//
// A sample is one measurement in nanoseconds per run, as a float64; the
// kernel reports whole nanoseconds, so samples often tie, and a bootstrap
// of tied samples resamples their tally (tally.go, resample.go). Every
// function here is pure: it takes slices, never modifies them, and returns
// values. The package knows nothing of BPF, I/O or presentation. Its
// statistics of a case (Summary and what it holds: Estimate, Estimates,
// Outliers, Regimes, Fit, Level, Loads, Phase) are also the saved
// schema's: package results names them, and their JSON keys, here, are
// those saved files have always had, so that a change to a key is a
// change to the schema. What it names, a test or a verdict, it names by
// a code, which results says in words.
//
// Quantiles, quartiles and medians all use one definition, [Quantile]
// (R type 7, numpy's default), which is also Criterion's.
package stats
