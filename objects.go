package xdpmicro

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// MapInit is a map-init file: entries to put into a program's maps after
// loading, map sizes and variables to set before, objects to load beside
// it for its program arrays (docs/usage.md). Read it with ReadMapInit.
type MapInit = testrun.MapInit

// LoadOptions change an object before it is loaded, as --type,
// --attach-type, --set and --max-entries do: the program type of a section
// that names none, a devmap or cpumap program loaded as plain XDP,
// variables, map sizes.
type LoadOptions = testrun.LoadOptions

// ProgramInfo is a program of an object: its name, type and section, and
// whether xdpmicro can measure it.
type ProgramInfo = testrun.ProgramInfo

// MapInfo is a map of an object, as `xdpmicro programs` lists it.
type MapInfo = object.MapInfo

// VariableInfo is a global variable of an object, as --set names it.
type VariableInfo = object.VariableInfo

// ErrNotTestRunnable: a program the kernel will not test-run as it is (a
// devmap or cpumap program; LoadOptions.AttachType "xdp" loads it as plain
// XDP). It wraps ErrBadInput.
var ErrNotTestRunnable = object.ErrNotTestRunnable

// ErrUntyped marks a refusal of programs in sections that name no type
// (Suricata's SEC("filter")): LoadOptions.Type gives them one, and they
// run. It goes with the refusal's own error, which wraps ErrBadInput.
var ErrUntyped = object.ErrUntyped

// ReadMapInit reads a map-init file (YAML or JSON).
func ReadMapInit(path string) (*MapInit, error) { return testrun.ReadMapInit(path) }

// ProgramTypes are the names LoadOptions.Type takes.
func ProgramTypes() []string { return slices.Clone(object.TypeNames) }

// AttachTypes are the names LoadOptions.AttachType takes.
func AttachTypes() []string { return slices.Clone(object.AttachTypeNames) }

// BundledNames are the bundled builds' names, then the fine ladder's
// rungs': what Find takes besides a file.
func BundledNames() []string {
	var names []string
	for _, b := range append(bpf.Builds(), bpf.Rungs()...) {
		names = append(names, b.Name)
	}
	return names
}

// Find is the program a name on the command line stands for: a bundled
// build by its name (BundledNames), else an ELF object file. program names
// the function; empty, a bundled build's own, or a file's only measurable
// one. A name that is neither a build nor a file is bad input.
func Find(name, program string) Program {
	if b, err := bpf.Lookup(name); err == nil {
		return bundled(b, program)
	}
	if _, err := os.Stat(name); errors.Is(err, os.ErrNotExist) {
		return Program{err: badInput(fmt.Errorf("%q is neither a file nor a bundled build (%s)", name, strings.Join(BundledNames(), ", ")))}
	}
	return File(name, program)
}

// bundled is b's program, or the one named.
func bundled(b bpf.Build, program string) Program {
	if program == "" {
		program = b.Program
	}
	return Program{object: object.Object{Name: b.Name + " (bundled)", ELF: b.Object}, program: program, bundled: true, rung: b.Rung}
}

// targets are progs as testrun measures them, two labelled before and
// after. A program that cannot be measured (a missing file, an
// unknown build) is its error.
func targets(progs []Program) ([]testrun.Program, error) {
	var out []testrun.Program
	for i, p := range progs {
		if p.err != nil {
			return nil, p.err
		}
		label := p.label
		if len(progs) == 2 {
			label = [...]string{"before", "after"}[i]
		}
		out = append(out, testrun.Program{Label: label, Object: testrun.Object(p.object), Program: p.program})
	}
	return out, nil
}

// CaseDefaults says which built-in cases suit progs: the source-address
// classes when every one is a bundled build, and each class's expected
// action when every one is a FizzBuzzFibonacci build (a ladder rung passes
// every frame). With no program, both.
func CaseDefaults(progs ...Program) (classes, expect bool) {
	classes, expect = true, true
	for _, p := range progs {
		classes = classes && p.bundled
		expect = expect && p.bundled && !p.rung
	}
	return classes, expect
}

// Choose lists the programs of the measured object (the last program)
// that its program name chooses: the one it names, or, for a pattern (as
// go test -bench takes one) or no name, every measurable one it matches,
// and those passed over.
func Choose(o Options) (names []string, skipped []ProgramInfo, err error) {
	if len(o.Programs) == 0 {
		return nil, nil, fmt.Errorf("%w: no program to measure", ErrOptions)
	}
	last := o.Programs[len(o.Programs)-1]
	if last.err != nil {
		return nil, nil, last.err
	}
	return engine.Choose(testrun.Object(last.object), last.program, o.Load, o.MapInit)
}

// Named is p with the program of its object that program names: what
// Choose chose, measured on its own.
func (p Program) Named(program string) Program {
	p.program = program
	return p
}

// Name is the program of p's object that p names; empty for the only
// one it can measure, or a bundled build's own.
func (p Program) Name() string { return p.program }

// Err is why p cannot be measured (a missing file, an unknown build), nil
// when it can be tried.
func (p Program) Err() error { return p.err }

// ObjectName is the name of p's object, as reports give it.
func (p Program) ObjectName() string { return p.object.Name }

// Programs are the programs of p's object.
func (p Program) Programs() ([]ProgramInfo, error) {
	if p.err != nil {
		return nil, p.err
	}
	progs, err := p.object.Programs()
	out := make([]ProgramInfo, len(progs))
	for i, info := range progs {
		out[i] = ProgramInfo(info)
	}
	return out, err
}

// Maps are the maps of p's object.
func (p Program) Maps() ([]MapInfo, error) {
	if p.err != nil {
		return nil, p.err
	}
	return p.object.Maps()
}

// Variables are the global variables of p's object.
func (p Program) Variables() ([]VariableInfo, error) {
	if p.err != nil {
		return nil, p.err
	}
	return p.object.Variables()
}

// badInput is err, whose text it keeps, as bad input: it wraps
// ErrBadInput.
func badInput(err error) error { return badinput.Wrap(err) }

// Check runs each case once through prog, as every run's checking run
// does, with the maps filled from mapInit (nil: as declared), on any CPU:
// the action each case takes, its instructions and the maps it changed,
// without sampling. notice, if not nil, hears what the run notices, and
// its notes (the maps whose changes are not shown, and why).
func Check(ctx context.Context, p Program, cases []packets.Case, mapInit *MapInit, notice func(string)) ([]testrun.CaseResult, error) {
	progs, err := targets([]Program{p})
	if err != nil {
		return nil, err
	}
	res, err := testrun.Check(ctx, testrun.Config{Programs: progs, Cases: cases, MapInit: mapInit, CPU: testrun.AnyCPU, Notice: notice})
	if err != nil {
		return nil, err
	}
	if notice != nil {
		for _, n := range res.Environment.Notes {
			notice("note: " + n)
		}
	}
	return res.Programs[0].Cases, nil
}
