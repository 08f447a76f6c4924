package results

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func savedReport() *Run {
	return &Run{Schema: Schema, Environment: Environment{Kernel: "6.1.0-test"},
		Programs: []Program{{Object: "v4 (bundled)", Results: []Case{{Name: "fizz", Samples: []float64{1, 2}}}}}}
}

// A saved result reads back; a truncated, foreign, empty or partial one
// is refused as a bad result.
func TestReadRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	var saved bytes.Buffer
	if err := savedReport().WriteJSON(&saved); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, saved.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := Read(good); err != nil || r.Environment.Kernel != "6.1.0-test" {
		t.Fatalf("a saved report: %+v, %v", r, err)
	}
	for name, content := range map[string]string{
		"truncated": `{"schema": "xdpmicro.bench/v2", "programs": [{`,
		"schema":    `{"schema": "xdpmicro.bench/v0", "programs": [{}]}`,
		"empty":     `{"schema": "xdpmicro.bench/v2", "programs": []}`,
		"partial":   `{"schema": "xdpmicro.bench/v2", "partial": true, "programs": [{}]}`,
	} {
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(path); !errors.Is(err, ErrBadResult) {
			t.Errorf("%s: %v, want ErrBadResult", name, err)
		}
	}
}

// Baselines are saved and loaded by name; a missing one and a name no
// file can have are told apart.
func TestBaselines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".xdpmicro")
	path, err := savedReport().SaveBaseline(dir, "main")
	if err != nil || path != filepath.Join(dir, "main.json") {
		t.Fatalf("saved to %q: %v", path, err)
	}
	back, err := LoadBaseline(dir, "main")
	if err != nil || back.Environment.Kernel != "6.1.0-test" {
		t.Fatalf("loaded %+v: %v", back, err)
	}
	if _, err := LoadBaseline(dir, "other"); !errors.Is(err, ErrNoBaseline) {
		t.Errorf("missing baseline: %v", err)
	}
	for _, bad := range []string{"", "../up", "a/b", ".hidden"} {
		if _, err := BaselinePath(dir, bad); !errors.Is(err, ErrBaselineName) {
			t.Errorf("baseline name %q accepted", bad)
		}
	}
}

// A saved result whose numbers a comparison would index past, or sum to
// infinity, is refused as bad input when read, naming what is wrong: a
// case's wall times shorter than its runs (compare panicked slicing
// them), samples of 1.7e308 ns (their sums were +Inf, the JSON output
// failed on it), a call of no run, a figure beyond any.
func TestParseRefusesInconsistentNumbers(t *testing.T) {
	const good = `{"name": "fizz", "samples_ns": [20, 21], "runs": [100, 200], "wall_ns": [2000, 4200]}`
	for name, tc := range map[string]struct{ cases, want string }{
		"good":             {good, ""},
		"wall shorter":     {`{"name": "fizz", "samples_ns": [20, 21], "runs": [100, 200], "wall_ns": [2000]}`, "2 calls' repeats (runs) for 1 wall times"},
		"runs shorter":     {`{"name": "fizz", "samples_ns": [20, 21], "runs": [100], "wall_ns": [2000, 4200]}`, "1 calls' repeats (runs) for 2 wall times"},
		"huge sample":      {`{"name": "fizz", "samples_ns": [20, 1.7e308]}`, "sample 1 is 1.7e+308 ns a run"},
		"negative sample":  {`{"name": "fizz", "samples_ns": [-1, 20]}`, "sample 0 is -1 ns a run"},
		"no run":           {`{"name": "fizz", "samples_ns": [20, 21], "runs": [0, 200], "wall_ns": [2000, 4200]}`, "call 0 ran the program 0 times"},
		"huge wall":        {`{"name": "fizz", "samples_ns": [20, 21], "runs": [1, 200], "wall_ns": [1e300, 4200]}`, "call 0 of 1 runs took 1e+300 ns"},
		"huge figure":      {`{"name": "fizz", "samples_ns": [20, 21], "stats": {"n": 2, "min": 1e300}}`, "programs[0].cases[0].stats.min is 1e+300"},
		"summary of other": {`{"name": "fizz", "samples_ns": [20, 21], "stats": {"n": 3}}`, "a summary of 3 samples for 2"},
		"in a placement":   {good + `], "placements": [{"cases": [{"name": "fizz", "samples_ns": [1e13, 20]}]}], "x": [`, "sample 0 is 1e+13 ns a run"},
	} {
		data := `{"schema": "` + Schema + `", "programs": [{"cases": [` + tc.cases + `]}]}`
		_, err := Parse("saved.json", []byte(data))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tc.want != "" && (!errors.Is(err, ErrBadResult) || !strings.Contains(fmt.Sprint(err), tc.want)):
			t.Errorf("%s: %v, want a bad result saying %q", name, err, tc.want)
		}
	}
}

// A saved result that would decode into far more memory than its size is
// refused before it is decoded: 256 MiB of empty cases ({}, {}, …) took
// more than 10 GB. A real run's file is read.
func TestParseBoundsMemory(t *testing.T) {
	empty := `{"schema": "` + Schema + `", "programs": [{"object": "x", "cases": [` + strings.Repeat("{},", 200000) + `{}]}]}`
	if _, err := Parse("empty.json", []byte(empty)); !errors.Is(err, ErrBadResult) || !strings.Contains(err.Error(), "too large to decode") {
		t.Errorf("200,001 empty cases: %v, want ErrBadResult, too large to decode", err)
	}
	for _, path := range []string{"../internal/engine/testdata/default.json", "../cmd/xdpmicro/testdata/saved-2c8bdbc.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(path, data); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}
