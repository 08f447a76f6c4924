package report

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

func TestCompareInterleaved(t *testing.T) {
	r := runfixture.Interleaved(t, runfixture.TwoBuilds(t), stats.DefaultOptions())
	c := r.Comparison
	if !c.Regressed() || c.Mode != results.Interleaved || c.Test != results.PairedTest || len(c.Cases) != 2 {
		t.Fatalf("comparison: %+v", c)
	}
	for _, cc := range c.Cases {
		if cc.Verdict != stats.Regressed || cc.Mean.Point < 0.49 || cc.Mean.Point > 0.51 {
			t.Errorf("%s: %s, change %+v; want regressed by 50 %%", cc.Name, cc.Verdict, cc.Mean)
		}
	}
	out := rendered(t, r, Table)
	checkWidth(t, out)
	for _, want := range []string{"before: fizzbuzz in v4 (bundled)", "│ regressed │", "│ +50.0 [+50.0 +50.0] │", "│ 2/22 (2hs) │", "0 improved, 2 regressed, 0 no change, 0 within noise (by mean; noise threshold ±2 %)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "paired sign-flip") || strings.Contains(out, "+11.14 ns") {
		t.Errorf("the default table shows the test, or Δ:\n%s", out)
	}
	out = flat(renderView(t, r, Table, View{Wide: true, Verbose: true}))
	for _, want := range []string{"+50.00 %", "+11.14 ns", "paired sign-flip"} {
		if !strings.Contains(out, want) {
			t.Errorf("wide, verbose table lacks %q:\n%s", want, out)
		}
	}
	if js := rendered(t, r, JSON); !strings.Contains(js, `"verdict": "regressed"`) {
		t.Error("JSON lacks the verdict")
	}
	// BMF tracks the after build.
	if bmf := rendered(t, r, BMF); !strings.Contains(bmf, `"value": 7.5`) {
		t.Errorf("BMF does not report the after build (short: 5 ns × 1.5):\n%s", bmf)
	}
}

// With a floor, every case is also given net of it: the paired difference
// of the means, here exactly 14.5 - 4.5 = 10 ns for fizz (samples 10..19
// against 0..9 in the same rounds, plus 100 against 90).
func TestNetOfFloor(t *testing.T) {
	res := runfixture.SampleResult(t)
	floor := runfixture.Derived(res.Programs[0], "floor", func(s float64) float64 { return s - 10 })
	res.Floor = &floor
	r, err := engine.New(results.Settings{Confidence: 0.95}, res, stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Programs[0].Results {
		// The low estimate's weights sum to 1 up to rounding.
		const eps = 1e-9
		if c.Net == nil || math.Abs(c.Net.Point-10) > eps || math.Abs(c.Net.Lower-10) > eps || math.Abs(c.Net.Upper-10) > eps {
			t.Errorf("%s: net %+v, want 10 ns", c.Name, c.Net)
		}
	}
	if r.Floor == nil || len(r.Floor.Results) != 2 {
		t.Fatal("the floor is not in the report")
	}
	out := rendered(t, r, Table)
	if !strings.Contains(out, "net of floor") || !strings.Contains(out, "10.00 ±0.00 ns") || strings.Contains(out, "floor: fizzbuzz") {
		t.Errorf("table lacks the net figures, or shows the floor's:\n%s", out)
	}
	out = renderView(t, r, Table, View{Wide: true, Verbose: true})
	if !strings.Contains(out, "10.00 [10.00 10.00] ns") || !strings.Contains(out, "floor: fizzbuzz") {
		t.Errorf("wide, verbose table lacks the net's interval or the floor's figures:\n%s", out)
	}
}

// Builds that return different actions for a case say so, and that counts
// as a regression, however the times compare.
func TestActionChanged(t *testing.T) {
	res := runfixture.SampleResult(t)
	after := runfixture.Derived(res.Programs[0], "after", func(s float64) float64 { return s })
	after.Results[0].Return, after.Results[0].Action = 1, "XDP_DROP"
	res.Programs[0].Label = "before"
	res.Programs = append(res.Programs, after)
	r := runfixture.Interleaved(t, res, stats.DefaultOptions())
	c := r.Comparison
	if !c.Regressed() || !c.Cases[0].ActionChanged() || c.Cases[1].ActionChanged() || c.Cases[0].Verdict == stats.Regressed {
		t.Fatalf("comparison: %+v", c.Cases)
	}
	if out := rendered(t, r, Table); !strings.Contains(out, "fizz: ACTION CHANGED: XDP_PASS before, XDP_DROP after") {
		t.Errorf("table:\n%s", out)
	}
	if js := rendered(t, r, JSON); !strings.Contains(js, `"action_after": "XDP_DROP"`) {
		t.Error("JSON lacks the changed action")
	}
}

// The CPU lock's story is saved, and shown in the table's CPU line;
// results saved before runs took CPU locks, without cpu_lock, are still
// read and compared.
func TestCPULockSaved(t *testing.T) {
	dir := t.TempDir()
	res := runfixture.SampleResult(t)
	res.Environment.CPU = 0
	res.Environment.CPUChoice = "moved from CPU 1 (only allowed CPU other than 0), which another xdpmicro run held"
	res.Environment.CPULock = &results.CPULock{Path: "@xdpmicro-cpu0", Preferred: 1, HeldByOthers: []int{1}}
	cur, err := engine.New(results.Settings{Confidence: 0.95}, res, stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if out := rendered(t, cur, Table); !strings.Contains(out, "measuring CPU 0: moved from CPU 1 (") {
		t.Errorf("the table does not tell the move:\n%s", out)
	}
	path := filepath.Join(dir, "new.json")
	if err := (Output{Format: JSON, Path: path}).Write(io.Discard, OfRun(cur)); err != nil {
		t.Fatal(err)
	}
	back, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if l := back.Environment.CPULock; l == nil || l.Path != res.Environment.CPULock.Path || l.Preferred != 1 || len(l.HeldByOthers) != 1 {
		t.Errorf("cpu_lock read back as %+v", l)
	}

	old, err := engine.New(results.Settings{Confidence: 0.95}, runfixture.SampleResult(t), stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	oldPath := filepath.Join(dir, "old.json")
	if err := (Output{Format: JSON, Path: oldPath}).Write(io.Discard, OfRun(old)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "cpu_lock") {
		t.Fatalf("a result without a lock saves cpu_lock:\n%s", data)
	}
	base, err := results.Read(oldPath)
	if err != nil {
		t.Fatalf("a result saved before CPU locks: %v", err)
	}
	if base.Environment.CPULock != nil {
		t.Errorf("no cpu_lock read as %+v", base.Environment.CPULock)
	}
	r, err := engine.Against(base, back, results.Files, runfixture.CompareOpts())
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(r.Comparison.Warnings, "\n"); !strings.Contains(w, "CPU 1 before, CPU 0 after") {
		t.Errorf("warnings: %q", w)
	}
}
