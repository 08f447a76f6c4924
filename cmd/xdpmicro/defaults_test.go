package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// shownDefault is a flag's default as --help prints it: its words where
// it has some, else its value.
func shownDefault(t *testing.T, fl *pflag.FlagSet, name string) string {
	t.Helper()
	f := fl.Lookup(name)
	if f == nil {
		t.Fatalf("no flag --%s", name)
	}
	if words, ok := described(f); ok {
		return words
	}
	return f.DefValue
}

// completed is o, with one program, completed by the root, as a run of
// the command with no flag given would be.
func completed(t *testing.T, o xdpmicro.Options) xdpmicro.Options {
	t.Helper()
	if o.Programs == nil {
		o.Programs = []xdpmicro.Program{{}}
	}
	c, err := o.Complete()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The defaults bench --help prints are what the root's Complete fills a
// zero Options with: the command defines none of its own, so that a
// default changed on one side only fails here.
func TestBenchDefaultsAreTheOptions(t *testing.T) {
	fl := benchCommand().Flags()
	one := completed(t, xdpmicro.Options{})
	two := completed(t, xdpmicro.Options{Programs: []xdpmicro.Program{{}, {}}, Compared: true})
	flat := completed(t, xdpmicro.Options{Sampling: testrun.SamplingFlat})
	float := func(name string) float64 {
		v, err := strconv.ParseFloat(shownDefault(t, fl, name), 64)
		if err != nil {
			t.Fatalf("--%s: %v", name, err)
		}
		return v
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"confidence", float("confidence"), one.Stats.Confidence},
		{"resamples", shownDefault(t, fl, "resamples"), strconv.Itoa(one.Stats.Resamples)},
		{"low-quantile", float("low-quantile"), one.Stats.LowQuantile},
		{"significance", float("significance"), one.Compare.Significance},
		{"precision", float("precision"), one.Precision},
		{"warmup", shownDefault(t, fl, "warmup"), one.Warmup.String()},
		{"sampling", shownDefault(t, fl, "sampling"), string(one.Sampling)},
		{"time", shownDefault(t, fl, "time"), fmt.Sprintf("%s, or %s with --before/--after", one.Budget, two.Budget)},
		{"placements", shownDefault(t, fl, "placements"), fmt.Sprintf("0: %d, or %d a build with --before/--after", one.Placements, two.Placements)},
		{"estimator", shownDefault(t, fl, "estimator"), fmt.Sprintf("%s with linear sampling, %s with flat", one.Estimator, flat.Estimator)},
		{"samples", shownDefault(t, fl, "samples") + fmt.Sprint(one.Samples), "adaptive: to --precision or --time0"},
		{"noise-threshold", fl.Lookup("noise-threshold").DefValue, "auto"},
	} {
		if c.got != c.want {
			t.Errorf("--%s: help says %v, Complete fills %v", c.name, c.got, c.want)
		}
	}
	// --time is bound as Options.Budget is, its zero the default that
	// Complete decides; and the thresholds auto chooses, as its usage
	// names them.
	if d, err := time.ParseDuration(fl.Lookup("time").DefValue); err != nil || d != 0 {
		t.Errorf("--time's value %s: want 0s, the options' zero, which Complete fills with %s", fl.Lookup("time").DefValue, one.Budget)
	}
	usage := fl.Lookup("noise-threshold").Usage
	for _, th := range []float64{one.Compare.NoiseThreshold, two.Compare.NoiseThreshold} {
		if !strings.Contains(usage, percent(th)) {
			t.Errorf("--noise-threshold's auto does not name %s, which Complete fills: %q", percent(th), usage)
		}
	}
	if one.Precision <= 0 || one.Budget <= 0 {
		t.Errorf("the zero Options are not adaptive: precision %g, budget %s", one.Precision, one.Budget)
	}
}

// validate's defaults are the ladder's options completed, and worst's
// timing budget the root's.
func TestValidateAndWorstDefaultsAreTheOptions(t *testing.T) {
	ladder, err := xdpmicro.Ladder(xdpmicro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := completed(t, ladder)
	fl := validateCommand().Flags()
	for name, want := range map[string]string{
		"time":       o.Budget.String(),
		"precision":  strconv.FormatFloat(o.Precision, 'g', -1, 64),
		"confidence": strconv.FormatFloat(o.Stats.Confidence, 'g', -1, 64),
		"resamples":  strconv.Itoa(o.Stats.Resamples),
		"estimator":  string(o.Estimator),
	} {
		if got := shownDefault(t, fl, name); got != want {
			t.Errorf("validate --%s: help says %s, Complete fills %s", name, got, want)
		}
	}
	if got := shownDefault(t, worstCommand().Flags(), "timing"); got != xdpmicro.DefaultWorstTiming.String() {
		t.Errorf("worst --timing: help says %s, the root's default is %s", got, xdpmicro.DefaultWorstTiming)
	}
}
