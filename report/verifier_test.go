package report

import (
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
)

func TestVerifierLines(t *testing.T) {
	load := func(us, processed, states uint64, jit int) results.Program {
		return results.Program{Verifier: &results.Verifier{TimeMicros: us, Processed: processed, TotalStates: states, PeakStates: states, JITBytes: jit}}
	}
	before := load(300, 265, 11, 399)
	before.Placements = []results.Program{load(100, 265, 11, 399), load(200, 265, 11, 399)}
	after := load(90, 99, 9, 377)

	if got, want := verifierNote(before).text, "verifier: 265 insns processed, 11 states (peak 11), 399 B JIT; 200 [100 300] µs over 3 loads"; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	change := func(b, a results.Program) note {
		return verifierChange(&results.VerifierChange{Before: *b.Verifier, After: *a.Verifier, BeforeTimes: b.VerificationTimes(), AfterTimes: a.VerificationTimes()})
	}
	if got, want := change(before, after).text, "verifier: insns processed 265 → 99 (-166, -62.6 %), states 11 → 9 (-2, -18.2 %), JIT 399 → 377 B (-22, -5.5 %)"; got != want {
		t.Errorf("change %q, want %q", got, want)
	}
	if got, want := change(after, after).text, "verifier: insns processed 99 (=), states 9 (=), JIT 377 B (=)"; got != want {
		t.Errorf("no change %q, want %q", got, want)
	}
	if n := verifierNote(results.Program{}); n.text != "" {
		t.Errorf("a program without statistics: %q", n.text)
	}
	if n := verifierChange(nil); n.text != "" {
		t.Errorf("a comparison without statistics: %q", n.text)
	}
}

func TestTimeVerdict(t *testing.T) {
	for _, tc := range []struct {
		before, after []uint64
		want          string
	}{
		{[]uint64{100, 120, 140}, []uint64{150, 160, 170}, "slower"},
		{[]uint64{100, 120, 140}, []uint64{50, 60, 99}, "faster"},
		{[]uint64{100, 120, 140}, []uint64{130, 200, 300}, "within spread"},
		{nil, []uint64{1}, ""},
	} {
		if got := timeVerdict(tc.before, tc.after); got != tc.want {
			t.Errorf("%v → %v: %q, want %q", tc.before, tc.after, got, tc.want)
		}
	}
}

// A build the verifier refuses shows as such beside the one it accepted.
func TestVerificationChangeRefused(t *testing.T) {
	before := results.Verifier{Verdict: results.VerdictSuccess, Processed: 99, TotalStates: 9}
	after := results.Verifier{Verdict: results.VerdictFailure, Reason: "invalid access to packet", Processed: 12}
	v := &results.Verification{Object: "new.o", Before: "old.o", Kernel: "6.18", Programs: []results.VerifiedProgram{{
		Info: results.ProgramInfo{Name: "prog"}, Loads: []results.Verifier{after}, Before: []results.Verifier{before},
		Change: &results.VerifierChange{Before: before, After: after},
	}}}
	var b strings.Builder
	if err := writeVerificationTable(&b, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "now refused") || !strings.Contains(b.String(), "failure") {
		t.Errorf("the table does not show the refusal:\n%s", b.String())
	}
}
