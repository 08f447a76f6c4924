package xdpmicro_test

import (
	"context"
	"errors"
	"testing"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// Runs saved by the engine's tests: a before/after run, and one sampled
// flat.
const (
	savedBeforeAfter = "internal/engine/testdata/before-after.json"
	savedFlat        = "internal/engine/testdata/flat.json"
)

// A saved run analysed again takes its own settings where none are
// given, and those given where they are.
func TestAnalyzeDefaultsToTheFile(t *testing.T) {
	saved, err := results.Read(savedBeforeAfter)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rep, err := xdpmicro.Analyze(ctx, saved, xdpmicro.AnalyzeOptions{Stats: stats.Options{Resamples: 1000}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Comparison
	if s := rep.Settings; s.Estimator != saved.Settings.Estimator || s.Confidence != saved.Settings.Confidence || s.Resamples != 1000 {
		t.Errorf("settings %+v: want the file's estimator and confidence, 1000 resamples", s)
	}
	if c == nil || c.Significance != saved.Comparison.Significance || c.NoiseThreshold != saved.Comparison.NoiseThreshold {
		t.Fatalf("comparison %+v: want the file's significance and noise threshold", c)
	}
	rep, err = xdpmicro.Analyze(ctx, saved, xdpmicro.AnalyzeOptions{Stats: stats.Options{Resamples: 1000, Confidence: 0.9},
		Estimator: stats.Mean, NoiseThreshold: xdpmicro.NoNoiseThreshold}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, c := rep.Settings, rep.Comparison; s.Estimator != stats.Mean || s.Confidence != 0.9 || c.NoiseThreshold != 0 {
		t.Errorf("estimator %s, confidence %g, noise threshold %g: want mean, 0.9 and none, as given", s.Estimator, s.Confidence, c.NoiseThreshold)
	}
}

// What a saved run cannot be analysed by is bad input.
func TestAnalyzeBadInput(t *testing.T) {
	flat, err := results.Read(savedFlat)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, tc := range map[string]struct {
		saved *results.Run
		o     xdpmicro.AnalyzeOptions
	}{
		"no run":                {nil, xdpmicro.AnalyzeOptions{}},
		"a slope of flat":       {flat, xdpmicro.AnalyzeOptions{Estimator: stats.Slope}},
		"no estimator":          {flat, xdpmicro.AnalyzeOptions{Estimator: "fastest"}},
		"a confidence of 2":     {flat, xdpmicro.AnalyzeOptions{Stats: stats.Options{Confidence: 2}}},
		"a noise threshold < 0": {flat, xdpmicro.AnalyzeOptions{NoiseThreshold: -0.5}},
	} {
		if _, err := xdpmicro.Analyze(ctx, tc.saved, tc.o, nil); !errors.Is(err, xdpmicro.ErrBadInput) {
			t.Errorf("%s: got %v, want ErrBadInput", name, err)
		}
	}
}
