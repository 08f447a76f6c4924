package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/worst"
	"github.com/xdpmicro/xdpmicro/packets"
)

// Bad flags: exit 2 and one line, before any search.
func TestWorstBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"worst", "--format", "bmf"},
		{"worst", "--time", "0s"},
		{"worst", "--top", "0"},
		{"worst", "--timing", "-1s"},
		{"worst", "--cpu", "-2"},
		{"worst", "v9"},
		{"worst", "--program", "nope"},
		{"worst", "../../bpf/testdata/worst.o"}, // three programs: which?
		{"worst", "--output", "/nonexistent/dir/found.yaml"},
		{"worst", "--output", os.TempDir()},
		{"worst", "--ctx", "mark=1"}, // v4 is XDP
		{"worst", "--packets", "no/such/cases.yaml"},
		{"worst", "--map-init", "no/such/maps.yaml"},
		{"worst", "--set", "novalue"},
		{"worst", "--candidates", "-1"},
		{"worst", "a", "b"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
			if lines := strings.Count(stderr, "\n"); lines != 1 || !strings.HasPrefix(stderr, "xdpmicro: ") {
				t.Errorf("want one line on stderr, got %q", stderr)
			}
		})
	}
}

// A search of v3 in JSON, its packets written to a file that bench then
// measures unchanged, each returning what the file expects.
func TestWorstToBench(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	found := filepath.Join(t.TempDir(), "found.yaml")
	const candidates, top = 30000, 4
	code, stdout, stderr := runCLI("worst", "v3", "--candidates", strconv.Itoa(candidates), "--top", strconv.Itoa(top),
		"--timing", "1s", "--format", "json", "-o", found)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep worst.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Tried != candidates || rep.Rate <= 0 || len(rep.Packets) != top || !rep.Timed {
		t.Fatalf("tried %d at %.0f a second, %d packets, timed %v", rep.Tried, rep.Rate, len(rep.Packets), rep.Timed)
	}
	for _, p := range rep.Packets {
		if p.ByTime == 0 || p.Net == nil || p.Instructions == 0 || p.Action != "XDP_PASS" {
			t.Errorf("%s: rank by time %d, net %v, %d instructions, %s", p.Name, p.ByTime, p.Net, p.Instructions, p.Action)
		}
	}
	cases, err := packets.ReadFile(found)
	if err != nil || len(cases) != top || cases[0].Expect != "XDP_PASS" {
		t.Fatalf("%v: %+v", err, cases)
	}
	code, stdout, stderr = runCLI(append([]string{"bench", "v3", "--packets", found, "--format", "json"}, quick...)...)
	if code != 0 {
		t.Fatalf("bench --packets on the file: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"name": "worst-1"`) {
		t.Errorf("bench did not measure worst-1:\n%s", stdout)
	}
}

// Ctrl-C in the middle of a search: the best found so far on stdout,
// still written to --output, exit 130, nothing left loaded.
func TestWorstInterrupt(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	bin := buildBinary(t)
	const program = "ext_chain" // no other test of this package runs it
	before := kerneltest.Programs(t, program)
	found := filepath.Join(t.TempDir(), "found.yaml")
	cmd := exec.Command(bin, "worst", "../../bpf/testdata/worst.o", "--program", program, "--time", "1m", "-o", found)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	// Its progress line on a terminal says when it has found a packet.
	term := startOnTerminal(t, cmd)
	term.waitFor(t, regexp.MustCompile(`[1-9][0-9]* distinct paths`), time.Minute)
	err := signalAndWait(t, cmd, syscall.SIGINT)
	var exit *exec.ExitError
	stderr := term.output(t)
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("%v, want exit 130; stderr:\n%q", err, stderr)
	}
	if !strings.Contains(stdout.String(), "worst-1") || !strings.Contains(stderr, "interrupted") {
		t.Errorf("the best so far not shown:\n%s\n%q", stdout.String(), stderr)
	}
	if cases, err := packets.ReadFile(found); err != nil || len(cases) == 0 {
		t.Errorf("--output after the interrupt: %v, %d cases", err, len(cases))
	}
	if left := kerneltest.ProgramsLeft(t, program, before, 5*time.Second); len(left) > 0 {
		t.Errorf("programs named %s loaded by the search still there after its exit: %v", program, left)
	}
}
