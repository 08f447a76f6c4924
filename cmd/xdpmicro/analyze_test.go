package main

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// A saved run is analysed again from its raw samples, in every format
// bench writes: the table names every case, and the JSON gives each its
// figures found anew.
func TestAnalyzeSavedRun(t *testing.T) {
	code, stdout, stderr := runCLI("analyze", savedBefore)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, c := range []string{"fizz ", "buzz ", "fizzbuzz ", "fibonacci ", "none "} {
		if !strings.Contains(stdout, "│ "+c) {
			t.Errorf("case %s not in the table:\n%s", c, stdout)
		}
	}
	out := filepath.Join(t.TempDir(), "again.json")
	if code, _, stderr := runCLI("analyze", savedBefore, "--format", "json", "-o", out, "--resamples", "1000"); code != 0 {
		t.Fatalf("--format json: exit %d: %s", code, stderr)
	}
	again := readReport(t, out)
	if n := len(again.Measured().Results); n != 5 || again.Settings.Resamples != 1000 || again.Settings.Estimator != results.Slope {
		t.Errorf("%d cases, %d resamples, estimator %s: want 5, 1000 (given), slope (the file's)", n, again.Settings.Resamples, again.Settings.Estimator)
	}
	for _, c := range again.Measured().Results {
		if c.Stats == nil || c.Stats.Fit == nil || c.Net == nil {
			t.Errorf("case %s: no figures, slope or net found again", c.Name)
		}
	}
	for _, format := range report.KindRun.Formats() {
		if code, stdout, stderr := runCLI("analyze", savedBefore, "--format", format, "--resamples", "1000"); code != 0 || !strings.Contains(stdout, "fibonacci") {
			t.Errorf("--format %s: exit %d, %s\n%s", format, code, stderr, stdout)
		}
	}
}

// A run of the corpus recorded on another host, saved by an older build,
// is accepted.
func TestAnalyzeCorpusRun(t *testing.T) {
	f, err := os.Open("../../internal/engine/testdata/corpus/xeon-steal/run-01.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(gz)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run-01.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runCLI("analyze", path, "--resamples", "1000"); code != 0 || !strings.Contains(stdout, "│ fizzbuzz ") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// What is not a saved run with raw samples, or asks what the file cannot
// give, is bad input: exit 2, one line, nothing on standard output.
func TestAnalyzeBadInput(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.json")
	if err := os.WriteFile(foreign, []byte(`{"fizzbuzz/fizz": {"latency": {"value": 1}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	noSamples := savedVariant(t, dir, "no-samples.json", func(doc map[string]any) {
		for _, p := range []map[string]any{doc["programs"].([]any)[0].(map[string]any), doc["floor"].(map[string]any)} {
			for _, c := range p["cases"].([]any) {
				c := c.(map[string]any)
				c["samples_ns"], c["stats"] = []any{}, nil
				delete(c, "runs")
				delete(c, "wall_ns")
			}
		}
	})
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, results.MaxSaved+1); err != nil { // sparse: no disk taken
		t.Fatal(err)
	}
	data, err := json.Marshal(map[string]any{"schema": results.Schema, "programs": []any{}})
	if err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"analyze"},
		{"analyze", savedBefore, savedBefore},
		{"analyze", filepath.Join(dir, "none.json")},
		{"analyze", foreign},
		{"analyze", empty},
		{"analyze", noSamples},
		{"analyze", huge},
		{"analyze", savedBefore, "--estimator", "fastest"},
		{"analyze", savedBefore, "--confidence", "1.5"},
		{"analyze", savedBefore, "--format", "html"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, code, stdout, stderr)
		}
	}
}
