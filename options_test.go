package xdpmicro

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Complete fills every default, nested ones included, and completing
// completed options changes nothing: Run completes what a caller may
// have completed already.
func TestCompleteDefaults(t *testing.T) {
	one := []Program{{}}
	o, err := Options{Programs: one}.Complete()
	if err != nil {
		t.Fatal(err)
	}
	def := stats.DefaultOptions()
	switch {
	case o.Estimator != stats.Slope || o.Sampling != testrun.SamplingLinear:
		t.Errorf("estimator %s, sampling %s: want slope, linear", o.Estimator, o.Sampling)
	case o.Budget != DefaultBenchBudget || o.Warmup != DefaultWarmup || o.Precision != stats.DefaultPrecision:
		t.Errorf("budget %s, warm-up %s, precision %g", o.Budget, o.Warmup, o.Precision)
	case o.Placements != DefaultLoads:
		t.Errorf("%d placements", o.Placements)
	case o.Stats.Confidence != def.Confidence || o.Stats.Resamples != def.Resamples || o.Stats.Seed != def.Seed || o.Stats.LowQuantile != stats.DefaultLowQuantile:
		t.Errorf("stats %+v", o.Stats)
	case o.Compare.Options != o.Stats || o.Compare.Significance != stats.DefaultSignificance || o.Compare.Quantum != testrun.Resolution:
		t.Errorf("compare %+v", o.Compare)
	case o.Compare.NoiseThreshold != stats.DefaultNoiseThreshold(stats.Slope, false) || !o.Compare.ThresholdChosen || o.Compare.Estimator != stats.Slope:
		t.Errorf("compare's threshold %+v", o.Compare)
	}
	again, err := o.Complete()
	if err != nil || !reflect.DeepEqual(again, o) {
		t.Errorf("completed twice: %+v, %v; want %+v", again, err, o)
	}
	if !reflect.DeepEqual(Defaults(), withDefaults(Options{})) || Defaults().Budget != o.Budget {
		t.Error("Defaults are not the zero Options completed")
	}

	// The sentinels stay, so that a second completion keeps them.
	fixed, err := Options{Programs: one, Precision: FixedSamples, Warmup: NoWarmup, Compare: stats.CompareOptions{NoiseThreshold: NoNoiseThreshold}}.Complete()
	if err != nil {
		t.Fatal(err)
	}
	again, _ = fixed.Complete()
	if fixed.Precision != FixedSamples || fixed.Warmup != NoWarmup || fixed.Budget != 0 || !reflect.DeepEqual(again, fixed) {
		t.Errorf("fixed rounds completed to precision %g, warm-up %s, budget %s", fixed.Precision, fixed.Warmup, fixed.Budget)
	}
	c, err := fixed.config()
	if err != nil || c.Precision != 0 || c.Warmup != 0 || c.Compare.NoiseThreshold != 0 {
		t.Errorf("the engine took precision %g, warm-up %s, threshold %g (%v); want testrun's zeros", c.Precision, c.Warmup, c.Compare.NoiseThreshold, err)
	}

	// The comparison's statistics are the run's, each field the caller
	// set.
	asked, _ := Options{Programs: one, Stats: stats.Options{Confidence: 0.99, LowQuantile: 0.05}}.Complete()
	if asked.Compare.Options != asked.Stats || asked.Stats.Resamples != def.Resamples {
		t.Errorf("stats %+v, the comparison's %+v", asked.Stats, asked.Compare.Options)
	}

	// Flat sampling, a comparison and live frames take their own defaults.
	flat, _ := Options{Programs: one, Sampling: testrun.SamplingFlat}.Complete()
	cmp, _ := Options{Programs: []Program{{}, {}}, Compared: true}.Complete()
	live, _ := Options{Programs: one, Live: true}.Complete()
	switch {
	case flat.Estimator != stats.Low:
		t.Errorf("flat sampling's estimator %s", flat.Estimator)
	case cmp.Budget != DefaultBudget || cmp.Placements != DefaultPlacements || cmp.Compare.NoiseThreshold != stats.DefaultNoiseThreshold(stats.Slope, true):
		t.Errorf("a comparison's budget %s, placements %d, threshold %g", cmp.Budget, cmp.Placements, cmp.Compare.NoiseThreshold)
	case !reflect.DeepEqual(live.Compare, cmp.Compare) || live.Budget != cmp.Budget || live.Placements != cmp.Placements:
		t.Errorf("live frames' defaults %+v differ from a comparison's", live)
	}
}

// Complete checks the nested options too, each field the caller set,
// before anything is loaded.
func TestCompleteChecks(t *testing.T) {
	one := []Program{{}}
	for name, o := range map[string]Options{
		"confidence":       {Stats: stats.Options{Confidence: 1.5}},
		"resamples":        {Stats: stats.Options{Resamples: 1}},
		"low quantile":     {Stats: stats.Options{LowQuantile: 0.7}},
		"compare's conf.":  {Compare: stats.CompareOptions{Options: stats.Options{Confidence: -1}}},
		"significance":     {Compare: stats.CompareOptions{Significance: 2}},
		"noise threshold":  {Compare: stats.CompareOptions{NoiseThreshold: 1.5}},
		"negative noise":   {Compare: stats.CompareOptions{NoiseThreshold: -0.5}},
		"slope, flat":      {Sampling: testrun.SamplingFlat, Estimator: stats.Slope},
		"sampling":         {Sampling: "sideways"},
		"estimator":        {Estimator: "best"},
		"min to precision": {Estimator: stats.Min},
		"warm-up":          {Warmup: -2 * time.Second},
	} {
		o.Programs = one
		if _, err := o.Complete(); !errors.Is(err, ErrOptions) || !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: %v, want ErrOptions", name, err)
		}
	}
}

// Complete decides how many loads a group holds: two of a program alone,
// every load at once comparing, four for calls of a long repeat, and
// never more than the loads.
func TestCompleteGroupLoads(t *testing.T) {
	one, two := []Program{{}}, []Program{{}, {}}
	for _, tt := range []struct {
		name string
		o    Options
		want int
	}{
		{"alone", Options{Programs: one}, DefaultGroupLoads},
		{"compared", Options{Programs: two, Compared: true}, DefaultPlacements},
		{"live frames", Options{Programs: one, Live: true}, DefaultPlacements},
		{"long calls", Options{Programs: one, Placements: 16, Repeat: engine.LongRepeat}, LongRepeatLoads},
		{"one load", Options{Programs: one, Placements: 1}, 1},
		{"asked for", Options{Programs: one, Placements: 12, GroupLoads: 6}, 6},
	} {
		o, err := tt.o.Complete()
		if err != nil || o.GroupLoads != tt.want {
			t.Errorf("%s: %d loads a group (%v), want %d", tt.name, o.GroupLoads, err, tt.want)
		}
	}
}
