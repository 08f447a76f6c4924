package profile

import (
	"fmt"
	"io"

	pprof "github.com/google/pprof/profile"
)

// mappingBase is where the first program's instructions are placed in the
// pprof profile's address space: pprof takes address 0 for none.
const mappingBase = 0x10000

// WritePprof writes the report as a gzipped profile.proto, as pprof reads
// it: sample type instructions/count; a location per executed BPF
// instruction, at its byte offset, with its line and function; a sample
// per case and instruction, labelled with the case (and the build, when
// there are two), whose stack holds the call sites of its function's
// chain of single callers, so that the flame graph nests callees.
func WritePprof(w io.Writer, rep *Report) error {
	b := &pprofBuilder{
		p: &pprof.Profile{
			SampleType:        []*pprof.ValueType{{Type: "instructions", Unit: "count"}},
			PeriodType:        &pprof.ValueType{Type: "instructions", Unit: "count"},
			Period:            1,
			DefaultSampleType: "instructions",
		},
		functions: map[[2]string]*pprof.Function{},
	}
	base := uint64(mappingBase)
	for _, prof := range rep.Profiles {
		if programOf(prof) == nil {
			return fmt.Errorf("pprof: the profile of %s was read back, without its program's instructions", prof.Program)
		}
		base = b.add(prof, base, len(rep.Profiles) > 1)
	}
	if err := b.p.CheckValid(); err != nil {
		return fmt.Errorf("pprof profile: %w", err)
	}
	if err := b.p.Write(w); err != nil {
		return fmt.Errorf("write the pprof profile: %w", err)
	}
	return nil
}

type pprofBuilder struct {
	p         *pprof.Profile
	functions map[[2]string]*pprof.Function // by name and file
}

// add puts one program's cases into the profile, its instructions from
// base on, and returns where the next program's may start.
func (b *pprofBuilder) add(prof *Profile, base uint64, labelBuild bool) uint64 {
	p := programOf(prof)
	m := &pprof.Mapping{
		ID: uint64(len(b.p.Mapping) + 1), Start: base, File: prof.Program + " in " + prof.Object,
		HasFunctions: true, HasFilenames: true, HasLineNumbers: true,
	}
	size := uint64(0)
	if n := len(p.insns); n > 0 {
		size = uint64(p.offsets[n-1]+int(p.insns[n-1].Size()/8)) * 8
	}
	m.Limit = base + max(size, 8)
	b.p.Mapping = append(b.p.Mapping, m)
	b.p.Comments = append(b.p.Comments, fmt.Sprintf("xdpmicro profile: %s in %s (%s)", prof.Program, prof.Object, prof.Type))
	if prof.NoLines != "" {
		b.p.Comments = append(b.p.Comments, "note: "+prof.NoLines)
	}
	locations := map[int]*pprof.Location{}
	// A location per instruction at its offset; a calling function as a
	// whole (-1-g) at its entry, on no line.
	location := func(i int) *pprof.Location {
		if l, ok := locations[i]; ok {
			return l
		}
		insn, number := i, int64(0)
		if i >= 0 {
			number = int64(p.lines[p.lineOf[i]].Number)
		} else {
			insn = p.funcs[-1-i].entry
		}
		line := p.lines[p.lineOf[insn]]
		l := &pprof.Location{ID: uint64(len(b.p.Location) + 1), Mapping: m, Address: base + uint64(p.offsets[insn])*8,
			Line: []pprof.Line{{Function: b.function(p.funcs[p.funcOf[insn]].name, line.File, prof), Line: number}}}
		b.p.Location = append(b.p.Location, l)
		locations[i] = l
		return l
	}
	for _, c := range prof.Cases {
		labels := map[string][]string{"case": {c.Name}}
		if labelBuild {
			labels["build"] = []string{prof.Label}
		}
		for i, n := range c.PerInsn {
			if n == 0 {
				continue
			}
			stack := []*pprof.Location{location(i)}
			for _, site := range p.stack(i) {
				stack = append(stack, location(site))
			}
			b.p.Sample = append(b.p.Sample, &pprof.Sample{Location: stack, Value: []int64{int64(n)}, Label: labels})
		}
	}
	return (m.Limit + 0xfff) &^ 0xfff
}

// function is the pprof function of a BPF function's lines in one file:
// pprof lists a function's lines from the function's file, so a function
// with lines from a header is one function per file.
func (b *pprofBuilder) function(name, file string, prof *Profile) *pprof.Function {
	if file == "" {
		file = prof.Object + " (no line info: lines are instruction indexes)"
	}
	k := [2]string{name, file}
	if f, ok := b.functions[k]; ok {
		return f
	}
	f := &pprof.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name, Filename: file}
	b.p.Function = append(b.p.Function, f)
	b.functions[k] = f
	return f
}
