package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
)

const mixed = "../../bpf/testdata/mixed.o"

// bench OBJECT measures every measurable program, a report each; the one
// the verifier rejects is named on stderr, does not stop the others, and
// makes the exit code 1; the tracepoint is passed over with a note.
func TestBenchEveryProgram(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, stdout, stderr := runCLI(append([]string{"bench", mixed, "--class", "arp", "--format", "json"}, quick...)...)
	if code != exitFailed {
		t.Errorf("exit %d, want %d: a program failed", code, exitFailed)
	}
	var reps []results.Run
	if err := json.Unmarshal([]byte(stdout), &reps); err != nil {
		t.Fatalf("not a JSON array of reports: %v\n%s", err, stdout)
	}
	var got []string
	for _, r := range reps {
		got = append(got, r.Programs[0].Info.Name+" "+r.Programs[0].Results[0].Action)
	}
	if strings.Join(got, ", ") != "xdp_a_pass XDP_PASS, xdp_c_drop XDP_DROP" {
		t.Errorf("measured %v: want xdp_a_pass and xdp_c_drop", got)
	}
	for _, want := range []string{"program xdp_b_unchecked: rejected by the verifier", "1 of 3 programs failed: xdp_b_unchecked", "trace_getpid (TracePoint) is not measured"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// --program chooses by name, comma list or glob; a pattern that chooses
// nothing is bad input, and so is a choice of one program for what only
// one program's results can hold.
func TestBenchChosenPrograms(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	for _, tc := range []struct {
		program string
		want    string // the tables' headers, in order
	}{
		{"xdp_a_pass,xdp_c_drop", "xdp_a_pass xdp_c_drop"},
		{"xdp_[ac]*", "xdp_a_pass xdp_c_drop"},
		{"xdp_c_drop", "xdp_c_drop"},
	} {
		code, stdout, stderr := runCLI(append([]string{"bench", mixed, "--program", tc.program, "--class", "arp"}, quick...)...)
		var headers []string
		for _, line := range strings.Split(stdout, "\n") {
			if name, _, ok := strings.Cut(line, " in "+mixed); ok {
				headers = append(headers, name)
			}
		}
		if code != 0 || strings.Join(headers, " ") != tc.want {
			t.Errorf("--program %s: exit %d, tables %v, want %s\n%s", tc.program, code, headers, tc.want, stderr)
		}
	}
	for _, args := range [][]string{
		{"--program", "nope*"},
		{"--program", "xdp_[a"},
		{"--save-baseline", "each"},
		{"--program", "trace_getpid"},
	} {
		code, stdout, stderr := runCLI(append([]string{"bench", mixed}, args...)...)
		if code != exitUsage || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 2 and one line", args, code, stdout, stderr)
		}
	}
}

// Two bundled builds of one object each load their own program: rung0
// against rung2 is fine_0 against fine_2, two instructions apart, not the
// after's program twice.
func TestBenchBundledPairOwnPrograms(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, stdout, stderr := runCLI(append([]string{"bench", "--before", "rung0", "--after", "rung2", "--class", "none", "--format", "json"}, quick...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep results.Run
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, stdout)
	}
	if len(rep.Programs) != 2 {
		t.Fatalf("%d programs, want before and after", len(rep.Programs))
	}
	before, after := rep.Programs[0], rep.Programs[1]
	if before.Info.Name != "fine_0" || after.Info.Name != "fine_2" {
		t.Errorf("measured %s against %s, want fine_0 against fine_2", before.Info.Name, after.Info.Name)
	}
	if b, a := before.Results[0].Instructions, after.Results[0].Instructions; a != b+2 {
		t.Errorf("instructions %d → %d, want two more after", b, a)
	}
}

// A bad option on an object of several programs is one line and exit 2,
// before any program is measured, not a line a program and exit 1.
func TestBenchEveryProgramBadOption(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, stdout, stderr := runCLI("bench", mixed, "--state", "bogus")
	if code != exitUsage || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "bad map state") {
		t.Errorf("exit %d, stdout %q, stderr %q: want exit %d and one line naming the bad state", code, stdout, stderr, exitUsage)
	}
}
