// Package figures prints what the table and the HTML page both print:
// nanoseconds, p-values, verdicts, repeats and a linear case's call times.
// It lives apart so that the page, internal, and report, public, print
// them alike without report exporting its formatting.
package figures
