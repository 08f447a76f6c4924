package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/profile"
)

// profile as a user runs it: the text, its totals as bench counts them,
// and each file format written where -o says, readable by its tool's
// library or by ours.
func TestProfileCommand(t *testing.T) {
	kerneltest.RequireBPF(t)
	code, stdout, stderr := runCLI("profile", "v3", "--class", "high,fizz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"case high: 206 instructions", "case fizz: 100 instructions", "fizzbuzz.c:72", "bpf_map_push_elem ×1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
	dir := t.TempDir()
	pb := filepath.Join(dir, "v3.pb.gz")
	if code, _, stderr := runCLI("profile", "v3", "--format", "pprof", "-o", pb); code != 0 {
		t.Fatalf("pprof: exit %d: %s", code, stderr)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := pprof.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, s := range p.Sample {
		total += s.Value[0]
	}
	if total != 100+118+131+185+122 {
		t.Errorf("pprof: %d instructions over v3's classes, want 656", total)
	}
	cg := filepath.Join(dir, "cg.out")
	if code, _, stderr := runCLI("profile", "v3", "--format", "callgrind", "-o", cg); code != 0 {
		t.Fatalf("callgrind: exit %d: %s", code, stderr)
	}
	if data, err := os.ReadFile(cg); err != nil || !strings.Contains(string(data), "events: Ir\nsummary: 656\n") {
		t.Errorf("callgrind file: %v\n%s", err, data)
	}
}

// --before/--after: the lines whose counts changed, largest first, as
// text and as JSON.
func TestProfileBeforeAfter(t *testing.T) {
	kerneltest.RequireBPF(t)
	code, stdout, stderr := runCLI("profile", "--before", "v3", "--after", "v4", "--class", "high", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep profile.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Diff == nil || len(rep.Diff.Cases) != 1 {
		t.Fatalf("no diff: %s", stdout)
	}
	c := rep.Diff.Cases[0]
	if c.Before != 206 || len(c.Lines) == 0 || c.Lines[0].Name != "fizzbuzz.c:72" || c.Lines[0].Delta() >= 0 {
		t.Errorf("case %+v: want 206 before, and the loop's head (fizzbuzz.c:72) the largest change, down", c)
	}
}
