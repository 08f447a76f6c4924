package report

import (
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
)

// The phase note says how far a run followed its floor, and why: the
// history's drift, or, on a history too short to know it, the drift
// taken for it.
func TestPhaseNoteShare(t *testing.T) {
	for _, tt := range []struct {
		name  string
		phase results.Phase
		want  string
	}{
		{"as measured", results.Phase{Share: 0}, "its figures stand as measured"},
		{"the history's drift", results.Phase{Share: 0.9}, "followed 90 %: as far as the runs before it moved"},
		{"drift taken", results.Phase{Share: 0.85, DriftAssumed: true}, "followed 85 %: the runs before it are too few to say how far that phase moves, taken as 2 %"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ph := tt.phase
			ph.Slowest, ph.Recalled, ph.RecalledRuns, ph.RunFloor = 1, 6, 3, 6.2
			r := &results.Run{Programs: []results.Program{{Results: []results.Case{{Stats: &results.Summary{Loads: &results.Loads{Phase: &ph}}}}}}}
			n, ok := doc{r}.phaseNote()
			if !ok || !strings.Contains(n.text, tt.want) {
				t.Errorf("note %q, want %q", n.text, tt.want)
			}
		})
	}
}
