package report

import (
	"strings"
	"testing"
)

// The table says what analysis worked out, and nothing where it worked
// out nothing: report computes neither.
func TestPooledNoteFromAnalysis(t *testing.T) {
	r := newReport(t)
	const note = "a call's own cost is under 0.05 %"
	if out := flat(renderView(t, r, Table, View{Verbose: true})); strings.Contains(out, note) {
		t.Errorf("a note of pooling where analysis found none:\n%s", out)
	}
	r.PooledFrom = 123456
	if out := flat(renderView(t, r, Table, View{Verbose: true})); !strings.Contains(out, "from repeat 123456 "+note) {
		t.Errorf("no note of pooling from repeat 123456:\n%s", out)
	}
}
