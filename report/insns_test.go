package report

import (
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// A comparison shows each case's counts before and after, judges them
// exactly, and says where they and the time disagree.
func TestCompareInstructions(t *testing.T) {
	res := runfixture.TwoBuilds(t) // every after sample 1.5 times its before
	before, after := res.Programs[0].Results, res.Programs[1].Results
	before[0].Instructions, after[0].Instructions = 40, 40 // slower, same instructions
	before[1].Instructions, after[1].Instructions = 40, 39 // slower, one fewer
	r := runfixture.Interleaved(t, res, stats.DefaultOptions())
	c := r.Comparison
	if c.InsnsRegressed() || len(c.Uncounted()) != 0 {
		t.Errorf("no case executes more instructions after: regressed %v, uncounted %v", c.InsnsRegressed(), c.Uncounted())
	}
	out := rendered(t, r, Table)
	if strings.Contains(out, "a helper call counts as one") {
		t.Errorf("the default table explains insns:\n%s", out)
	}
	out = flat(renderView(t, r, Table, View{Verbose: true}))
	for _, want := range []string{"│ insns ", "40 → 40", "40 → 39", "with the same 40 instructions", "a helper call counts as one"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if js := rendered(t, r, JSON); !strings.Contains(js, `"instructions_before": 40`) || !strings.Contains(js, `"instructions_after": 39`) {
		t.Errorf("JSON lacks the counts")
	}

	// One more instruction after is a regression, however small.
	after[1].Instructions = 41
	r = runfixture.Interleaved(t, res, stats.DefaultOptions())
	if !r.Comparison.InsnsRegressed() {
		t.Error("40 → 41 instructions not judged a regression")
	}
	// A case not counted on one side cannot be judged.
	after[0].Instructions, after[0].NoCount = 0, "not counted: no room"
	r = runfixture.Interleaved(t, res, stats.DefaultOptions())
	if un := r.Comparison.Uncounted(); len(un) != 1 || un[0] != before[0].Name {
		t.Errorf("uncounted %v, want [%s]", un, before[0].Name)
	}
	if out := rendered(t, r, Table); !strings.Contains(out, "40 → —") {
		t.Errorf("table lacks the missing count:\n%s", out)
	}
}

// A program's cases without counts say why once, under the table.
func TestNoCountNote(t *testing.T) {
	res := runfixture.SampleResult(t)
	for i := range res.Programs[0].Results {
		res.Programs[0].Results[i].NoCount = "not counted: the verifier said no"
	}
	r, err := engine.New(results.Settings{Confidence: 0.95}, res, stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	out := rendered(t, r, Table)
	if strings.Count(out, "instructions not counted: the verifier said no") != 1 || strings.Contains(out, "a helper call counts as one") {
		t.Errorf("want the reason once and no note on counts:\n%s", out)
	}
	if bmf := rendered(t, r, BMF); strings.Contains(bmf, "instructions") {
		t.Errorf("BMF has an instructions measure without counts:\n%s", bmf)
	}
}

// Where a case's instruction count changed, a note names the lines whose
// counts changed most, and the command that gives them all: by default
// one line for the cases that share them, by case under --verbose.
func TestLinesChangedNote(t *testing.T) {
	res := runfixture.TwoBuilds(t)
	before, after := res.Programs[0].Results, res.Programs[1].Results
	before[0].Instructions, after[0].Instructions = 206, 44
	r := runfixture.Interleaved(t, res, stats.DefaultOptions())
	r.Comparison.Cases[0].LinesChanged = []results.LineChange{{Line: "fizzbuzz.c:72", Before: 147, After: 0}, {Line: "fizzbuzz.c:83", Before: 0, After: 11}}
	out := flat(rendered(t, r, Table))
	for _, want := range []string{"instructions changed most on fizzbuzz.c:72, fizzbuzz.c:83: fizz", "xdpmicro profile --before OLD --after NEW"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	verbose := flat(renderView(t, r, Table, View{Verbose: true}))
	if want := "fizz: 206 → 44 instructions, most changed on fizzbuzz.c:72 -147, fizzbuzz.c:83 +11"; !strings.Contains(verbose, want) {
		t.Errorf("--verbose lacks %q:\n%s", want, verbose)
	}
	if js := rendered(t, r, JSON); !strings.Contains(js, `"lines_changed"`) {
		t.Errorf("JSON lacks the lines changed")
	}
}

// The comparison CI printed in 26 lines: four cases improved and one,
// fewer instructions, whose interval crossed the threshold, with severe
// outliers on every case. An unsettled case's note says its verdict is
// open, so no second note claims its time did not change, and the
// output keeps within maxLines.
func TestUnsettledCaseInAtAGlance(t *testing.T) {
	r := comparedRun(packets.Classes(), 4, results.Outliers{HighMild: 22, HighSevere: 15}, -0.075, stats.Improved, 0.016)
	fizz := &r.Comparison.Cases[0]
	fizz.Verdict = stats.WithinNoise
	fizz.Change = results.Estimate{Point: -0.0182, Lower: -0.0343, Upper: -0.0018}
	out := rendered(t, r, Table)
	checkWidth(t, out)
	if n := strings.Count(out, "\n"); n > maxLines {
		t.Errorf("%d lines, want at most %d:\n%s", n, maxLines, out)
	}
	if strings.Contains(flat(out), "no change in time") {
		t.Errorf("an unsettled case is said not to have changed:\n%s", out)
	}
	if !strings.Contains(flat(out), "its verdict is not settled") {
		t.Errorf("the unsettled case has no note:\n%s", out)
	}

	// Settled within the threshold, the same case's fewer instructions
	// did not move its time: that is said.
	fizz.Change = results.Estimate{Point: -0.0005, Lower: -0.0015, Upper: 0.0010}
	if out := flat(rendered(t, r, Table)); !strings.Contains(out, "fizz: -152 instructions, but no change in time") {
		t.Errorf("a settled case's hidden instructions not named:\n%s", out)
	}
}
