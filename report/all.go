package report

import (
	"fmt"
	"io"

	"github.com/xdpmicro/xdpmicro/results"
)

// WriteAll renders the reports of several programs, each measured on its
// own, as one output: a table each, one after the other; BMF's
// benchmarks together (they are named by program and case); a JSON array
// of the reports; Go benchmark lines one report after the other.
func WriteAll(w io.Writer, reps []*results.Report, f Format, v View) error {
	switch f {
	case BMF:
		out := map[string]map[string]any{}
		for _, r := range reps {
			doc{r}.bmf(out)
		}
		return writeJSON(w, out)
	case JSON:
		return writeJSON(w, reps)
	}
	for i, r := range reps {
		if i > 0 && (f == Table || f == Markdown) {
			fmt.Fprintln(w)
		}
		if err := (doc{r}).write(w, f, v); err != nil {
			return err
		}
	}
	return nil
}
