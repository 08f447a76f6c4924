// Package results is the saved schema of a run, defined once: where and
// how it measured (the environment, filled by packages testrun and host),
// what it measured (Raw, handed over by internal/engine), and what was
// found (Run: summaries, nets, comparisons, filled by
// internal/engine, rendered by package report). Every other saved document is
// defined here too: the ladder's Validation (filled by internal/ladder),
// profiles (ProfileReport, internal/profile), worst packets (Worst,
// internal/worst) and runs on other kernels (KernelRun). Their JSON keys
// are the schema's, here, except for the statistics of a case
// (statistics.go): Summary, Estimate, Estimates, Outliers, Regimes, Fit,
// Level, Loads and Phase are package stats' types, which produces them,
// named here by alias, their keys on stats' fields. One twin stays two
// types: CaseComparison saves stats.Comparison's test in words
// (TestSentence), the sentences saved files hold, where stats names it by
// a code; analysis converts stats' to it, one way, once. It reads saved
// results and baselines and writes them atomically.
package results
