package report

import (
	"fmt"
	"io"

	"github.com/xdpmicro/xdpmicro/results"
)

// WriteAll renders the reports of several programs, each measured on its
// own, as one output (KindRuns): a table each, one after the other; BMF's
// benchmarks together (they are named by program and case); a JSON array
// of the reports; Go benchmark lines one report after the other.
func WriteAll(w io.Writer, reps []*results.Run, f Format, v View) error {
	r, ok := lookup(KindRuns, f)
	if !ok {
		return fmt.Errorf("%w %q", ErrFormat, f)
	}
	return r.render(w, reps, v)
}

// withSeveralRuns adds to rows, for each format of a run, the same format
// of several programs' runs: the run's own several, or the runs one after
// another, a blank line between those for reading. A run's format is so
// one row of the registry.
func withSeveralRuns(rows []rendering) []rendering {
	out := rows
	for _, r := range rows {
		if r.kind != KindRun {
			continue
		}
		several, one, apart := r.several, r.render, r.apart
		if several == nil {
			several = func(w io.Writer, reps []*results.Run, v View) error {
				for i, rep := range reps {
					if i > 0 && apart {
						fmt.Fprintln(w)
					}
					if err := one(w, rep, v); err != nil {
						return err
					}
				}
				return nil
			}
		}
		out = append(out, rendering{kind: KindRuns, format: r.format, forPeople: r.forPeople, note: r.note,
			render: func(w io.Writer, x any, v View) error { return several(w, x.([]*results.Run), v) }})
	}
	return out
}

// severalBMF puts several programs' benchmarks in one BMF document: they
// are named by program and case.
func severalBMF(w io.Writer, reps []*results.Run, _ View) error {
	out := map[string]map[string]any{}
	for _, r := range reps {
		doc{r}.bmf(out)
	}
	return writeJSON(w, out)
}

// severalJSON is a JSON array of the reports.
func severalJSON(w io.Writer, reps []*results.Run, _ View) error { return writeJSON(w, reps) }
