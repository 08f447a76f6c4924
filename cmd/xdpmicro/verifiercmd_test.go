package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
)

// verifier refuses what it cannot judge before loading anything.
func TestVerifierBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"verifier", "--fail-on", "verified-insns"},                                // a gate needs two builds
		{"verifier", "--before", "v3", "--after", "v4", "--fail-on", "time"},       // not a verifier figure
		{"verifier", "--before", "v3", "--after", "v4", "--fail-on", "states:+x%"}, // no percentage
		{"verifier", "--loads", "0"},
		{"verifier", "--format", "gobench"},
	} {
		code, _, stderr := runCLI(args...)
		if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, stderr)
		}
	}
}

// The gate: v3 processes more instructions than v4, so v4 -> v3 fails
// it (exit 3, the program and figure named), v3 -> v4 passes, and a
// growth allowed above v3's passes it too.
func TestVerifierGate(t *testing.T) {
	kerneltest.RequireBPF(t)
	code, _, stderr := runCLI("verifier", "--before", "v4", "--after", "v3", "--loads", "1", "--fail-on", "verified-insns:+10%")
	if code != exitRegression || !strings.Contains(stderr, "the verifier's figures grew: verified-insns ") {
		t.Errorf("v4 -> v3: exit %d, %q; want 3 naming verified-insns", code, stderr)
	}
	if !strings.Contains(stderr, "of fizzbuzz") {
		t.Errorf("stderr %q does not name the program", stderr)
	}
	if code, _, stderr := runCLI("verifier", "--before", "v3", "--after", "v4", "--loads", "1", "--fail-on", "verified-insns,states,jit-size"); code != exitOK {
		t.Errorf("v3 -> v4: exit %d, %q; want 0", code, stderr)
	}
	if code, _, stderr := runCLI("verifier", "--before", "v4", "--after", "v3", "--loads", "1", "--fail-on", "verified-insns:+1000%"); code != exitOK {
		t.Errorf("v4 -> v3 within +1000 %%: exit %d, %q; want 0", code, stderr)
	}
}

// The JSON holds every load's figures, and the change between builds
// as the table gives it.
func TestVerifierJSON(t *testing.T) {
	kerneltest.RequireBPF(t)
	code, stdout, stderr := runCLI("verifier", "--before", "v3", "--after", "v4", "--loads", "3", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var v results.Verification
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	if v.Schema != results.VerificationSchema || len(v.Programs) != 1 {
		t.Fatalf("schema %q, %d programs", v.Schema, len(v.Programs))
	}
	p := v.Programs[0]
	if len(p.Loads) != 3 || len(p.Before) != 3 || p.Change == nil {
		t.Fatalf("%d loads after, %d before, change %v", len(p.Loads), len(p.Before), p.Change)
	}
	for _, l := range append(p.Loads, p.Before...) {
		if l.Processed == 0 || l.TotalStates == 0 || l.TimeMicros == 0 {
			t.Errorf("a load without figures: %+v", l)
		}
	}
	// Exact figures are the same for every load of a build.
	for _, l := range p.Loads[1:] {
		if l.Processed != p.Loads[0].Processed || l.TotalStates != p.Loads[0].TotalStates || l.JITBytes != p.Loads[0].JITBytes {
			t.Errorf("loads of one build differ: %+v and %+v", l, p.Loads[0])
		}
	}
	if p.Change.Before.Processed != p.Before[0].Processed || p.Change.After.Processed != p.Loads[0].Processed ||
		p.Change.Before.Processed <= p.Change.After.Processed {
		t.Errorf("change %d -> %d: want v3's above v4's", p.Change.Before.Processed, p.Change.After.Processed)
	}
}

// bench's comparisons take the verifier's gate too: a timed run of v4
// against v3 fails on states, whatever the times say.
func TestBenchVerifierGate(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, _, stderr := runCLI("bench", "--before", "v4", "--after", "v3", "--class", "fizz", "--time", "1s", "--fail-on", "states")
	if code != exitRegression || !strings.Contains(stderr, "states ") || !strings.Contains(stderr, "where it allows none") {
		t.Errorf("exit %d, %q; want 3 naming states", code, stderr)
	}
}

// A program the verifier refuses is a finding the table shows, with why,
// and the run fails (exit 1): not a crash, not a pass.
func TestVerifierRefused(t *testing.T) {
	kerneltest.RequireBPF(t)
	code, stdout, stderr := runCLI("verifier", "../../bpf/testdata/reject.o", "--loads", "2")
	if code != exitFailed || !strings.Contains(stderr, "the verifier refused unchecked_read") {
		t.Errorf("exit %d, stderr %q; want 1 naming the program", code, stderr)
	}
	if !strings.Contains(stdout, "REFUSED by the verifier: unchecked_read") || !strings.Contains(stdout, "refused") {
		t.Errorf("the table does not show the refusal:\n%s", stdout)
	}
}
