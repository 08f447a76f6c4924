package report

import (
	"math"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// Capture cases are named "1:udp 10.0.0.1>10.0.0.2": their Go benchmark
// lines must still read back, every one, as benchstat reads them, each case
// under a name of its own, split into the sub-names asked for.
func TestGoBenchCaptureNames(t *testing.T) {
	captured, err := packets.ReadPcap("../packets/testdata/sample.pcapng", 0)
	if err != nil {
		t.Fatal(err)
	}
	cases := captured
	// Names that differ only where '_' stands for a space, one ending in
	// what benchfmt would read as GOMAXPROCS, one with a '/', and one
	// padded to two sizes.
	for _, name := range []string{"a b", "a_b", "udp-2", "3:ip6/41 2001:db8::1>2001:db8::2"} {
		c := captured[0]
		c.Name = name
		cases = append(cases, c)
	}
	for _, size := range []int{128, 256} {
		padded, err := packets.Pad(captured[0], size)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, padded)
	}
	var measured []results.Case
	for _, c := range cases {
		samples := make([]float64, 10)
		for i := range samples {
			samples[i] = float64(20 + i)
		}
		measured = append(measured, runfixture.Fixture(c, 2, "XDP_PASS", samples))
	}
	res := results.Raw{
		Environment: results.Environment{Kernel: "6.18", Repeat: 1000, Resolution: 1},
		Programs:    []results.Program{{Object: "prog.o", Info: results.ProgramInfo{Name: "xdp_pass", Type: "XDP"}, Results: measured}},
	}
	opts := stats.DefaultOptions()
	opts.Resamples = 100
	r, err := engine.New(results.Settings{Confidence: 0.95, Sizes: []int{128, 256}}, res, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := rendered(t, r, GoBench)

	var parser benchproc.ProjectionParser
	byCase, err := parser.Parse("/case,/size", nil)
	if err != nil {
		t.Fatal(err)
	}
	reader := benchfmt.NewReader(strings.NewReader(out), "capture.txt")
	lines := map[string]int{} // full name: result lines
	keys := map[benchproc.Key]string{}
	for reader.Scan() {
		if _, ok := reader.Result().(*benchfmt.UnitMetadata); ok {
			continue // TestGoBenchUnits
		}
		res, ok := reader.Result().(*benchfmt.Result)
		if !ok {
			t.Fatalf("line not read as a result: %v", reader.Result())
		}
		name := res.Name.String()
		lines[name]++
		base, parts := res.Name.Parts()
		if string(base) != "Xdp_pass" {
			t.Errorf("%s: base name %q", name, base)
		}
		for _, p := range parts {
			key, _, ok := strings.Cut(strings.TrimPrefix(string(p), "/"), "=")
			if !ok || key != "case" && key != "size" {
				t.Errorf("%s: sub-name %q is not case=... or size=...", name, p)
			}
		}
		key := byCase.Project(res)
		if other, ok := keys[key]; ok && other != name {
			t.Errorf("benchstat's /case,/size puts %s and %s together", name, other)
		}
		keys[key] = name
	}
	if err := reader.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(cases) {
		t.Errorf("%d distinct names for %d cases: %v", len(lines), len(cases), lines)
	}
	total := 0
	for name, n := range lines {
		total += n
		if n != 10 {
			t.Errorf("%s: %d lines, want 10", name, n)
		}
	}
	written := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Benchmark") {
			written++
		}
	}
	if want := 10 * len(cases); total != want || written != want {
		t.Errorf("%d lines read back of %d written; want %d", total, written, want)
	}
	for _, want := range []string{
		"Xdp_pass/case=1:udp_10.0.0.1>10.0.0.2 ",
		"Xdp_pass/case=a_b ", "Xdp_pass/case=a_b#01 ", "Xdp_pass/case=udp_2 ",
		"Xdp_pass/case=3:ip6_41_2001:db8::1>2001:db8::2 ",
		"Xdp_pass/case=1:udp_10.0.0.1>10.0.0.2/size=128 ",
	} {
		if !strings.Contains(out, "Benchmark"+want) {
			t.Errorf("no line for Benchmark%s", want)
		}
	}
}

// gobenchRead reads gobench output as benchstat does: its results by
// name, and the units' metadata.
func gobenchRead(t *testing.T, out string) (map[string][]benchfmt.Result, benchfmt.UnitMetadataMap) {
	t.Helper()
	reader := benchfmt.NewReader(strings.NewReader(out), "gobench.txt")
	byName := map[string][]benchfmt.Result{}
	for reader.Scan() {
		switch rec := reader.Result().(type) {
		case *benchfmt.Result:
			res := *rec.Clone()
			byName[res.Name.String()] = append(byName[res.Name.String()], res)
		case *benchfmt.SyntaxError:
			t.Errorf("gobench: %v", rec)
		}
	}
	if err := reader.Err(); err != nil {
		t.Fatal(err)
	}
	return byName, reader.Units()
}

// gobench declares its units once, before the benchmark lines: insns/op
// exact, both lower the better. A linear case's ns/op is each call's own
// time per run from the wall clock, fractional (to 0.0001 ns), its
// iterations the call's repeat; a flat case keeps the kernel's whole ns.
func TestGoBenchUnits(t *testing.T) {
	for _, linear := range []bool{true, false} {
		res := runfixture.SpikeRun(t, 2, linear)
		for i := range res.Programs[0].Results {
			res.Programs[0].Results[i].Instructions = uint64(40 + i)
		}
		opts := stats.DefaultOptions()
		opts.Resamples = 100
		r, err := engine.New(runfixture.SettingsFor(linear), res, opts)
		if err != nil {
			t.Fatal(err)
		}
		out := rendered(t, r, GoBench)
		lines := strings.Split(out, "\n")
		if lines[0] != "Unit insns/op assume=exact better=lower" || lines[1] != "Unit ns/op better=lower" {
			t.Errorf("linear %v: output opens\n%s\n%s", linear, lines[0], lines[1])
		}
		if n := strings.Count(out, "Unit "); n != 2 {
			t.Errorf("linear %v: %d Unit lines, want 2", linear, n)
		}
		byName, units := gobenchRead(t, out)
		if units.GetAssumption("insns/op") != benchmath.AssumeExact || units.GetAssumption("ns/op") != benchmath.AssumeNothing {
			t.Errorf("linear %v: assumptions %v, %v", linear, units.GetAssumption("insns/op"), units.GetAssumption("ns/op"))
		}
		if units.GetBetter("insns/op") != -1 || units.GetBetter("ns/op") != -1 {
			t.Errorf("linear %v: better %d, %d", linear, units.GetBetter("insns/op"), units.GetBetter("ns/op"))
		}
		for i, c := range r.Programs[0].Results {
			got := byName["Xdp_prog_main/case="+c.Name]
			if len(got) != len(c.Samples) {
				t.Fatalf("linear %v: %s: %d lines, want %d", linear, c.Name, len(got), len(c.Samples))
			}
			fractional := 0
			for k, line := range got {
				ns, ok := nsPerOp(line)
				want, iters := c.Samples[k], 1000
				if linear {
					want = math.Round((c.Wall[k]-c.Stats.Fit.Intercept.Point)/float64(c.Runs[k])*1e4) / 1e4
					iters = int(c.Runs[k])
				}
				if !ok || ns != want || line.Iters != iters { // %v round-trips a float64
					t.Errorf("linear %v: %s line %d: %v ns/op (%v), %d iterations; want %v, %d", linear, c.Name, k, ns, ok, line.Iters, want, iters)
				}
				if ns != math.Trunc(ns) {
					fractional++
				}
				if insns, ok := line.Value("insns/op"); !ok || insns != float64(40+i) {
					t.Errorf("linear %v: %s line %d: insns/op %v (%v)", linear, c.Name, k, insns, ok)
				}
			}
			if linear && fractional < len(got)/2 || !linear && fractional > 0 {
				t.Errorf("linear %v: %s: %d of %d ns/op fractional", linear, c.Name, fractional, len(got))
			}
		}
	}
}

// nsPerOp is a line's ns/op as written, before benchfmt tidies it to
// sec/op.
func nsPerOp(res benchfmt.Result) (float64, bool) {
	for _, v := range res.Values {
		if v.OrigUnit == "ns/op" {
			return v.OrigValue, true
		}
	}
	return 0, false
}
