package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/report"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// Every output carries each case's instruction count: a column in the
// table, a field in the JSON, Bencher's instructions measure in BMF, and
// insns/op on every gobench line, all the same figure.
func TestInstructionsInEveryFormat(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "run.json")
	args := append([]string{"bench", "v3", "--class", "fizz,high", "--sampling", "flat", "--format", "json", "-o", jsonPath}, quick...)
	if code, _, stderr := runCLI(args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := map[string]uint64{}
	for _, c := range readReport(t, jsonPath).Programs[0].Results {
		if c.Instructions == 0 || c.NoCount != "" {
			t.Fatalf("JSON: case %s: %d instructions (%s)", c.Name, c.Instructions, c.NoCount)
		}
		want[c.Name] = c.Instructions
	}
	if want["high"] <= want["fizz"] {
		t.Errorf("v3 walks 13 steps for high, 4 for fizz: counted %d and %d", want["high"], want["fizz"])
	}

	bmfPath := filepath.Join(dir, "bmf.json")
	args = append([]string{"bench", "v3", "--class", "fizz,high", "--sampling", "flat", "--format", "bmf", "-o", bmfPath}, quick...)
	if code, _, stderr := runCLI(args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(bmfPath)
	if err != nil {
		t.Fatal(err)
	}
	var bmf map[string]map[string]map[string]float64
	if err := json.Unmarshal(data, &bmf); err != nil {
		t.Fatalf("not BMF: %v\n%s", err, data)
	}
	for name, n := range want {
		m := bmf["fizzbuzz/"+name]
		if m["instructions"]["value"] != float64(n) || len(m["instructions"]) != 1 || m["latency"]["value"] <= 0 {
			t.Errorf("BMF %s: %v, want instructions %d beside latency", name, m, n)
		}
	}

	args = append([]string{"bench", "v3", "--class", "fizz,high", "--sampling", "flat", "--format", "gobench"}, quick...)
	code, stdout, stderr := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := benchfmt.NewReader(strings.NewReader(stdout), "gobench")
	lines := 0
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		lines++
		_, sub := res.Name.Parts()
		name := strings.TrimPrefix(string(sub[0]), "/case=")
		if v, ok := res.Value("insns/op"); !ok || v != float64(want[name]) {
			t.Errorf("gobench %s: insns/op %v (%v), want %d", res.Name, v, ok, want[name])
		}
	}
	if lines != 2*10 {
		t.Errorf("%d gobench lines, want 20", lines)
	}

	args = append([]string{"bench", "v3", "--class", "fizz,high", "--sampling", "flat", "--verbose"}, quick...)
	code, stdout, _ = runCLI(args...)
	if code != 0 || !strings.Contains(stdout, "│ insns │") || !strings.Contains(flat(stdout), "a helper call counts as one") {
		t.Errorf("table: exit %d, no insns column or note:\n%s", code, stdout)
	}
	for name, n := range want {
		if !strings.Contains(stdout, fmt.Sprintf("│ %5d │", n)) {
			t.Errorf("table: no count %d for %s:\n%s", n, name, stdout)
		}
	}
}

// --fail-on insns judges the exact counts: v3's loop executes more
// instructions than v4's constants for every class, whatever the time.
func TestFailOnInstructions(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	dir := t.TempDir()
	paths := map[string]string{}
	for _, build := range []string{"v3", "v4"} {
		paths[build] = filepath.Join(dir, build+".json")
		args := append([]string{"bench", build, "--class", "fibonacci,none", "--sampling", "flat", "--format", "json", "-o", paths[build]}, quick...)
		if code, _, stderr := runCLI(args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	if code, stdout, _ := runCLI("compare", paths["v4"], paths["v3"], "--fail-on", "insns"); code != exitRegression || !strings.Contains(stdout, "33 → 185") {
		t.Errorf("v4 → v3 judged by instructions: exit %d, want %d\n%s", code, exitRegression, stdout)
	}
	if code, stdout, _ := runCLI("compare", paths["v3"], paths["v4"], "--fail-on", "insns"); code != 0 {
		t.Errorf("v3 → v4 judged by instructions: exit %d, want 0\n%s", code, stdout)
	}
	if code, _, stderr := runCLI("compare", paths["v3"], paths["v4"], "--fail-on", "cycles"); code != exitUsage {
		t.Errorf("--fail-on cycles: exit %d, want %d: %s", code, exitUsage, stderr)
	}
	// A result without counts cannot pass an exact gate.
	old := readReport(t, paths["v3"])
	for i := range old.Programs[0].Results {
		old.Programs[0].Results[i].Instructions = 0
	}
	if err := (report.Output{Format: report.JSON, Path: paths["v3"]}).Write(io.Discard, report.OfRun(old)); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("compare", paths["v3"], paths["v4"], "--fail-on", "insns"); code != exitFailed || !strings.Contains(stderr, "no instruction count") {
		t.Errorf("without counts: exit %d, want %d: %s", code, exitFailed, stderr)
	}
}

// gobench of a linear run: the units declared (insns/op exact), each
// line's ns/op its call's time per run from the wall clock, fractional,
// over that call's repeat.
func TestGoBenchLinear(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	args := append([]string{"bench", "v3", "--class", "fizz", "--sampling", "linear", "--format", "gobench", "-q"}, quick...)
	code, stdout, stderr := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "Unit insns/op assume=exact better=lower\nUnit ns/op better=lower\n") {
		t.Errorf("gobench opens without its units:\n%.200s", stdout)
	}
	r := benchfmt.NewReader(strings.NewReader(stdout), "gobench")
	lines, fractional, repeats := 0, 0, map[int]bool{}
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		lines++
		repeats[res.Iters] = true
		for _, v := range res.Values {
			if v.OrigUnit == "ns/op" && v.OrigValue != float64(int64(v.OrigValue)) {
				fractional++
			}
		}
	}
	if a := r.Units().GetAssumption("insns/op"); a != benchmath.AssumeExact {
		t.Errorf("insns/op assumed %v", a)
	}
	if lines != quickSamples || fractional < quickSamples/2 || len(repeats) < 2 {
		t.Errorf("%d lines, %d of fractional ns/op, %d repeats; want %d lines, a line a sample, mostly fractional, over repeats that differ:\n%s",
			lines, fractional, len(repeats), quickSamples, stdout)
	}
}
