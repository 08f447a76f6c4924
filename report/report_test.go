package report

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

func newReport(t *testing.T) *results.Run {
	t.Helper()
	r, err := engine.New(results.Settings{Confidence: 0.95, Resamples: 1000}, runfixture.SampleResult(t), stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func rendered(t *testing.T, r *results.Run, f Format) string {
	t.Helper()
	return renderView(t, r, f, View{})
}

func renderView(t *testing.T, r *results.Run, f Format, v View) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, r, f, v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// flat joins a table's wrapped lines, and its runs of spaces, so that a
// note reads as one line of single spaces.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkWidth fails for a line wider than the default output's maxColumns.
func checkWidth(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > maxColumns {
			t.Errorf("a line of %d columns: %s", n, line)
		}
	}
}

func TestTable(t *testing.T) {
	r := newReport(t)
	narrow := rendered(t, r, Table)
	checkWidth(t, narrow)
	if strings.Contains(narrow, "192.0.2.4") || strings.Contains(narrow, "std dev") || strings.Contains(narrow, "samples") {
		t.Errorf("the default table shows wide columns:\n%s", narrow)
	}
	// The figures with their intervals, the outliers as Criterion counts
	// them, and one line of the footer; the method, the restarted samples
	// and each case's outliers by kind wait for --verbose.
	for _, want := range []string{"10.07 ns ±14.9 %", "5.00 ns ±0 %", "│ 1/11 (1hs) │", "Found 1 outlier among 22 measurements (1 high severe)",
		"kernel 6.1.0-test · CPU 1 of 2 · wall 0s · --verbose for the method"} {
		if !strings.Contains(narrow, want) {
			t.Errorf("the default table lacks %q:\n%s", want, narrow)
		}
	}
	for _, routine := range []string{"resolution", "estimate:", "restarted", "outliers are kept", "fizz: outliers"} {
		if strings.Contains(narrow, routine) {
			t.Errorf("the default table says %q:\n%s", routine, narrow)
		}
	}
	verbose := renderView(t, r, Table, View{Verbose: true})
	checkWidth(t, verbose) // wrapped
	for _, want := range []string{"fizz: outliers 1 high severe", "resolution 1 ns", "estimate: low"} {
		if !strings.Contains(flat(verbose), want) {
			t.Errorf("--verbose lacks %q:\n%s", want, verbose)
		}
	}
	out := flat(renderView(t, r, Table, View{Wide: true, Verbose: true}))
	mean := (10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 100) / 11.0
	for _, want := range []string{
		"fizzbuzz in v4 (bundled), XDP",
		"192.0.2.4", "XDP_ABORTED",
		strings.TrimRight(printable.NS(mean), "0"), // the mean, 22.27
		"1/11 (1hs)", // the 100 ns sample, high severe
		"fizz: outliers 1 high severe",
		"fizz: 2 sample(s) restarted",
		"11 × 1000", "kernel 6.1.0-test", "CPU 1 of 2", "resolution 1 ns",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// Outliers matter where they move the estimate shown: the mean's.
func TestOutliersUnderMean(t *testing.T) {
	r, err := engine.New(results.Settings{Confidence: 0.95, Resamples: 1000, Estimator: stats.Mean}, runfixture.SampleResult(t), stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if out := rendered(t, r, Table); !strings.Contains(out, "fizz: outliers 1 high severe") {
		t.Errorf("the mean's outliers are not in the default table:\n%s", out)
	}
}

// Notes wrap at spaces within maxColumns, never between a figure and its
// %, and a word longer than a line stays whole.
func TestWrap(t *testing.T) {
	text := strings.Repeat("word ", 30) + "±1 % " + strings.Repeat("x", 120)
	lines := wrap(text, "  ", "    ", 40)
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > 40 && !strings.Contains(l, "xxxx") {
			t.Errorf("line %d of %d columns: %q", i, n, l)
		}
		if i > 0 && !strings.HasPrefix(l, "    ") || i == 0 && !strings.HasPrefix(l, "  word") {
			t.Errorf("line %d indented wrong: %q", i, l)
		}
		if strings.HasPrefix(strings.TrimSpace(l), "%") {
			t.Errorf("a %% alone: %q", l)
		}
	}
	if flat(strings.Join(lines, "\n")) != flat(text) {
		t.Errorf("wrapping changed the text:\n%s", strings.Join(lines, "\n"))
	}
}

func TestBMF(t *testing.T) {
	var bmf map[string]map[string]map[string]float64
	if err := json.Unmarshal([]byte(rendered(t, newReport(t), BMF)), &bmf); err != nil {
		t.Fatal(err)
	}
	if len(bmf) != 2 {
		t.Fatalf("%d benchmarks, want 2: %v", len(bmf), bmf)
	}
	short := bmf["fizzbuzz/short"]["latency"]
	if short["value"] != 5 || short["lower_value"] != 5 || short["upper_value"] != 5 {
		t.Errorf("constant samples of 5 ns: got %v", short)
	}
	fizz := bmf["fizzbuzz/fizz"]["latency"]
	if !(fizz["lower_value"] < fizz["value"] && fizz["value"] < fizz["upper_value"]) {
		t.Errorf("fizz: value outside its interval: %v", fizz)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	r := newReport(t)
	var back results.Run
	if err := json.Unmarshal([]byte(rendered(t, r, JSON)), &back); err != nil {
		t.Fatal(err)
	}
	got, want := back.Programs[0].Results[0], r.Programs[0].Results[0]
	if got.Source != "192.0.2.4" || len(got.Samples) != 11 || got.Stats.Outliers.HighSevere != 1 || got.Frame != want.Frame {
		t.Errorf("round trip lost data: %+v", got)
	}
}

func TestPartialReportSkipsThinCases(t *testing.T) {
	res := runfixture.SampleResult(t)
	res.Partial = true
	res.Programs[0].Results[1].Samples = res.Programs[0].Results[1].Samples[:3]
	r, err := engine.New(results.Settings{Confidence: 0.95}, res, stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.Programs[0].Results[1].Stats != nil || r.Programs[0].Results[0].Stats == nil {
		t.Fatal("want statistics only for the case with enough samples")
	}
	if out := rendered(t, r, Table); !strings.Contains(out, "PARTIAL") || !strings.Contains(out, "too few samples") {
		t.Errorf("partial table not marked:\n%s", out)
	}
}

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (Output{Format: JSON, Path: path}).Write(io.Discard, OfRun(newReport(t))); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !json.Valid(data) {
		t.Fatalf("file is not the new report: %q", data[:min(len(data), 40)])
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want 1: temporary files left", len(entries))
	}
	// A file that cannot be written leaves the run on standard output,
	// as a table.
	var stdout bytes.Buffer
	if err := (Output{Format: JSON, Path: filepath.Join(dir, "no", "such", "dir.json")}).Write(&stdout, OfRun(newReport(t))); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
	if !strings.Contains(stdout.String(), "fizzbuzz in ") || json.Valid(stdout.Bytes()) {
		t.Errorf("the run did not reach standard output as a table:\n%s", stdout.String())
	}
}

func TestParseFormat(t *testing.T) {
	for _, name := range Formats() {
		if _, err := ParseFormat(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("xml accepted")
	}
}

// Go benchmark format: one line per sample, read back by benchfmt as
// benchstat would read it.
func TestGoBench(t *testing.T) {
	r, err := engine.New(results.Settings{Confidence: 0.95}, runfixture.TwoBuilds(t), stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	out := rendered(t, r, GoBench)
	reader := benchfmt.NewReader(strings.NewReader(out), "test.txt")
	perBuild := map[string]int{}
	for reader.Scan() {
		if _, ok := reader.Result().(*benchfmt.UnitMetadata); ok {
			continue // TestGoBenchUnits
		}
		res, ok := reader.Result().(*benchfmt.Result)
		if !ok {
			t.Fatalf("not a result: %v", reader.Result())
		}
		if got := res.Name.String(); got != "Fizzbuzz/case=fizz" && got != "Fizzbuzz/case=short" {
			t.Errorf("name %q", got)
		}
		if v, ok := res.Value("sec/op"); !ok || v <= 0 || res.Iters != 1000 {
			t.Errorf("%s: value %v, iters %d", res.Name, v, res.Iters)
		}
		perBuild[res.GetConfig("build")]++
	}
	if err := reader.Err(); err != nil {
		t.Fatal(err)
	}
	if perBuild["before"] != 22 || perBuild["after"] != 22 {
		t.Errorf("lines per build: %v, want 22 each (one per sample: 11 fizz, 11 short)", perBuild)
	}
}

// A case whose program changed its frame, or whose calls ended with
// another action, says so in the table and the JSON.
func TestFrameChangeWarnings(t *testing.T) {
	res := runfixture.SampleResult(t)
	c := &res.Programs[0].Results[0]
	// As cmd hands over a frame changed in its first byte (toReport).
	c.OutputFrame = "ff" + c.Frame[2:]
	c.OutputSummary, c.OutputChanges = "udp 192.0.2.4:40000 > 198.51.100.1:9, 60 bytes", "bytes 0 differ"
	c.Return, c.Action = 3, "XDP_TX"
	c.OtherReturns, c.OtherAction = 7, "XDP_PASS"
	r, err := engine.New(results.Settings{Confidence: 0.95, Resamples: 1000}, res, stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	table := flat(rendered(t, r, Table))
	for _, want := range []string{"fizz: WARNING: the program changed the frame (bytes 0 differ): every run after", "fizz: WARNING: 7 of 11 calls ended with XDP_PASS, the checking run returned XDP_TX"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if verbose := flat(renderView(t, r, Table, View{Verbose: true})); !strings.Contains(verbose, "fizz: WARNING: the program changed the frame (bytes 0 differ; out: udp 192.0.2.4:40000 > 198.51.100.1:9, 60 bytes)") {
		t.Errorf("--verbose lacks the output frame:\n%s", verbose)
	}
	if strings.Contains(table, "short: WARNING") {
		t.Error("a case that changed nothing is warned about")
	}
	js := rendered(t, r, JSON)
	if !strings.Contains(js, `"output_frame_hex": "ff`) || !strings.Contains(js, `"other_returns": 7`) || !strings.Contains(js, `"other_action": "XDP_PASS"`) ||
		!strings.Contains(js, `"output_changes": "bytes 0 differ"`) || !strings.Contains(js, `"output_frame_summary": "udp 192.0.2.4`) {
		t.Error("JSON lacks the output frame or the other returns")
	}
}

// A run whose groups moved off a slow CPU names where they measured, in
// the default line and in the method.
func TestGroupsElsewhere(t *testing.T) {
	r := newReport(t)
	r.Environment.CPU, r.Environment.GroupCPUs = 1, []int{1, 1, 0, 0, 0}
	if got, want := r.Environment.MainCPU(), 0; got != want {
		t.Errorf("main CPU %d, want %d", got, want)
	}
	narrow := flat(rendered(t, r, Table))
	if want := "CPUs 1 and 0 of 2 · wall"; !strings.Contains(narrow, want) {
		t.Errorf("the default table lacks %q:\n%s", want, narrow)
	}
	verbose := flat(renderView(t, r, Table, View{Verbose: true}))
	if want := "3 of 5 groups on CPU 0: a group moves to another CPU"; !strings.Contains(verbose, want) {
		t.Errorf("--verbose lacks %q:\n%s", want, verbose)
	}
	r.Environment.GroupCPUs = nil
	if out := flat(rendered(t, r, Table)); strings.Contains(out, "CPUs") {
		t.Errorf("a run on one CPU says groups moved:\n%s", out)
	}
}

// The default table's last line names the CPU's model where it fits and
// always ends with where the method is: a Xeon's long name once wrapped
// "method" onto a line of its own.
func TestSummaryLineFits(t *testing.T) {
	long := strings.Repeat("Very Long Model ", 8)
	for model, want := range map[string]string{
		"Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz": "CPU 1 of 2 (Intel Xeon Gold 6148) · wall",
		"AMD EPYC 7B13 64-Core Processor":          "CPU 1 of 2 (AMD EPYC 7B13) · wall",
		"Intel(R) Xeon(R) Processor":               "CPU 1 of 2 (Intel Xeon) · wall",
		long:                                       "CPU 1 of 2 · wall",
	} {
		r := newReport(t)
		r.Environment.Kernel, r.Environment.CPU, r.Environment.CPUModel = "6.18.44-fc-v669", 1, model
		r.Environment.Wall = 1270 * time.Millisecond
		lines := strings.Split(strings.TrimRight(rendered(t, r, Table), "\n"), "\n")
		last := lines[len(lines)-1]
		if !strings.Contains(last, want) || !strings.HasSuffix(last, "--verbose for the method") || utf8.RuneCountInString(last) > maxColumns {
			t.Errorf("%q: the last line is %q, want %q in it, ending with the method's pointer, in %d columns", model, last, want, maxColumns)
		}
	}
}
