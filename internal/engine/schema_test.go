package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// Saved runs, written when results' statistics were stats' own types with
// JSON keys, read into results' types and written again give the same
// document: every key they hold is still the schema's, none renamed.
func TestSavedRunsRoundTrip(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no saved runs: %v", err)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var rep results.Run
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		again, err := json.Marshal(&rep)
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(again, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: written again, it differs", path)
		}
	}
}

// A summary as stats computed it is saved under the keys saved files
// hold, its fit's resamples left out: read back, the fit no longer pairs
// with the one it was (stats.Fit.Minus), and Of and Own read it as stats
// does.
func TestSummarySaved(t *testing.T) {
	samples := make([]float64, 40)
	runs, wall := make([]uint32, 40), make([]float64, 40)
	for i := range samples {
		samples[i] = 10 + float64(i%7)
		runs[i] = uint32(1000 * (1 + i%4))
		wall[i] = 300 + 10*float64(runs[i]) + float64(i%5)
	}
	opts := stats.Options{Confidence: 0.95, Resamples: 1000, Seed: 1}
	s, err := stats.Summarize(samples, opts)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := stats.FitLinear(timings(runs, wall), stats.FitOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	s.Fit = &fit
	l, err := stats.OverGroupedLoads([]float64{10, 11, 12, 10.5}, 2, stats.Low, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	l.Phase = &stats.Phase{Slowest: 1.2, Fast: 1, Groups: 2}
	s.Loads = &l
	r := &s
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"n", "estimates", "outliers", "min", "max", "regimes", "fit", "loads"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("no key %q in %s", k, data)
		}
	}
	var fitKeys, loadKeys map[string]json.RawMessage
	if json.Unmarshal(keys["fit"], &fitKeys) != nil || json.Unmarshal(keys["loads"], &loadKeys) != nil {
		t.Fatal("fit or loads not an object")
	}
	for _, k := range []string{"slope", "intercept", "ols_slope", "ols_intercept", "r2", "levels", "level_quantile"} {
		if _, ok := fitKeys[k]; !ok {
			t.Errorf("no key %q in the fit", k)
		}
	}
	if len(fitKeys) != 7 {
		t.Errorf("the fit saves %d keys, want 7: %s", len(fitKeys), keys["fit"])
	}
	for _, k := range []string{"estimator", "estimate", "points", "std_dev", "spread", "per_group", "phase"} {
		if _, ok := loadKeys[k]; !ok {
			t.Errorf("no key %q in the loads", k)
		}
	}
	var back results.Summary
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if _, ok := fit.Minus(&fit, stats.Slope, 0.95); !ok {
		t.Error("the fit stats made does not pair with itself")
	}
	if _, ok := fit.Minus(back.Fit, stats.Slope, 0.95); ok {
		t.Error("a fit read back pairs with the fit it was")
	}
	if back.Of(stats.Low) != l.Estimate || back.Own(stats.Mean) != s.Estimates.Mean || back.Own(stats.Slope) != fit.Slope {
		t.Errorf("Of and Own of the summary read back: %+v", back)
	}
	if !reflect.DeepEqual(*back.Loads, l) {
		t.Errorf("loads there and back: %+v, want %+v", *back.Loads, l)
	}
}

// A comparison's test is saved in the words saved files hold, not stats'
// code.
func TestCaseComparisonSaysTheTest(t *testing.T) {
	c := CaseComparison(stats.Comparison{Test: stats.PairedTest, Verdict: stats.Regressed})
	if c.Test != results.PairedTest || c.Test == string(stats.PairedTest) || c.Verdict != results.Regressed {
		t.Errorf("%+v", c)
	}
}
