// Package stopping decides when adaptive sampling has enough: each side's
// estimate known to a precision, or two builds' change settled. It is the
// orchestrator's policy, built on package stats' estimates; stats itself
// only computes them.
package stopping
