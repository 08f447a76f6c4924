// Package results is the saved schema of a run, defined once: where and
// how it measured (the environment, filled by packages testrun and host),
// what it measured (Measured, handed over by the root package), and what was
// found (Report: summaries, nets, comparisons, filled by package
// analysis, rendered by package report). Every other saved document is
// defined here too: the ladder's Validation (filled by internal/ladder),
// profiles (ProfileReport, internal/profile), worst packets (Worst,
// internal/worst) and runs on other kernels (KernelRun). Their JSON keys
// are the schema's, here only: package stats computes the statistics
// with no JSON keys of its own (statistics.go holds their saved form). It
// reads saved results and baselines and writes them atomically.
package results
