package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// The outliers, counted Criterion's way, are in the default table: a
// column of each case's, and Criterion's line where any is severe.
func TestOutliersColumn(t *testing.T) {
	out := rendered(t, newReport(t), Table)
	checkWidth(t, out)
	// fizz: 10..19 ns and one sample at 100 ns, high severe.
	for _, want := range []string{"│ outliers", "│ 1/11 (1hs) │", "│       0/11 │", "\n  Found 1 outlier among 22 measurements (1 high severe)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the default table lacks %q:\n%s", want, out)
		}
	}
	// No severe one, no line.
	res := runfixture.SampleResult(t)
	fizz := &res.Programs[0].Results[0]
	fizz.Samples = append(fizz.Samples[:10:10], 30) // 30 ns: high mild
	r := reportOf(t, res, "")
	if out := rendered(t, r, Table); !strings.Contains(out, "│ 1/11 (1hm) │") || strings.Contains(out, "Found") {
		t.Errorf("want a high mild outlier in the column and no line:\n%s", out)
	}
	// Under mean, each case's outliers have a line already.
	if out := rendered(t, reportOf(t, runfixture.SampleResult(t), stats.Mean), Table); !strings.Contains(out, "fizz: outliers 1 high severe") || strings.Contains(out, "Found") {
		t.Errorf("under mean, want the case's line and no Found:\n%s", out)
	}
}

func reportOf(t *testing.T, res results.Raw, est stats.Estimator) *results.Run {
	t.Helper()
	r, err := engine.New(results.Settings{Confidence: 0.95, Resamples: 1000, Estimator: est}, res, stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// est is an estimate of point ± a relative half-width hw.
func est(point, hw float64) results.Estimate {
	return results.Estimate{Point: point, Lower: point * (1 - hw), Upper: point * (1 + hw)}
}

// craftedCase is a case with the statistics a table reads: its estimate
// and its outliers among n samples.
func craftedCase(name, action string, insns uint64, e results.Estimate, n int, o results.Outliers) results.Case {
	net := results.Estimate{Point: e.Point - 27.15, Lower: e.Lower - 27.15, Upper: e.Upper - 27.15}
	return results.Case{Name: name, Action: action, Instructions: insns, Net: &net,
		Stats: &results.Summary{N: n, Estimates: results.Estimates{Low: e, Mean: e, Median: e}, Outliers: o}}
}

// many is outliers of every kind.
var many = results.Outliers{LowSevere: 12, LowMild: 54, HighMild: 166, HighSevere: 49}

// crafted is a run of one program over cases named names, every case
// with outliers o among 2267 samples, a floor, and the widest figures the
// bundled builds print.
func crafted(names []string, action string, o results.Outliers) *results.Run {
	p := results.Program{Object: "v4 (bundled)", Info: results.ProgramInfo{Name: "fizzbuzz", Type: "XDP"}}
	for _, name := range names {
		p.Results = append(p.Results, craftedCase(name, action, 185, est(70.27, 0.00007), 2267, o))
	}
	floor := p
	return &results.Run{
		Settings:    results.Settings{Confidence: 0.95},
		Environment: results.Environment{Kernel: "6.18.44-fc-v782", CPU: 1, CPUs: 2, CPUModel: "AMD EPYC"},
		Programs:    []results.Program{p},
		Floor:       &floor,
	}
}

// The column fits 100 columns for the bundled builds' cases and the
// protocol mix's, giving up the kinds first, then its place to a line
// where the names would not leave room.
func TestOutliersColumnFits(t *testing.T) {
	// As a loaded host makes them: 2267 samples a case.
	loaded := results.Outliers{LowMild: 50, HighMild: 96, HighSevere: 49}
	for _, tc := range []struct {
		what   string
		names  []string
		action string
		o      results.Outliers
		want   []string
	}{
		{"classes", packets.Classes(), "XDP_PASS", loaded, []string{"│ outliers", "│ 195/2267 (50lm 96hm 49hs) │"}},
		{"short", append(packets.Classes(), packets.Short), "XDP_ABORTED", loaded, []string{"│ outliers", "│ 195/2267 (50lm 96hm 49hs) │"}},
		{"every kind", packets.Classes(), "XDP_ABORTED", many, []string{"│ outliers", "│ 281/2267 │"}},
		{"mix", packets.Mix(), "XDP_REDIRECT", many, []string{"│ outliers", "│ 281/2267 │"}},
		{"long names", []string{strings.Repeat("x", 40)}, "XDP_REDIRECT", many, []string{"  outliers: " + strings.Repeat("x", 40) + " 281/2267 (12ls 54lm 166hm 49hs)"}},
	} {
		out := rendered(t, crafted(tc.names, tc.action, tc.o), Table)
		if tc.what != "long names" {
			checkWidth(t, out)
		}
		for _, want := range tc.want {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the table lacks %q:\n%s", tc.what, want, out)
			}
		}
		// One line, under every table.
		if n := strings.Count(out, "  Found "); n != 1 || strings.Contains(out, "severe)\n   ") {
			t.Errorf("%s: want Criterion's line once, on one line:\n%s", tc.what, out)
		}
		if tc.what == "long names" && strings.Contains(out, "│ outliers") {
			t.Errorf("%s: the column stays where it cannot fit:\n%s", tc.what, out)
		}
	}
	out := rendered(t, crafted(packets.Classes(), "XDP_PASS", many), Table)
	if !strings.Contains(out, "  Found 1405 outliers among 11335 measurements (60ls 270lm 830hm 245hs)\n") {
		t.Errorf("want Criterion's line with the kinds short where their words do not fit:\n%s", out)
	}
	// --wide has room: the kinds, whatever the names.
	if out := renderView(t, crafted(packets.Mix(), "XDP_REDIRECT", many), Table, View{Wide: true}); !strings.Contains(out, "│ 281/2267 (12ls 54lm 166hm 49hs) │") {
		t.Errorf("--wide lacks the kinds:\n%s", out)
	}
}

// comparedRun is a before/after run of cases named names, each build
// loaded placements times, every load of every case with outliers o among
// 100 calls, every case changed by change with the verdict v, sides
// measured to ±hw.
func comparedRun(names []string, placements int, o results.Outliers, change float64, v stats.Verdict, hw float64) *results.Run {
	build := func(label string, insns uint64, point float64) results.Program {
		p := results.Program{Label: label, Object: label, Info: results.ProgramInfo{Name: "fizzbuzz", Type: "XDP"}}
		for _, name := range names {
			c := craftedCase(name, "XDP_PASS", insns, est(point, hw), 100, o)
			c.Runs = []uint32{1}
			p.Results = append(p.Results, c)
		}
		for range placements - 1 {
			q := p
			q.Placements = nil
			p.Placements = append(p.Placements, q)
		}
		return p
	}
	before, after := build("v3", 185, 104.1), build("v4", 33, 104.1*(1+change))
	c := &results.Comparison{Mode: results.Interleaved, Before: "fizzbuzz in v3", After: "fizzbuzz in v4", Significance: 0.05, NoiseThreshold: 0.0025, Estimator: "slope"}
	for _, name := range names {
		cc := results.ComparedCase{Name: name, Before: est(104.1, hw), After: est(104.1*(1+change), hw), InsnsBefore: 185, InsnsAfter: 33}
		if placements > 1 {
			cc.Placements = placements
		}
		cc.Change = results.Estimate{Point: change, Lower: change - 0.0267, Upper: change + 0.0267}
		cc.Verdict = v
		c.Cases = append(c.Cases, cc)
	}
	return &results.Run{
		Settings:    results.Settings{Confidence: 0.95},
		Environment: results.Environment{Kernel: "6.18.44-fc-v782", CPU: 1, CPUs: 2, CPUModel: "AMD EPYC"},
		Programs:    []results.Program{before, after},
		Comparison:  c,
	}
}

// A comparison's outliers are both builds', over every load the change
// stands for: a column of counts within 100 columns, each build's with
// --wide.
func TestComparisonOutliers(t *testing.T) {
	mild := results.Outliers{HighMild: 2}
	severe := results.Outliers{HighMild: 2, HighSevere: 1}
	// 8 loads a build, 100 calls each: 1600 calls a case.
	r := comparedRun(packets.Classes(), 8, mild, -0.1665, stats.Improved, 0.0072)
	out := rendered(t, r, Table)
	checkWidth(t, out)
	for _, want := range []string{"│ change % [95% CI]", "│ -16.7 [-19.3 -14.0] │ improved │", "│ outliers", "│  32/1600 │"} {
		if !strings.Contains(out, want) {
			t.Errorf("the comparison lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Found") {
		t.Errorf("no severe outliers, yet a Found line:\n%s", out)
	}
	wide := renderView(t, r, Table, View{Wide: true})
	if !strings.Contains(wide, "│ 16/800 (16hm) → 16/800 (16hm) │") {
		t.Errorf("--wide lacks each build's outliers:\n%s", wide)
	}
	// One load a build: the first's alone.
	r = comparedRun(packets.Classes(), 1, severe, -0.1665, stats.Improved, 0.0072)
	out = rendered(t, r, Table)
	for _, want := range []string{"│    6/200 │", "\n  Found 30 outliers among 1000 measurements (20 high mild, 10 high severe)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("one load: the comparison lacks %q:\n%s", want, out)
		}
	}
	// The widest verdict with the mix's names leaves no room: the counts
	// go under the table, every line within 100 columns.
	r = comparedRun(packets.Mix(), 8, severe, 0.0012, stats.WithinNoise, 0.0072)
	out = rendered(t, r, Table)
	checkWidth(t, out)
	if strings.Contains(out, "│ outliers") || !strings.Contains(flat(out), "outliers: tcp-syn 48/1600 (32hm 16hs), udp-dns 48/1600 (32hm 16hs),") {
		t.Errorf("want the outliers in a line under a table with no room:\n%s", out)
	}
}

// The change's digits as its size needs, so that the column of outliers
// fits beside it.
func TestChangeDigits(t *testing.T) {
	for _, tc := range []struct {
		m    results.Estimate
		want string
	}{
		{results.Estimate{Point: 0.0012, Lower: -0.0005, Upper: 0.003}, "+0.12 [-0.05 +0.30]"},
		{results.Estimate{Point: -0.0537, Lower: -0.0772, Upper: -0.0303}, "-5.37 [-7.72 -3.03]"},
		{results.Estimate{Point: -0.0972, Lower: -0.145, Upper: -0.0495}, "-9.7 [-14.5 -5.0]"},
		{results.Estimate{Point: -0.1665, Lower: -0.1932, Upper: -0.1399}, "-16.7 [-19.3 -14.0]"},
		{results.Estimate{Point: 0.09, Lower: 0.08, Upper: 0.09996}, "+9.0 [+8.0 +10.0]"},
		{results.Estimate{Point: 2.2886, Lower: 2.20, Upper: 2.38}, "+229 [+220 +238]"},
	} {
		if got := changeCell(tc.m); got != tc.want {
			t.Errorf("changeCell(%+v) = %q, want %q", tc.m, got, tc.want)
		}
	}
}

// Criterion's line gives way first where the default output would pass
// 24 lines, and stays where the output is longer anyway.
func TestOutliersLineBudget(t *testing.T) {
	severe := results.Outliers{HighSevere: 1}
	withWarnings := func(n int) *results.Run {
		r := comparedRun(packets.Classes(), 1, severe, -0.1665, stats.Improved, 0.0072)
		for i := range n {
			r.Comparison.Warnings = append(r.Comparison.Warnings, fmt.Sprintf("warning %d", i))
		}
		return r
	}
	base := strings.Count(rendered(t, withWarnings(0), Table), "\n")
	if !strings.Contains(rendered(t, withWarnings(0), Table), "Found 10 outliers") {
		t.Fatal("no Found line to drop")
	}
	for warnings, kept := range map[int]bool{maxLines - base: true, maxLines - base + 1: false, maxLines - base + 2: true} {
		out := rendered(t, withWarnings(warnings), Table)
		if got := strings.Contains(out, "Found"); got != kept {
			t.Errorf("%d lines without the Found line: kept %v, want %v:\n%s", base+warnings-1, got, kept, out)
		}
	}
}

// An unsettled verdict names what narrows it: more time, or, where a given
// repeat makes every call last milliseconds, a smaller repeat first.
func TestUnsettledRemedy(t *testing.T) {
	r := comparedRun(packets.Classes(), 8, results.Outliers{}, -0.02, stats.NoChange, 0.03)
	r.Environment.Repeat, r.Environment.RepeatChosen = 2000, true
	if out := flat(rendered(t, r, Table)); !strings.Contains(out, "verdicts not settled") || !strings.Contains(out, "more time (--time) narrows them") {
		t.Errorf("a chosen repeat: the note lacks more time:\n%s", out)
	}
	r.Environment.Repeat, r.Environment.RepeatChosen = 1000000, false
	out := flat(rendered(t, r, Table))
	for _, want := range []string{"at repeat 1000000 each call lasts about 104ms", "without --repeat, shorter calls"} {
		if !strings.Contains(out, want) {
			t.Errorf("repeat 1000000: the note lacks %q:\n%s", want, out)
		}
	}
	r.Environment.Repeat = 1000
	if out := flat(rendered(t, r, Table)); !strings.Contains(out, "more time (--time) narrows them") {
		t.Errorf("a given repeat of short calls: the note lacks more time:\n%s", out)
	}
	// Two saved runs on a host that moves: their levels differ by more
	// than either run's time narrows; the interleaved comparison settles.
	r.Comparison.Mode = results.Files
	for p := range r.Programs {
		for i := range r.Programs[p].Results {
			r.Programs[p].Results[i].Stats.Loads = &results.Loads{Wander: stats.HostWander}
		}
	}
	out = flat(rendered(t, r, Table))
	if !strings.Contains(out, "compare the builds interleaved (--before/--after), which settles them") || strings.Contains(out, "more time (--time) narrows") {
		t.Errorf("saved runs on a moving host: the note should point to interleaving, not more time:\n%s", out)
	}
}
