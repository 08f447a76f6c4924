// Package results is the saved schema of a run: where and how it
// measured (the environment), defined once, filled by the packages that
// measure (package measure, host) and read by those that analyse and render it.
// Its JSON keys are the schema's.
package results
