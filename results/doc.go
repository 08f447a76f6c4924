// Package results is the saved schema of a run, defined once: where and
// how it measured (the environment, filled by packages measure and host),
// what it measured (Measured, handed over by the root package), and what was
// found (Report: summaries, nets, comparisons, filled by package
// analysis, rendered by package report). Its JSON keys are the schema's;
// it reads saved results and baselines and writes them atomically.
package results
