package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
)

// The renderer shows what package ladder judged: its failures, and whether
// the fine rungs' order was checked.
func TestWriteValidation(t *testing.T) {
	est := results.Estimate{Point: 10, Lower: 9, Upper: 11}
	for _, checked := range []bool{false, true} {
		v := &results.Validation{
			Steps: []int{0, 8}, Names: []string{"ladder_0", "ladder_8"}, BaseSteps: 16, MaxSpread: 0.05,
			Runs:   []results.ValidationRun{{Estimates: []results.Estimate{est, est}, Net: []results.Estimate{est, est}, Steps: []results.Estimate{{}, est}}},
			Spread: []float64{0.01, 0.02}, SpreadLimits: []float64{0.05, 0.05}, RunShifts: []float64{0}, RunFactors: []float64{1},
			Fine: &results.FineValidation{Base: 8, Steps: []int{2}, BaseName: "ladder_8", Names: []string{"fine_2"},
				Differences: [][]results.Estimate{{est}}, Neighbours: [][]results.Estimate{{est}}, Checked: checked},
			Failures: []string{"ladder_8 is not slower than ladder_0"},
		}
		var buf bytes.Buffer
		if err := writeValidationText(&buf, v); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.Contains(out, "fine_2") || checked == strings.Contains(out, "not checked") || !strings.Contains(out, "FAILED: ladder_8 is not slower") {
			t.Errorf("checked %v:\n%s", checked, out)
		}
		buf.Reset()
		if err := writeValidationJSON(&buf, v); err != nil || !strings.Contains(buf.String(), `"ns_per_fine_step"`) {
			t.Errorf("JSON: %v\n%s", err, buf.String())
		}
	}
}

// Several runs show their differences taken together, and each run's
// resolution beside theirs; one run shows its own, alone.
func TestWriteValidationRuns(t *testing.T) {
	est, together := results.Estimate{Point: 10, Lower: 8, Upper: 12}, results.Estimate{Point: 10, Lower: 9, Upper: 11}
	for _, runs := range []int{1, 3} {
		v := &results.Validation{Steps: []int{0, 8}, Names: []string{"ladder_0", "ladder_8"}, BaseSteps: 16, MaxSpread: 0.05,
			Combined: []results.Estimate{{}, together}, Resolution: 1, RunResolution: 2,
			Spread: []float64{0.01, 0.02}, SpreadLimits: []float64{0.05, 0.05}}
		for range runs {
			v.Runs = append(v.Runs, results.ValidationRun{Estimates: []results.Estimate{est, est}, Net: []results.Estimate{est, est}, Steps: []results.Estimate{{}, est}})
			v.RunShifts, v.RunFactors = append(v.RunShifts, 0), append(v.RunFactors, 1)
		}
		var buf bytes.Buffer
		if err := writeValidationText(&buf, v); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		several := runs > 1
		if strings.Contains(out, "the 3 runs together") != several || strings.Contains(out, "±2.00 ns in one") != several ||
			strings.Contains(out, "+10.00 [+9.00 +11.00] ns") != several {
			t.Errorf("%d runs:\n%s", runs, out)
		}
	}
}
