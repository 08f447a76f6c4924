package results

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func savedReport() *Report {
	return &Report{Schema: Schema, Environment: Environment{Kernel: "6.1.0-test"},
		Programs: []Program{{Object: "v4 (bundled)", Results: []Case{{Name: "fizz", Samples: []float64{1, 2}}}}}}
}

// A saved result reads back; a truncated, foreign, empty or partial one
// is refused as a bad result.
func TestReadRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := savedReport().WriteFile(good); err != nil {
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
