// Package ladder judges a ladder of programs of known relative cost, the
// bundled ladder_N programs and their fine rungs, measured together with
// the empty program in several runs: every program slower than the one
// before, the net cost linear in the steps, each estimate reproducible
// from run to run, and the fine rungs a few instructions apart told
// apart. It computes and decides; report renders the figures.
package ladder
