package xdpmicro

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/internal/profile"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// subject is a program to profile, with the cases and maps bench would
// give it.
type subject struct {
	name    string
	prog    testrun.Program
	cases   []string
	mapInit string
}

// subjects are every bundled build on every built-in case, programs with
// bpf-to-bpf calls and a bpf_loop callback, one with tail calls, and a
// port filter loaded as xdp-filter's loader would (ports.o: a per-CPU
// map pinned by name, a map without max_entries) with a port in its map.
func subjects(t *testing.T) []subject {
	var out []subject
	for _, b := range bpf.Builds() {
		out = append(out, subject{b.Name, testrun.Program{Object: testrun.Object{Name: b.Name, ELF: b.Object}, Program: b.Program}, packets.Names(), ""})
	}
	calls := kerneltest.ReadTestObject[testrun.Object](t, "calls.o")
	out = append(out,
		subject{"xdp_calls", testrun.Program{Object: calls, Program: "xdp_calls"}, []string{packets.Fizz, packets.Short}, ""},
		subject{"tc_calls", testrun.Program{Object: calls, Program: "tc_calls"}, []string{packets.Fizz}, ""},
		subject{"tail calls", testrun.Program{Object: kerneltest.ReadTestObject[testrun.Object](t, "tailcall.o"), Program: "entry"}, []string{packets.Fizz}, ""},
		subject{"port filter", testrun.Program{Object: kerneltest.ReadTestObject[testrun.Object](t, "ports.o")}, packets.Mix(),
			"maps:\n  ports:\n    - {key: htons(80), value: 1}\n"},
		subject{"no line info", testrun.Program{Object: kerneltest.ReadTestObject[testrun.Object](t, "nolines.o")}, packets.Classes(), ""},
	)
	return out
}

// runProfile profiles s, and counts its cases' instructions as bench does,
// in a run of its own.
func runProfile(t *testing.T, s subject) (*profile.Profile, []uint64) {
	t.Helper()
	cases, err := packets.Select(s.cases)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Programs: []Program{programOf(s.prog)}, Cases: cases}
	if s.mapInit != "" {
		if o.MapInit, err = testrun.ParseMapInit("init.yaml", []byte(s.mapInit)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Profile(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	checked, err := testrun.Check(context.Background(), testrun.Config{Programs: []testrun.Program{s.prog}, Cases: cases, MapInit: o.MapInit, CPU: testrun.AnyCPU})
	if err != nil {
		t.Fatal(err)
	}
	var insns []uint64
	for _, c := range checked.Programs[0].Cases {
		if c.Instructions == 0 {
			t.Fatalf("case %s not counted: %s", c.Case.Name, c.NoCount)
		}
		insns = append(insns, c.Instructions)
	}
	return rep.Profiles[0], insns
}

// Every profile's total is bench's insns column, and its lines, its
// functions and its pprof samples each add up to it: an instruction lost
// or counted twice changes a sum. Nothing stays loaded.
func TestProfileTotals(t *testing.T) {
	kerneltest.RequireBPF(t)
	for _, s := range subjects(t) {
		t.Run(s.name, func(t *testing.T) {
			prof, insns := runProfile(t, s)
			var buf bytes.Buffer
			if err := (report.Output{Format: report.Pprof}).Write(&buf, report.OfProfile(&profile.Report{Profiles: []*profile.Profile{prof}})); err != nil {
				t.Fatal(err)
			}
			samples := pprofByCase(t, buf.Bytes())
			for i, c := range prof.Cases {
				var lines, funcs uint64
				for _, l := range c.Lines {
					lines += l.Instructions
				}
				for _, f := range c.Functions {
					funcs += f.Self
				}
				if c.Total != insns[i] || lines != insns[i] || funcs != insns[i] || samples[c.Name] != int64(insns[i]) {
					t.Errorf("%s: total %d, lines %d, functions %d, pprof %d; bench counts %d",
						c.Name, c.Total, lines, funcs, samples[c.Name], insns[i])
				}
			}
		})
	}
	// A name no other test loads: tests of other packages run beside.
	if ids := kerneltest.Programs(t, "port_filter"); len(ids) > 0 {
		t.Errorf("programs left loaded: %v", ids)
	}
}

func pprofByCase(t *testing.T, data []byte) map[string]int64 {
	t.Helper()
	p, err := pprof.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, s := range p.Sample {
		out[s.Label["case"][0]] += s.Value[0]
	}
	return out
}

// v3's costliest case, high (last octet 255): the Fibonacci loop's lines
// carry most of its instructions.
func TestFibonacciLoopIsHot(t *testing.T) {
	kerneltest.RequireBPF(t)
	b, err := bpf.Lookup("v3")
	if err != nil {
		t.Fatal(err)
	}
	prof, insns := runProfile(t, subject{prog: testrun.Program{Object: testrun.Object{Name: "v3", ELF: b.Object}, Program: b.Program},
		cases: []string{packets.High}})
	c := prof.Cases[0]
	loop := uint64(0)
	for _, l := range c.Lines {
		// The loop's head and body (fizzbuzz.c, is_fibonacci in v3).
		if strings.Contains(l.Text, "b < n") || strings.Contains(l.Text, "a + b") {
			loop += l.Instructions
		}
	}
	if c.Total != insns[0] || 2*loop <= c.Total {
		t.Errorf("the loop's lines carry %d of %d instructions (bench: %d): want most", loop, c.Total, insns[0])
	}
	t.Logf("v3 high: %d instructions, %d on the Fibonacci loop's lines", c.Total, loop)
}

// calls.o: callees and the bpf_loop callback are functions of their own,
// entered as often as they ran (mix twice, count_down three times), all
// within the main function's inclusive count.
func TestProfileCalls(t *testing.T) {
	kerneltest.RequireBPF(t)
	prof, _ := runProfile(t, subject{prog: testrun.Program{Object: kerneltest.ReadTestObject[testrun.Object](t, "calls.o"), Program: "xdp_calls"}, cases: []string{packets.Fizz}})
	c := prof.Cases[0]
	calls := map[string]uint64{}
	for _, f := range c.Functions {
		calls[f.Name] = f.Calls
	}
	if calls["xdp_calls"] != 1 || calls["mix"] != 2 || calls["twice_global"] != 1 || calls["count_down"] != 3 {
		t.Errorf("entries %v: want xdp_calls 1, mix 2, twice_global 1, count_down 3", calls)
	}
	if c.Functions[0].Name != "xdp_calls" || c.Functions[0].Inclusive != c.Total {
		t.Errorf("main function %+v: want all %d instructions inclusive", c.Functions[0], c.Total)
	}
}

// A tail call that enters another program leaves the program: the
// profile counts the caller's instructions only, and says so.
func TestProfileTailCall(t *testing.T) {
	kerneltest.RequireBPF(t)
	prof, insns := runProfile(t, subject{prog: testrun.Program{Object: kerneltest.ReadTestObject[testrun.Object](t, "tailcall.o"), Program: "entry"}, cases: []string{packets.Fizz}})
	c := prof.Cases[0]
	// chosen's slot is empty: that call comes back; fallback's enters drop.
	if len(c.TailCalls) != 1 || c.TailCalls[0].Calls != 1 || !strings.Contains(c.TailCalls[0].Name, "tailcall.c") {
		t.Errorf("tail calls %+v: want one, from the fallback's line", c.TailCalls)
	}
	for _, f := range c.Functions {
		if f.Name != "entry" {
			t.Errorf("function %s counted: the entered program is not", f.Name)
		}
	}
	if c.Total != insns[0] {
		t.Errorf("total %d, bench %d", c.Total, insns[0])
	}
}

// The JIT's code is given by line, and where exact, the machine
// instructions executed are the line's count of runs times its code.
func TestProfileMachineCode(t *testing.T) {
	kerneltest.RequireBPF(t)
	if _, err := os.Stat("/proc/sys/net/core/bpf_jit_enable"); err != nil {
		t.Skip("no BPF JIT:", err)
	}
	b, err := bpf.Lookup("v4")
	if err != nil {
		t.Fatal(err)
	}
	prof, _ := runProfile(t, subject{prog: testrun.Program{Object: testrun.Object{Name: "v4", ELF: b.Object}, Program: b.Program}, cases: []string{packets.Fizz}})
	if prof.Machine == "" {
		t.Skip("no machine code by line here:", prof.NoMachine)
	}
	code := 0
	for _, s := range prof.Source {
		code += len(s.Code)
	}
	exact := 0
	for _, l := range prof.Cases[0].Lines {
		if l.Exact && l.Machine > 0 {
			exact++
		}
		if !l.Exact && l.NotExact == "" {
			t.Errorf("%s: not exact, and no reason", l.Line)
		}
	}
	if code == 0 || exact == 0 {
		t.Errorf("%d machine instructions by line, %d lines exact: want some of each", code, exact)
	}
}

// Where the verifier spent its effort adds up to what it says it
// processed, by line and by function, and agrees with the measured load's
// statistics (a load of its own, at BPF_LOG_STATS); before/after gives
// its change.
func TestProfileVerifierWalk(t *testing.T) {
	kerneltest.RequireBPF(t)
	processed := func(prog testrun.Program) uint64 {
		_, loads, err := testrun.Verify(prog, testrun.LoadOptions{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return loads[0].Processed
	}
	walked := 0
	for _, s := range subjects(t) {
		if s.name != "v3" && s.name != "xdp_calls" && s.name != "tail calls" {
			continue
		}
		walked++
		prof, _ := runProfile(t, s)
		w := prof.Verifier
		if w == nil {
			t.Fatalf("%s: no verifier walk: %s", s.name, prof.NoVerifier)
		}
		var lines, funcs uint64
		for _, l := range w.Lines {
			lines += l.Instructions
		}
		for _, f := range w.Functions {
			funcs += f.Self
		}
		if want := processed(s.prog); w.Total != want || lines != want || funcs != want {
			t.Errorf("%s: walk %d, lines %d, functions %d; the load's statistics %d processed", s.name, w.Total, lines, funcs, want)
		}
	}
	if walked != 3 {
		t.Fatalf("%d subjects walked, want 3", walked)
	}
	cases, err := packets.Select([]string{packets.Fizz})
	if err != nil {
		t.Fatal(err)
	}
	v3, err := bpf.Lookup("v3")
	if err != nil {
		t.Fatal(err)
	}
	v4, err := bpf.Lookup("v4")
	if err != nil {
		t.Fatal(err)
	}
	progs := []testrun.Program{
		{Label: "before", Object: testrun.Object{Name: "v3", ELF: v3.Object}, Program: v3.Program},
		{Label: "after", Object: testrun.Object{Name: "v4", ELF: v4.Object}, Program: v4.Program},
	}
	rep, err := Profile(context.Background(), Options{Programs: []Program{programOf(progs[0]), programOf(progs[1])}, Cases: cases}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Diff.Verifier
	if d == nil || d.Before != processed(progs[0]) || d.After != processed(progs[1]) || len(d.Lines) == 0 {
		t.Fatalf("verifier diff %+v", d)
	}
}

// programOf is a program testrun names, as Options hold it.
func programOf(p testrun.Program) Program {
	return Program{object: object.Object(p.Object), program: p.Program, label: p.Label}
}
