package main

import (
	"encoding/json"
	"testing"

	"github.com/xdpmicro/xdpmicro/report"
)

// The ladder's figures, as `go test -run Validation -v ./cmd/xdpmicro`
// prints them. The test passes when the command does: every check of
// `xdpmicro validate` holds.
func TestValidation(t *testing.T) {
	requireBPF(t)
	code, stdout, stderr := xdpmicro("validate", "--runs", "2", "--time", "5s", "--json")
	var v report.Validation
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("exit %d, not JSON: %v\n%s\nstderr: %s", code, err, stdout, stderr)
	}
	if len(v.Runs) != 2 || len(v.Steps) != len(v.Runs[0].Estimates) {
		t.Fatalf("%d runs of %d programs", len(v.Runs), len(v.Steps))
	}
	t.Logf("ns per step %.3f, intercept %.2f ns, R² %.4f, largest residual %.2f ns, resolution ±%.2f ns, spread %v, failures %q",
		v.PerStep, v.Intercept, v.R2, v.MaxResidual, v.Resolution, v.Spread, v.Failures)
	if v.Fine == nil || len(v.Fine.Differences) != 2 || len(v.Fine.Differences[0]) != len(v.Fine.Steps) {
		t.Fatalf("fine rungs: %+v", v.Fine)
	}
	t.Logf("fine rungs: %.3f ns per fine step, in order %d of %d, resolution ±%.2f ns, checked %v (timer quantum %g ns)",
		v.Fine.PerStep, v.Fine.InOrder, v.Fine.Pairs, v.Fine.Resolution, v.Fine.Checked, v.TimerResolution)
	if v.Fine.Checked != (v.TimerResolution < 1) {
		t.Errorf("fine rungs checked %v with a timer quantum of %g ns", v.Fine.Checked, v.TimerResolution)
	}
	if v.PerStep <= 0 || v.R2 < 0.9 {
		t.Errorf("the ladder is not a ladder: %.3f ns per step, R² %.4f", v.PerStep, v.R2)
	}
	last := len(v.Steps) - 1
	for _, run := range v.Runs {
		if run.Estimates[last].Point <= run.Estimates[0].Point {
			t.Errorf("ladder_%d (%.2f ns) not slower than ladder_0 (%.2f ns)", v.Steps[last], run.Estimates[last].Point, run.Estimates[0].Point)
		}
	}
	if code != 0 {
		t.Errorf("validate exits %d: %s; failures: %q", code, stderr, v.Failures)
	}
}
