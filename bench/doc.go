// Package bench orchestrates a run: from what to measure and how
// (Options) to a report, through the packages that measure (measure, on
// what object loads and host chooses), analyse (stats) and render
// (report). It chooses what the caller left to it: the estimator for the
// sampling mode, the placements of a comparison by slope, when adaptive
// sampling has enough (stats' stopping rules). The command, validate and
// other callers hand it their options and an Observer for progress; it
// writes nothing itself.
package bench
