package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	code = run(args, &out, &errs)
	return code, out.String(), errs.String()
}

// Quick settings for tests that only check the plumbing, not the figures.
var quick = []string{"--samples", strconv.Itoa(quickSamples), "--repeat", strconv.Itoa(quickRepeat), "--warmup", "0", "--resamples", "1000"}

// The samples and the repeat count of quick.
const (
	quickSamples = 10
	quickRepeat  = 1000
)

// badInputs are command lines that are bad usage or bad input. None of
// them reaches the kernel, so they run without privileges too.
var badInputs = [][]string{
	{"bench", "no/such/file.o"},
	{"bench", "/etc/hostname"},
	{"bench", "/bin/sh"}, // an ELF, but an ordinary executable
	{"bench", "v9"},
	{"bench", "--precision", "0"},
	{"bench", "--precision", "1.5"},
	{"bench", "--time", "-1s"},
	{"bench", "--estimator", "mode"},
	{"bench", "--estimator", "min", "--precision", "0.05"},
	{"bench", "--repeat", "4294967296"},
	{"bench", "--samples", "3"},
	{"bench", "--confidence", "1"},
	{"bench", "--confidence", "0"},
	{"bench", "--low-quantile", "0"},
	{"bench", "--low-quantile", "0.5"},
	{"bench", "--format", "xml"},
	{"bench", "--class", "fizz,nope"},
	{"bench", "--class", "fizz,fizz"},
	{"bench", "--program", "nope"},
	{"bench", "../../bpf/testdata/multi.o", "--program", "trace_getpid"},
	{"bench", sectionsObject}, // SEC("filter"): runs with --type, which the refusal names
	{"bench", "--cpu", "4096"},
	{"bench", "a", "b"},
	{"bench", "--no-such-flag"},
	{"bench", "--cpu", "-5"},
	{"validate", "--cpu", "-2"},
	// Places the end of the run could not write: refused before it.
	{"bench", "--output", "/nonexistent/dir/x.json"},
	{"bench", "--output", os.TempDir()},
	{"bench", "--report", "/etc/hostname"},
	{"bench", "--report", "/etc/hostname/sub"},
	{"bench", "--save-baseline", "x", "--baseline-dir", "/etc/hostname"},
	{"bench", "--save-baseline", "../x"},
	{"compare", "--output", "/nonexistent/dir/x.json", savedBefore, savedBefore}, // files that compare
	{"validate", "--output", "/nonexistent/dir/x.json"},
	{"validate", "--format", "table"},
	{"programs", "/etc/hostname"},
	{"no-such-command"},
	{"help", "no-such-command"},
	{"completion", "tcsh"},
	{"bench", "--ctx", "mark"},
	{"bench", "--ctx", "mark=lots"},
	{"bench", "--ctx", "mark=1,mark=2"},
	{"bench", "--ctx", "mark=1"}, // the bundled programs are XDP
	{"bench", "--ctx", "rx_queue_index=1"},
	{"bench", "--ctx", "ingress_ifindex=no-such-device0"},
	{"bench", "../../bpf/testdata/ctx.o", "--program", "tc_mark", "--ctx", "data=1"},
	{"packets", "--ctx", "mark"},
	{"profile", "v9"},
	{"profile", "--format", "svg"},
	{"profile", "--class", "nope"},
	{"profile", "--program", "nope"},
	{"profile", "--output", "/nonexistent/dir/p.pb.gz"},
	{"profile", "--output", os.TempDir()},
	{"profile", "--before", "v3", "--after", "v4", "--format", "pprof"},
	{"profile", "--after", "v4"},
	{"profile", "--cpu", "-5"},
	{"profile", "--set", "novalue"},
	// Numbers past their flag's bound, refused before anything is read
	// or loaded (--samples 2^63-1 once panicked in makeslice, after the
	// programs were loaded; --resamples 2^63-1 in the bootstrap).
	{"bench", "--samples", "9223372036854775807"},
	{"bench", "--samples", "100001"},
	{"bench", "--resamples", "9223372036854775807"},
	{"compare", "--resamples", "100001", savedBefore, savedBefore},
	{"bench", "--time", "25h"},
	{"bench", "--warmup", "25h"},
	{"bench", "--placements", "1025"},
	{"bench", "--batch-size", "257", "--live"},
	{"bench", "--kernel-timeout", "25h"},
	{"bench", "--pcap-limit", "0"},
	{"bench", "--pcap-limit", "1001"},
	{"bench", "--size", "9019"},
	{"packets", "--size", "13"},
	{"profile", "--kernel-timeout", "0s"},
	{"validate", "--runs", "101"},
	{"validate", "--time", "25h"},
	{"worst", "--top", "1001"},
	{"worst", "--candidates", "1000000000001"},
	{"worst", "--time", "25h"},
	{"worst", "--timing", "25h"},
}

// Bad input: exit 2 and one line on stderr, nothing on stdout.
func TestBadInput(t *testing.T) {
	for _, args := range badInputs {
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

func TestProgramsListsBundledBuilds(t *testing.T) {
	code, stdout, stderr := runCLI("programs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"v1", "v2", "v3", "v4 (default)", "fizzbuzz"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("programs output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestVerifierRejectionExitsOne(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, _, stderr := runCLI("bench", "../../bpf/testdata/reject.o")
	first, rest, _ := strings.Cut(stderr, "\n")
	if code != exitFailed || !strings.Contains(first, "rejected by the verifier") || !strings.Contains(rest, "verifier log") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

func TestBenchJSON(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, stdout, stderr := runCLI(append([]string{"bench", "v2", "--format", "json"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep results.Run
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if rep.Schema != results.Schema || len(rep.Programs) != 1 {
		t.Fatalf("schema %q, %d programs", rep.Schema, len(rep.Programs))
	}
	cases := rep.Programs[0].Results
	if len(cases) != len(packets.Classes()) {
		t.Fatalf("%d cases, want %d", len(cases), len(packets.Classes()))
	}
	for i, c := range cases {
		if c.Name != packets.Classes()[i] || c.Source == "" || c.Frame == "" || c.Action != "XDP_PASS" {
			t.Errorf("case %d incomplete: %+v", i, c)
		}
		if len(c.Samples) != quickSamples || c.Stats == nil {
			t.Fatalf("%s: %d samples, stats %v", c.Name, len(c.Samples), c.Stats)
		}
		m := c.Stats.Estimates.Mean
		if !(m.Lower <= m.Point && m.Point <= m.Upper && m.Point > 0) {
			t.Errorf("%s: mean %+v not inside its interval", c.Name, m)
		}
	}
	if env := rep.Environment; env.Kernel == "" || env.CPUModel == "" || env.Repeat != quickRepeat {
		t.Errorf("environment incomplete: %+v", env)
	}
}

func TestBenchBMFToFile(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "results.json")
	html := filepath.Join(dir, "report")
	code, stdout, stderr := runCLI(append([]string{"bench", "--format", "bmf", "--output", out, "--report", html, "--class", "fizz,short"}, quick...)...)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var bmf map[string]map[string]struct {
		Value float64 `json:"value"`
		Lower float64 `json:"lower_value"`
		Upper float64 `json:"upper_value"`
	}
	if err := json.Unmarshal(data, &bmf); err != nil {
		t.Fatalf("not BMF: %v\n%s", err, data)
	}
	for _, name := range []string{"fizzbuzz/fizz", "fizzbuzz/short"} {
		l, ok := bmf[name]["latency"]
		if !ok || !(l.Lower <= l.Value && l.Value <= l.Upper && l.Value > 0) {
			t.Errorf("%s: %+v", name, bmf[name])
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the output directory holds %d entries, want only the report and the HTML directory", len(entries))
	}
	if _, err := os.Stat(filepath.Join(html, "index.html")); err != nil {
		t.Errorf("--report: %v", err)
	}
}

func TestBenchTable(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	for _, tc := range []struct {
		sampling string
		want     []string
	}{
		// 10 samples of a given repeat of 1000 make two levels, from a
		// tenth of it up to it.
		{"linear", []string{"slope [95% CI]", "kernel (low)", "10 × 100…1000", "linear sampling: repeats 100…1000 in steps of 900 (2 levels)", "CLOCK_MONOTONIC"}},
		{"flat", []string{"low [95% CI]", "10 × 1000", "whole number of ns per sample"}},
	} {
		code, stdout, stderr := runCLI(append([]string{"bench", "v3", "--wide", "--verbose", "--sampling", tc.sampling}, quick...)...)
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q: want nothing on stderr when it is no terminal", tc.sampling, code, stderr)
		}
		stdout = flat(stdout) // the lines under the table wrap
		want := tc.want
		if tc.sampling == "linear" && strings.Contains(stdout, "flat sampling: linear sampling needs calls") {
			// The machine kept the anchors from shortening the calls (a
			// busy other core slows the RCU grace periods the dispatcher
			// waits on): the run fell back to flat sampling, and says so.
			t.Logf("linear sampling fell back to flat on this machine: %s", stdout[strings.Index(stdout, "flat sampling: linear sampling needs calls"):])
			want = []string{"low [95% CI]", "flat sampling"}
		}
		for _, want := range append([]string{"fizzbuzz in v3 (bundled), XDP", "192.0.2.233", "XDP_PASS", "kernel ", "CPU "}, want...) {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: table lacks %q:\n%s", tc.sampling, want, stdout)
			}
		}
	}
}

// flat joins wrapped lines, and runs of spaces, so that a note reads as
// one line of single spaces.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// The default run reads at a glance: the bundled build's five classes
// and a before/after comparison, with default flags, each in at most 24
// lines of at most 100 columns, and up to 4 more where the machine's
// noise calls for them (a verdict not settled, groups in a slow phase:
// a 27-line comparison had both); --verbose adds the method.
func TestDefaultOutputAtAGlance(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	for _, args := range [][]string{{"bench"}, {"bench", "--before", "v3", "--after", "v4"}} {
		code, stdout, stderr := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
		if len(lines) > 28 {
			t.Errorf("%v: %d lines, want at most 24, and 4 more for the machine's noise:\n%s", args, len(lines), stdout)
		}
		for _, line := range lines {
			if n := utf8.RuneCountInString(line); n > 100 {
				t.Errorf("%v: a line of %d columns: %s", args, n, line)
			}
		}
		for _, method := range []string{"estimate:", "floor:", "insns: the BPF instructions", "intervals are"} {
			if strings.Contains(stdout, method) {
				t.Errorf("%v: the default output says %q:\n%s", args, method, stdout)
			}
		}
		if !strings.Contains(lines[len(lines)-1], "--verbose for the method") {
			t.Errorf("%v: the last line does not say where the method is:\n%s", args, stdout)
		}
	}
	code, stdout, stderr := runCLI("bench", "--verbose")
	if code != 0 {
		t.Fatalf("--verbose: exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("--verbose: a line of %d columns, not wrapped: %s", n, line)
		}
	}
	for _, method := range []string{"estimate: slope", "floor: empty_xdp", "insns: the BPF instructions", "measuring CPU", "intervals are", ": map verdicts: pushed FIZZ"} {
		if !strings.Contains(flat(stdout), method) {
			t.Errorf("--verbose lacks %q:\n%s", method, stdout)
		}
	}
}

// Without privileges the tool says what is missing and how to get it, in
// one line, and exits 1. Run as root, the test drops to nobody.
func TestUnprivileged(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	dir, err := os.MkdirTemp("", "xdpmicro-unprivileged")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil { // nobody must reach the binary
		t.Fatal(err)
	}
	data, err := os.ReadFile(buildBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "xdpmicro")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"bench"}, quick...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != exitFailed {
		t.Fatalf("got %v, want exit %d; stderr: %s", err, exitFailed, stderr.String())
	}
	msg := stderr.String()
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "sudo") || !strings.Contains(msg, "setcap") {
		t.Fatalf("want one line saying how to get privileges, got %q", msg)
	}
}

func TestCompletion(t *testing.T) {
	code, stdout, _ := runCLI("__complete", "bench", "--class", "")
	if code != 0 || !strings.Contains(stdout, "fibonacci\n") || !strings.Contains(stdout, "short\n") {
		t.Errorf("--class completion: exit %d, %q", code, stdout)
	}
	code, stdout, _ = runCLI("__complete", "bench", "--format", "")
	if code != 0 || !strings.Contains(stdout, "gobench\n") {
		t.Errorf("--format completion: exit %d, %q", code, stdout)
	}
	code, stdout, _ = runCLI("completion", "bash")
	if code != 0 || !strings.Contains(stdout, "bash completion") {
		t.Errorf("completion bash: exit %d", code)
	}
}

// Help reads like a manual: every flag with its default, and examples.
func TestHelp(t *testing.T) {
	code, stdout, _ := runCLI("help", "bench")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	stdout = strings.Join(strings.Fields(stdout), " ") // help wraps its lines
	for _, want := range []string{"Examples:", "--before old.o --after new.o", "(default 0.01)", "(default 2s, or 5s with --before/--after)", "default slope with linear sampling", "(default \"linear\")", "(default auto)", "(default \"table\")"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help bench lacks %q", want)
		}
	}
	if _, root, _ := runCLI("help"); !strings.Contains(root, "Exit codes:") {
		t.Error("help lacks the exit codes")
	}
}

// An error line quoting what the user named (a path, here with an OSC
// sequence that would set the terminal's title) reaches the terminal as
// text.
func TestErrorLineEscaped(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x\x1b]0;pwned\a\u009b2J.json")
	code, _, stderr := runCLI("compare", name, name)
	if code != exitUsage {
		t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
	}
	if strings.ContainsAny(stderr, "\x1b\a\u009b") {
		t.Errorf("a control character reached stderr: %q", stderr)
	}
	if !strings.Contains(stderr, `x\x1b]0;pwned\x07\u009b2J.json`) {
		t.Errorf("the name is not shown escaped: %q", stderr)
	}
}
