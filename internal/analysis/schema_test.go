package analysis

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
		var rep results.Report
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

// A summary stats computed, copied into results, is saved under the keys
// saved files hold, and its fit keeps what pairs it with another fit.
func TestSummaryCopied(t *testing.T) {
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
	r := Summary(s)
	if r.Fit.Computed != &fit || StatsFit(r.Fit) != &fit {
		t.Error("the copied fit lost the fit stats made")
	}
	if r.Of(stats.Low) != Estimate(l.Estimate) || r.Own(stats.Mean) != Estimate(s.Estimates.Mean) || r.Own(stats.Slope) != Estimate(fit.Slope) {
		t.Errorf("Of and Own differ from stats': %+v", r)
	}
	if back := StatsLoads(*r.Loads); !reflect.DeepEqual(back, l) {
		t.Errorf("loads there and back: %+v, want %+v", back, l)
	}
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
	if _, ok := fitKeys["Computed"]; ok {
		t.Error("the fit stats made is saved")
	}
	for _, k := range []string{"estimator", "estimate", "points", "std_dev", "spread", "per_group", "phase"} {
		if _, ok := loadKeys[k]; !ok {
			t.Errorf("no key %q in the loads", k)
		}
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
