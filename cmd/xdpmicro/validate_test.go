package main

import (
	"encoding/json"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/report"
)

// validateAttempts: a shared machine's slow phase can shift one whole
// validation (spreads of 3-9 % seen while another VM was busy); a ladder
// or timer that is broken fails every attempt.
const validateAttempts = 3

// The ladder's figures, as `go test -run Validation -v ./cmd/xdpmicro`
// prints them. The test passes when the command does: every check of
// `xdpmicro validate` holds, in one of validateAttempts tries, each of
// whose figures must be sound.
func TestValidation(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	for attempt := 1; ; attempt++ {
		code, v := validateOnce(t)
		if code == 0 {
			return
		}
		if attempt == validateAttempts {
			t.Fatalf("validate failed %d times; the last: %q", attempt, v.Failures)
		}
		t.Logf("attempt %d: validate exits %d: %q", attempt, code, v.Failures)
	}
}

// validateOnce runs validate, checks its figures are those of a ladder,
// and returns its exit code.
func validateOnce(t *testing.T) (int, report.Validation) {
	t.Helper()
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
	if (code == 0) != (len(v.Failures) == 0) {
		t.Errorf("validate exits %d with failures %q: the verdict and the checks disagree", code, v.Failures)
	}
	return code, v
}
