package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// readSaved reads a saved run of testdata.
func readSaved(t *testing.T, name string) *results.Run {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := results.Parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// quickAnalysis is corpusAnalysis with fewer resamples.
func quickAnalysis(saved *results.Run) Reanalysis {
	how := corpusAnalysis(saved)
	how.Stats.Resamples = 1000
	how.Compare = stats.CompareOptions{Significance: stats.DefaultSignificance, Quantum: testrun.Resolution,
		NoiseThreshold: stats.InterleavedSlopeNoiseThreshold}
	return how
}

// notices is an Observer that keeps the notices.
type notices []string

func (*notices) Progress(testrun.Progress) {}
func (n *notices) Notice(s string)         { *n = append(*n, s) }

// A saved run analysed again has every case's figures found anew from
// its samples alone: its own figures, taken out, change nothing.
func TestReanalyzeFindsEveryFigure(t *testing.T) {
	saved := readSaved(t, "default.json")
	again, err := Reanalyze(context.Background(), saved, quickAnalysis(saved), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := rawOf(saved)
	if !ok {
		t.Fatal("default.json holds no raw samples")
	}
	bare := &results.Run{Schema: saved.Schema, Settings: saved.Settings, Environment: raw.Environment, Programs: raw.Programs, Floor: raw.Floor}
	fromBare, err := Reanalyze(context.Background(), bare, quickAnalysis(saved), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range again.Measured().Results {
		if c.Stats == nil || c.Stats.Loads == nil || c.Net == nil {
			t.Fatalf("case %s: no figures over its loads, or no net of the floor", c.Name)
		}
		if got := fromBare.Measured().Results[i].Stats.Loads.Estimate; got != c.Stats.Loads.Estimate {
			t.Errorf("case %s: %v from the bare samples, %v from the whole file", c.Name, got, c.Stats.Loads.Estimate)
		}
	}
	if saved.Measured().Results[0].Stats == nil {
		t.Error("the saved run itself was changed")
	}
}

// An interleaved run is compared again; a comparison of runs measured
// apart is analysed as its later run, and the observer hears so.
func TestReanalyzeComparisons(t *testing.T) {
	saved := readSaved(t, "before-after.json")
	again, err := Reanalyze(context.Background(), saved, quickAnalysis(saved), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := again.Comparison; c == nil || c.Mode != results.Interleaved || len(c.Cases) != len(saved.Comparison.Cases) {
		t.Fatalf("comparison %+v, want %d cases interleaved", c, len(saved.Comparison.Cases))
	}
	apart, err := Against(saved, saved, results.Files, savedCompareOptions())
	if err != nil {
		t.Fatal(err)
	}
	var heard notices
	again, err = Reanalyze(context.Background(), apart, quickAnalysis(apart), &heard)
	if err != nil {
		t.Fatal(err)
	}
	if again.Comparison != nil || len(again.Programs) != 1 || again.Measured().Info != saved.Measured().Info {
		t.Errorf("a comparison of files analysed again: %d programs, comparison %v; want the later run alone", len(again.Programs), again.Comparison)
	}
	if len(heard) != 1 || !strings.Contains(heard[0], "analysed alone") {
		t.Errorf("notices %q", heard)
	}
}

// A run without raw samples is bad input to analyze; compare judges it by
// the figures it saved, and says so.
func TestReanalyzeWithoutSamples(t *testing.T) {
	saved := readSaved(t, "default.json")
	old := readSaved(t, "default.json")
	for _, p := range append([]*results.Program{old.Floor}, &old.Programs[0]) {
		for _, q := range append([]*results.Program{p}, pointers(p.Placements)...) {
			for i := range q.Results {
				c := &q.Results[i]
				c.Samples, c.Stats.N = nil, 0 // its calls' times kept: compared by their slopes
			}
		}
	}
	_, err := Reanalyze(context.Background(), old, quickAnalysis(old), nil)
	if !errors.Is(err, ErrNoRaw) || !errors.Is(err, badinput.Err) {
		t.Fatalf("got %v, want ErrNoRaw, bad input", err)
	}
	opts := savedCompareOptions()
	opts.Resamples = 1000
	rep, err := CompareSaved(saved, old, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Comparison.Warnings, func(w string) bool { return strings.Contains(w, "the after run holds no raw samples") }) {
		t.Errorf("no warning of the run judged by its saved figures: %q", rep.Comparison.Warnings)
	}
}

func pointers(ps []results.Program) []*results.Program {
	out := make([]*results.Program, len(ps))
	for i := range ps {
		out[i] = &ps[i]
	}
	return out
}

// With a phase history, the run is scaled to the fast phase it recalls
// as it stood when the run began; one written after, or none, leaves the
// run on its own, and the observer hears why.
func TestReanalyzeRecalls(t *testing.T) {
	boot, err := phases.Boot()
	if err != nil {
		t.Skip(err)
	}
	saved := readSaved(t, "default.json")
	alone, err := Reanalyze(context.Background(), saved, quickAnalysis(saved), nil)
	if err != nil {
		t.Fatal(err)
	}
	level, _, ok := FloorLevel(alone)
	if !ok {
		t.Fatal("default.json has no floor level")
	}
	start := saved.Environment.Start
	for _, tc := range []struct {
		name     string
		at       time.Time
		recalled bool
	}{
		{"before the run", start.Add(-10 * time.Minute), true},
		{"after the run", start.Add(10 * time.Minute), false},
	} {
		path := filepath.Join(t.TempDir(), "phases.json")
		var h phases.History
		for range 3 {
			h.Add(savedHistoryKey(alone, boot), 0.8*level, 0.01, tc.at)
		}
		if err := h.Save(path); err != nil {
			t.Fatal(err)
		}
		how := quickAnalysis(saved)
		how.History = path
		var heard notices
		rep, err := Reanalyze(context.Background(), saved, how, &heard)
		if err != nil {
			t.Fatal(err)
		}
		ph := rep.Measured().Results[0].Stats.Loads.Phase
		if got := ph != nil && ph.Recalled > 0; got != tc.recalled || tc.recalled == (len(heard) > 0) {
			t.Errorf("history written %s: recalled %v (phase %+v), notices %q", tc.name, got, ph, heard)
		}
	}
}
