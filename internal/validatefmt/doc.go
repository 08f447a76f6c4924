// Package validatefmt renders what validate found of the bundled ladder
// (results.Validation, judged by internal/ladder): a table of the rungs
// and the checks' figures for people, and JSON. report's registry of
// formats calls it; it renders what results holds and judges nothing.
package validatefmt
