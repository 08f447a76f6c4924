package profile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	pprof "github.com/google/pprof/profile"

	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// callsProgram is calls.o's xdp_calls, read from the object (no kernel),
// with a block per instruction: any counts then fit it.
func callsProgram(t *testing.T, strip bool) (*Program, asm.Instructions) {
	t.Helper()
	spec, err := ebpf.LoadCollectionSpec("../../bpf/testdata/calls.o")
	if err != nil {
		t.Fatal(err)
	}
	insns := spec.Programs["xdp_calls"].Instructions
	if strip {
		insns = slices.Clone(insns)
		for i := range insns {
			insns[i] = insns[i].WithSource(nil)
		}
	}
	blocks := make([]testrun.Block, len(insns))
	for i := range insns {
		blocks[i] = testrun.Block{Start: i, End: i + 1}
	}
	p, err := NewProgram(insns, blocks)
	if err != nil {
		t.Fatal(err)
	}
	return p, insns
}

// counts gives instruction i the count i%4 (some zero), so that a lost or
// doubled instruction changes the sums.
func counts(n int) ([]uint64, uint64) {
	out := make([]uint64, n)
	var total uint64
	for i := range out {
		out[i] = uint64(i % 4)
		total += out[i]
	}
	return out, total
}

// Every instruction is attributed once: the lines' counts, the functions'
// own counts and pprof's and callgrind's samples add up to the total, and
// every instruction is on one line.
func TestAttributionAddsUp(t *testing.T) {
	for _, strip := range []bool{false, true} {
		p, insns := callsProgram(t, strip)
		blocks, total := counts(len(insns))
		prof, err := New("", "calls.o", "xdp_calls", "XDP", p, []string{"a"}, [][]uint64{blocks})
		if err != nil {
			t.Fatal(err)
		}
		c := prof.Cases[0]
		var lines, funcs uint64
		for _, l := range c.Lines {
			lines += l.Instructions
		}
		for _, f := range c.Functions {
			funcs += f.Self
		}
		static := 0
		for _, s := range prof.Source {
			static += s.BPF
		}
		if c.Total != total || lines != total || funcs != total || static != len(insns) {
			t.Errorf("strip %v: total %d, lines %d, functions %d, want %d; %d instructions on lines, want %d",
				strip, c.Total, lines, funcs, total, static, len(insns))
		}
		if got := pprofTotals(t, &Report{Profiles: []*Profile{prof}})["a"]; got != int64(total) {
			t.Errorf("strip %v: pprof holds %d, want %d", strip, got, total)
		}
		if got := callgrindSelf(t, &Report{Profiles: []*Profile{prof}}); got != total {
			t.Errorf("strip %v: callgrind holds %d, want %d", strip, got, total)
		}
		if strip != (prof.NoLines != "") {
			t.Errorf("strip %v: NoLines %q", strip, prof.NoLines)
		}
	}
}

// pprofTotals writes rep as pprof, reads it back, checks it, and sums its
// samples by case label.
func pprofTotals(t *testing.T, rep *Report) map[string]int64 {
	t.Helper()
	var buf bytes.Buffer
	if err := (report.Output{Format: report.Pprof}).Write(&buf, report.OfProfile(rep)); err != nil {
		t.Fatal(err)
	}
	p, err := pprof.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if st := p.SampleType; len(st) != 1 || st[0].Type != "instructions" || st[0].Unit != "count" {
		t.Errorf("sample types %v", st)
	}
	out := map[string]int64{}
	for _, s := range p.Sample {
		if len(s.Location) == 0 || len(s.Location[0].Line) == 0 || s.Location[0].Line[0].Function.Name == "" {
			t.Errorf("a sample without a line and function: %v", s)
		}
		out[s.Label["case"][0]] += s.Value[0]
	}
	return out
}

// callgrindSelf writes rep in Callgrind's format and sums the cost lines
// that are self costs (not the inclusive cost that follows calls=).
func callgrindSelf(t *testing.T, rep *Report) uint64 {
	t.Helper()
	var buf bytes.Buffer
	if err := (report.Output{Format: report.Callgrind}).Write(&buf, report.OfProfile(rep)); err != nil {
		t.Fatal(err)
	}
	var sum, summary uint64
	afterCalls := false
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "summary: "):
			summary, _ = strconv.ParseUint(fields[1], 10, 64)
		case strings.HasPrefix(line, "calls="):
			afterCalls = true
		case len(fields) == 2 && line[0] >= '0' && line[0] <= '9':
			n, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				t.Fatalf("cost line %q", line)
			}
			if !afterCalls {
				sum += n
			}
			afterCalls = false
		}
	}
	if sum != summary {
		t.Errorf("callgrind: costs add up to %d, its summary says %d", sum, summary)
	}
	return sum
}

// calls.o's functions: the callback and the callees are functions of
// their own, the callback entered as often as its first instruction ran,
// and the helper called on bpf_loop's line.
func TestFunctionsAndHelpers(t *testing.T) {
	p, insns := callsProgram(t, false)
	blocks := make([]uint64, len(insns))
	for i := range blocks {
		blocks[i] = 1
	}
	c, err := p.Case("ones", blocks)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range c.Functions {
		names = append(names, f.Name)
		if f.Calls != 1 {
			t.Errorf("%s entered %d times, want 1", f.Name, f.Calls)
		}
	}
	if want := []string{"xdp_calls", "mix", "twice_global", "count_down"}; !sameSet(names, want) {
		t.Errorf("functions %v, want %v", names, want)
	}
	if c.Functions[0].Name != "xdp_calls" || c.Functions[0].Inclusive != c.Total {
		t.Errorf("the main function %+v: want all %d instructions inclusive", c.Functions[0], c.Total)
	}
	found := false
	for _, l := range c.Lines {
		if strings.Contains(l.Text, "bpf_loop(") {
			found = len(l.Helpers) == 1 && l.Helpers[0] == HelperCalls{Name: "bpf_loop", Calls: 1}
		}
	}
	if !found {
		t.Errorf("no line calling bpf_loop once: %+v", c.Lines)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestHelperName(t *testing.T) {
	for fn, want := range map[asm.BuiltinFunc]string{
		asm.FnMapLookupElem: "bpf_map_lookup_elem", asm.FnGetPrandomU32: "bpf_get_prandom_u32",
		asm.FnL3CsumReplace: "bpf_l3_csum_replace", asm.FnTailCall: "bpf_tail_call", asm.FnLoop: "bpf_loop",
		asm.BuiltinFunc(99999): "helper 99999",
	} {
		if got := helperName(fn); got != want {
			t.Errorf("%v: %q, want %q", fn, got, want)
		}
	}
}

// The difference comes largest first, lines matched by file and line,
// and only what changed.
func TestCompare(t *testing.T) {
	p, insns := callsProgram(t, false)
	before, _ := counts(len(insns))
	after := slices.Clone(before)
	after[0] += 5                                   // the main function's first line
	after[len(after)-1] = before[len(before)-1] + 2 // count_down's last
	b, err := New("before", "old.o", "xdp_calls", "XDP", p, []string{"a"}, [][]uint64{before})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New("after", "new.o", "xdp_calls", "XDP", p, []string{"a"}, [][]uint64{after})
	if err != nil {
		t.Fatal(err)
	}
	d := Compare(b, a)
	if len(d.Cases) != 1 || d.Cases[0].After-d.Cases[0].Before != 7 {
		t.Fatalf("diff %+v", d)
	}
	lines := d.Cases[0].Lines
	if len(lines) != 2 || lines[0].Delta() != 5 || lines[1].Delta() != 2 {
		t.Errorf("changed lines %+v: want +5 then +2", lines)
	}
	fns := d.Cases[0].Functions
	if len(fns) != 2 || fns[0].Name != "xdp_calls" || fns[0].Delta() != 5 || fns[1].Delta() != 2 {
		t.Errorf("changed functions %+v", fns)
	}
	var buf bytes.Buffer
	rep := &Report{Profiles: []*Profile{b, a}, Diff: d}
	if err := (report.Output{Format: report.Text}).Write(&buf, report.OfProfile(rep)); err != nil || !strings.Contains(buf.String(), "+5") {
		t.Errorf("text: %v\n%s", err, buf.String())
	}
	buf.Reset()
	var back Report
	if err := (report.Output{Format: report.JSON}).Write(&buf, report.OfProfile(rep)); err != nil || json.Unmarshal(buf.Bytes(), &back) != nil || back.Diff == nil || len(back.Profiles) != 2 {
		t.Errorf("json: %v\n%s", err, buf.String())
	}
}

// Counts that do not fit the program are refused, not attributed.
func TestCountsMustFit(t *testing.T) {
	p, insns := callsProgram(t, false)
	if _, err := p.Case("short", make([]uint64, len(insns)-1)); err == nil {
		t.Error("fewer counts than blocks: no error")
	}
	if _, err := NewProgram(insns, []testrun.Block{{Start: 0, End: 2}}); err == nil {
		t.Error("blocks that stop short of the program: no error")
	}
}
