package xdpmicro_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/perf/benchfmt"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
)

var quick = &xdpmicro.Options{Budget: time.Second}

func v4Spec(t *testing.T) *ebpf.CollectionSpec {
	t.Helper()
	spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(bpf.Builds()[3].Object))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// A program given as a spec is measured as the same object's file is:
// the same actions and instruction counts, each case timed with an
// interval around its estimate, the floor's net beside it.
func TestSpecAsObject(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	ctx := context.Background()
	classes, err := xdpmicro.Classes()
	if err != nil {
		t.Fatal(err)
	}
	opts := &xdpmicro.Options{Cases: classes, Budget: time.Second}
	fromSpec, err := xdpmicro.Measure(ctx, xdpmicro.Spec(v4Spec(t), "fizzbuzz"), opts)
	if err != nil {
		t.Fatal(err)
	}
	bundled, err := xdpmicro.Measure(ctx, xdpmicro.Build("v4"), opts)
	if err != nil {
		t.Fatal(err)
	}
	got, want := fromSpec.Programs[0].Results, bundled.Programs[0].Results
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d cases from the spec, %d from the object", len(got), len(want))
	}
	for i, c := range got {
		if c.Name != want[i].Name || c.Action != want[i].Action || c.Instructions != want[i].Instructions || c.Instructions == 0 {
			t.Errorf("spec: %s %s %d insns; object: %s %s %d", c.Name, c.Action, c.Instructions, want[i].Name, want[i].Action, want[i].Instructions)
		}
		checkTimed(t, fromSpec, &c)
	}
}

// checkTimed holds a case's metrics to what Benchmark promises.
func checkTimed(t *testing.T, rep *results.Run, c *results.Case) {
	t.Helper()
	m := xdpmicro.Metrics(rep, c)
	ns, lo, hi := m["ns/op"], m[xdpmicro.UnitLow], m[xdpmicro.UnitHigh]
	// The low bound itself may fall below zero: a 1 s run of three
	// groups, one in a slow phase, has two degrees of freedom (t 4.3),
	// and read 81.8 ns in [-10.9 174.5] here. That is the run's honest
	// width, not a fault.
	if !(lo <= ns && ns <= hi && ns > 0 && hi > lo) {
		t.Errorf("%s: %g ns in [%g %g]: want a positive estimate inside its interval", c.Name, ns, lo, hi)
	}
	if net, ok := m[xdpmicro.UnitNet]; !ok || net >= ns {
		t.Errorf("%s: net of the floor %g (reported %v), time %g: want a net below the time", c.Name, net, ok, ns)
	}
}

// A program its caller loaded is run as it is: timed, no instructions
// counted (and why), and still the caller's, open, afterwards.
func TestLoadedProgram(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	coll, err := ebpf.NewCollection(v4Spec(t))
	if err != nil {
		t.Fatal(err)
	}
	defer coll.Close()
	prog := coll.Programs["fizzbuzz"]
	rep, err := xdpmicro.Measure(context.Background(), xdpmicro.Loaded(prog), quick)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Programs[0].Results {
		if c.Instructions != 0 || !strings.Contains(c.NoCount, "CollectionSpec") {
			t.Errorf("%s: %d insns, %q: want none, and the reason", c.Name, c.Instructions, c.NoCount)
		}
		if _, ok := xdpmicro.Metrics(rep, &c)[xdpmicro.UnitInsns]; ok {
			t.Errorf("%s: an insns/op metric without a count", c.Name)
		}
		checkTimed(t, rep, &c)
	}
	if _, err := prog.Run(&ebpf.RunOptions{Data: make([]byte, 64)}); err != nil {
		t.Errorf("the caller's program after Measure: %v", err)
	}
}

// Bad input is bad input: the command's exit code 2.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	for name, p := range map[string]xdpmicro.Program{
		"missing file":  xdpmicro.File(filepath.Join(t.TempDir(), "none.o"), ""),
		"unknown build": xdpmicro.Build("v9"),
		"no program":    xdpmicro.Spec(v4Spec(t), "nonesuch"),
	} {
		if _, err := xdpmicro.Measure(ctx, p, quick); !errors.Is(err, badinput.Err) {
			t.Errorf("%s: got %v, want bad input", name, err)
		}
	}
	if _, err := xdpmicro.Measure(ctx, xdpmicro.Build("v4"), &xdpmicro.Options{Precision: 2, Budget: time.Second}); !errors.Is(err, badinput.Err) {
		t.Errorf("precision 2: got %v, want bad input", err)
	}
}

// go test -bench on examples/portfilter prints what benchstat reads: a
// line per case with fractional ns/op inside lo-ns/op and hi-ns/op,
// insns/op declared exact, net-ns/op; with -count 2, two measurements,
// not one reported twice.
func TestBenchmarkLines(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	const count = 2
	cmd := exec.Command(goTool, "test", "-run", "^$", "-bench", "BenchmarkFilter$", "-benchtime", "1s", "-count", strconv.Itoa(count), "./examples/portfilter")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go test -bench: %v\n%s", err, out)
	}
	r := benchfmt.NewReader(bytes.NewReader(out), "go test")
	cases, fractional := 0, false
	times := map[string][]float64{}
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		cases++
		v := map[string]float64{}
		for _, val := range res.Values {
			if val.OrigUnit == "" { // not tidied: as written
				val.OrigUnit, val.OrigValue = val.Unit, val.Value
			}
			v[val.OrigUnit] = val.OrigValue
		}
		ns := v["ns/op"]
		times[string(res.Name)] = append(times[string(res.Name)], ns)
		fractional = fractional || ns != math.Trunc(ns)
		if !(v[xdpmicro.UnitLow] <= ns && ns <= v[xdpmicro.UnitHigh]) || v[xdpmicro.UnitInsns] < 1 || v[xdpmicro.UnitNet] >= ns {
			t.Errorf("%s: %v", res.Name, v)
		}
		if res.GetConfig("pkg") == "" {
			t.Errorf("%s: no pkg: go test's header was not read", res.Name)
		}
		if u := r.Units(); u[benchfmt.UnitMetadataKey{Unit: xdpmicro.UnitInsns, Key: "assume"}].Value != "exact" {
			t.Errorf("insns/op not declared exact: %v", u)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	// portfilter's cases: ssh, web and dns, then the protocol mix.
	want := 3 + len(xdpmicro.Mix())
	if cases != count*want || len(times) != want || !fractional {
		t.Errorf("%d results of %d cases, fractional ns/op %v: want portfilter's %d cases %d times, fractional\n%s",
			cases, len(times), fractional, want, count, out)
	}
	differ := 0
	for _, ts := range times {
		if len(ts) == count && ts[0] != ts[1] {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("every case read the same twice: one measurement reported for both counts\n%s", out)
	}
}
