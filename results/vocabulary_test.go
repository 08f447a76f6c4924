package results

import (
	"testing"

	"github.com/xdpmicro/xdpmicro/stats"
)

func TestVerdictSentence(t *testing.T) {
	for v, want := range map[Verdict]string{
		Regressed:   "Performance has regressed.",
		Improved:    "Performance has improved.",
		WithinNoise: "Change within noise threshold.",
		NoChange:    "No change in performance detected.",
	} {
		if got := VerdictSentence(v); got != want {
			t.Errorf("%s: %q, want %q", v, got, want)
		}
	}
}

// Every test stats names has its own sentence, the one saved results have
// always held for it.
func TestTestSentence(t *testing.T) {
	seen := map[string]stats.Test{}
	for _, code := range []stats.Test{stats.PairedTest, stats.UnpairedTest, stats.BootstrapTest, stats.LinearTest,
		stats.PlacedTest, stats.LoadsTest, stats.FloorLoadsTest, stats.BlockedTest} {
		s := TestSentence(code)
		if s == string(code) || len(s) < 10 {
			t.Errorf("%q: no sentence (%q)", code, s)
		}
		if other, ok := seen[s]; ok {
			t.Errorf("%q and %q both say %q", code, other, s)
		}
		seen[s] = code
	}
	if got := TestSentence(stats.BlockedTest); got != "t-test over each build's loads, blocked by the group they were measured in (log scale)" {
		t.Errorf("blocked: %q", got)
	}
}
