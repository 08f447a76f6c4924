package xdpmicro

import (
	"context"
	"errors"
	"fmt"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Program is a program to measure: from a collection spec, a program
// already loaded, an object file, or a bundled build.
type Program struct {
	object  object.Object
	program string
	bundled bool
	rung    bool   // a fine-ladder rung: it passes every frame
	label   string // what a report calls it, where not before or after
	err     error  // why the program cannot be measured, found when named
}

// Spec is the named program of spec, as bpf2go's generated load function
// returns it, loaded by xdpmicro with its maps as cilium/ebpf would load
// them (with spec's map contents and variables). spec is not changed.
func Spec(spec *ebpf.CollectionSpec, program string) Program {
	return Program{object: object.Object{Name: program, Spec: spec}, program: program}
}

// Loaded is a program its caller loaded, run as it is with the maps it
// holds (the runs change them as packets would). Its instructions are not
// to be had from the kernel as the object held them, so its cases have no
// instruction counts: give its spec for those. Comparisons load each
// build several times to spread code placement; a loaded program is one
// placement.
func Loaded(prog *ebpf.Program) Program {
	name := "program"
	if info, err := prog.Info(); err == nil && info.Name != "" {
		name = info.Name
	}
	return Program{object: object.Object{Name: name, Prog: prog}}
}

// File is the named program of an ELF object file; program may be empty
// when the file holds one program xdpmicro can run.
func File(path, program string) Program {
	obj, err := object.ReadObject(path)
	return Program{object: obj, program: program, err: err}
}

// Build is a bundled build of FizzBuzzFibonacci, v1 to v4 (see the
// README), which needs no object file: for trying the API out.
func Build(name string) Program {
	b, err := bpf.Lookup(name)
	if err != nil {
		return Program{object: object.Object{Name: name + " (bundled)"}, bundled: true, err: fmt.Errorf("%w: %w", object.ErrBadObject, err)}
	}
	return bundled(b, "")
}

// Measure measures p's cases and returns the report. o may be nil: the
// command's defaults.
func Measure(ctx context.Context, p Program, o *Options) (*results.Run, error) {
	opts, err := withPrograms([]Program{p}, false, o)
	if err != nil {
		return nil, err
	}
	return Run(ctx, opts, nil)
}

// Compare measures before and after in the same rounds, each case's
// samples interleaved, and judges each case's change: the report's
// Comparison holds the verdicts.
func Compare(ctx context.Context, before, after Program, o *Options) (*results.Run, error) {
	opts, err := withPrograms([]Program{before, after}, true, o)
	if err != nil {
		return nil, err
	}
	return Run(ctx, opts, nil)
}

// withPrograms is o (nil: the zero Options) measuring progs, compared
// when two are: the cases default to the classes for bundled builds and
// to the protocol mix otherwise, and a program its caller loaded is one
// placement.
func withPrograms(progs []Program, compared bool, o *Options) (Options, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	for _, p := range progs {
		if p.err != nil {
			return Options{}, p.err
		}
	}
	opts.Programs, opts.Compared = progs, compared
	for _, p := range progs {
		if p.object.Prog != nil {
			opts.Placements = 1 // the caller's one load
		}
	}
	if opts.Cases == nil {
		classes, expect := CaseDefaults(progs...)
		cases, err := packets.Assemble(packets.Selection{Builtin: true, Classes: classes, BundledExpect: expect})
		if err != nil {
			return Options{}, err
		}
		opts.Cases = cases
	}
	return opts, nil
}

// Observer hears of a run while it goes: every sample's progress, on the
// measuring thread (it must return at once), and notices for a person.
type Observer interface {
	Progress(testrun.Progress)
	Notice(string)
}

// Run measures, analyses and, for two programs or a baseline, compares.
// When ctx is cancelled mid-run it returns the report of what was
// measured, marked Partial, with ctx's error.
func Run(ctx context.Context, o Options, obs Observer) (*results.Run, error) {
	c, err := o.config()
	if err != nil {
		return nil, err
	}
	return engine.Run(ctx, c, obs)
}

// MeasureRaw measures as Run does, and returns what was measured, raw: for
// callers that analyse it their own way.
func MeasureRaw(ctx context.Context, o Options, obs Observer) (results.Raw, error) {
	c, err := o.config()
	if err != nil {
		return results.Raw{}, err
	}
	return engine.MeasureRaw(ctx, c, obs)
}

// CompareSaved judges the change from one saved result to another, case
// by case, the last program of each (results.Run.Measured), as the
// compare command does; opts' zero Estimator lets the files decide.
func CompareSaved(before, after *results.Run, opts stats.CompareOptions) (*results.Run, error) {
	opts, err := completeSaved(opts)
	if err != nil {
		return nil, err
	}
	return engine.CompareSaved(before, after, opts)
}

// Interrupted says whether err is a run stopped by its context.
func Interrupted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Frame is a case of one raw Ethernet frame, as bpftool's data_in takes
// it; name names its sub-benchmark.
func Frame(name string, frame []byte) packets.Case {
	return packets.Case{Name: name, Summary: packets.Summarize(frame), Frame: frame}
}

// Classes are FizzBuzzFibonacci's source-address classes, or the named
// ones among them, each expecting the bundled builds' action.
func Classes(names ...string) ([]packets.Case, error) {
	return packets.Assemble(packets.Selection{Builtin: true, Names: names, Classes: true, BundledExpect: true})
}

// Mix is the protocol mix, the cases the command runs on programs other
// than the bundled ones: a TCP SYN over IPv4 and over IPv6, a DNS query
// plain and VLAN-tagged, a ping, an ARP request.
func Mix() []packets.Case { return packets.DefaultMix() }

// errNoResults: a report without the case a sub-benchmark reports.
var errNoResults = errors.New("no results")

// measured is the report's measured program (results.Run.Measured),
// or an error when it holds none.
func measured(rep *results.Run) (*results.Program, error) {
	p := rep.Measured()
	if p == nil {
		return nil, fmt.Errorf("%w: the report holds no program", errNoResults)
	}
	return p, nil
}
