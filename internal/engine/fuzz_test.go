package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// fuzzOptions keep each comparison short: the paths are what is fuzzed,
// not the bootstrap's precision.
var fuzzOptions = stats.CompareOptions{Options: stats.Options{Confidence: 0.95, Resamples: stats.MinResamples, Seed: 1},
	Significance: 0.05, NoiseThreshold: 0.02, Quantum: 1}

// FuzzCompare: two saved results from anywhere, once parsed, compare
// through every path a comparison takes (over loads, over the floor,
// blocked by group, by slopes, by the kernel's figures) into a report
// that writes as a table and as JSON, or fail as bad input (exit 2);
// never a panic, a hang, or a figure JSON cannot hold. The seeds, every
// pair of testdata/*.json, are real runs of bench: the default (slope,
// over 16 loads and the floor), small slope and flat runs over two loads
// each (and the same without their estimates over loads: the slope and
// the kernel's figures' paths), one load without a floor, and a
// --before/--after run, whose two programs go through the blocked path.
func FuzzCompare(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.json")
	seeds := make(map[string][]byte)
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		seeds[filepath.Base(path)] = data
	}
	for _, a := range seeds {
		for _, b := range seeds {
			f.Add(a, b, uint16(0), uint8(0), 0.0)
		}
	}
	// The crash: the one case's wall times (the 125th array or
	// number) cut to one, shorter than its runs, on the path by slopes.
	f.Add(seeds["one-load.json"], seeds["one-load.json"], uint16(125), uint8(1), 0.0)
	// And its samples at 1.7e308, whose sums overflowed.
	f.Add(seeds["one-load.json"], seeds["one-load.json"], uint16(58), uint8(0), 1.7e308)
	f.Fuzz(func(t *testing.T, before, after []byte, at uint16, cut uint8, value float64) {
		// Mutations of JSON's text mostly break its syntax: edit one
		// array or number of the after file as a tool could have.
		sweepOne(t.Fatalf, before, after, int(at), int(cut), value)
	})
}

// sweepOne is FuzzCompare's body.
func sweepOne(fail func(string, ...any), before, after []byte, at, cut int, value float64) {
	after = edit(after, at, cut, value)
	b, err := results.Parse("before.json", before)
	if err != nil {
		return // results' FuzzParse holds the parser to bad input
	}
	a, err := results.Parse("after.json", after)
	if err != nil {
		return
	}
	for _, mode := range []string{results.Files, results.Baseline} {
		rep, err := Against(b, a, mode, fuzzOptions)
		if err != nil {
			if !errors.Is(err, badinput.Err) {
				fail("%s: error %q is not bad input: it would exit 1", mode, err)
			}
			continue
		}
		writes(fail, rep)
	}
	// Two saved programs as one run's before and after: the blocked
	// and paired paths.
	run := *a
	run.Programs = []results.Program{*b.Measured(), *a.Measured()}
	if err := CompareInterleaved(&run, fuzzOptions, phases.ChangeTransfer); err == nil {
		writes(fail, &run)
	}
	if AtRecalled(a, Recalled{Floor: 20, RelHalf: 0.01, Runs: 3}, 0.95) {
		writes(fail, a)
	}
}

// writes fails unless rep writes as a table and as JSON.
func writes(fail func(string, ...any), rep *results.Run) {
	var buf bytes.Buffer
	for _, format := range []report.Format{report.Table, report.JSON} {
		if err := report.Write(&buf, rep, format, report.View{Wide: true, Verbose: true}); err != nil {
			fail("the comparison does not write as %s: %v", format, err)
		}
	}
}

// edit returns data, a JSON document, with its at-th array or number
// (in document order, from 1; 0 edits nothing) cut to its first cut
// elements, or set to value; data itself where it is no JSON.
func edit(data []byte, at, cut int, value float64) []byte {
	var doc any
	if at == 0 || json.Unmarshal(data, &doc) != nil {
		return data
	}
	n := 0
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case []any:
			if n++; n == at {
				return v[:min(cut, len(v))]
			}
			for i := range v {
				v[i] = walk(v[i])
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				v[k] = walk(v[k])
			}
		case float64:
			if n++; n == at {
				return value
			}
		}
		return v
	}
	out, err := json.Marshal(walk(doc))
	if err != nil {
		return data // value is NaN or infinite, which JSON cannot hold
	}
	return out
}
