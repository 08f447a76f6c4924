package xdpmicro

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/bench"
	"github.com/xdpmicro/xdpmicro/bpf"
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
	err     error // why the program cannot be measured, found when named
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
		err = fmt.Errorf("%w: %w", object.ErrBadObject, err)
	}
	return Program{object: object.Object{Name: name + " (bundled)", ELF: b.Object}, program: b.Program, bundled: true, err: err}
}

// Options are what a benchmark may set; the zero value, or nil, measures
// as the command does by default.
type Options struct {
	// Cases are the packets to run, one sub-benchmark each: nil for the
	// source-address classes on a bundled build, else the protocol mix.
	// Build them with Frame, Classes, Mix, or package packets.
	Cases []packets.Case
	// Time bounds calibration, warm-up and sampling; zero takes
	// -test.benchtime when it is a duration other than 1s, else the
	// command's 5 s.
	Time time.Duration
	// Precision is the relative half-width every estimate is sampled to,
	// within Time; zero is the command's 1 %.
	Precision float64
	// Repeat, when set, is the top level of runs a call: the most a call
	// runs, as bpftool's repeat.
	Repeat uint32
	// CPU pins the measuring threads to one CPU; nil lets xdpmicro
	// choose a quiet one.
	CPU *int
}

// ErrOptions: options that cannot hold together.
var ErrOptions = bench.ErrOptions

// Measure measures p's cases and returns the report.
func Measure(ctx context.Context, p Program, o *Options) (*results.Report, error) {
	opts, err := benchOptions([]Program{p}, false, o)
	if err != nil {
		return nil, err
	}
	return bench.Run(ctx, opts, nil)
}

// Compare measures before and after in the same rounds, each case's
// samples interleaved, and judges each case's change: the report's
// Comparison holds the verdicts.
func Compare(ctx context.Context, before, after Program, o *Options) (*results.Report, error) {
	opts, err := benchOptions([]Program{before, after}, true, o)
	if err != nil {
		return nil, err
	}
	return bench.Run(ctx, opts, nil)
}

// benchOptions are bench's options for programs and o, with the command's
// defaults where o leaves a value zero.
func benchOptions(progs []Program, compared bool, o *Options) (bench.Options, error) {
	if o == nil {
		o = &Options{}
	}
	opts := bench.Options{
		Compared: compared, Cases: o.Cases, Repeat: o.Repeat, CPU: testrun.AnyCPU,
		Warmup: testrun.DefaultWarmup, Precision: o.Precision, Budget: o.Time,
		Stats: stats.DefaultOptions(),
	}
	if o.CPU != nil {
		opts.CPU = *o.CPU
	}
	if opts.Precision == 0 {
		opts.Precision = stats.DefaultPrecision
	}
	if opts.Budget == 0 {
		opts.Budget = testrun.DefaultBenchBudget
		if compared {
			opts.Budget = testrun.DefaultBudget
		}
	}
	bundled := true
	for i, p := range progs {
		if p.err != nil {
			return bench.Options{}, p.err
		}
		label := ""
		if compared {
			label = [...]string{"before", "after"}[i]
		}
		opts.Programs = append(opts.Programs, testrun.Program{Label: label, Object: p.object, Program: p.program})
		bundled = bundled && p.bundled
		if p.object.Prog != nil {
			opts.Placements = 1 // the caller's one load
		}
	}
	if opts.Cases == nil {
		cases, err := packets.Assemble(packets.Selection{Builtin: true, Classes: bundled, BundledExpect: bundled})
		if err != nil {
			return bench.Options{}, err
		}
		opts.Cases = cases
	}
	opts.Compare = stats.CompareOptions{
		Options: opts.Stats, Significance: 0.05, Quantum: testrun.Resolution,
		NoiseThreshold: stats.DefaultNoiseThreshold(stats.Slope, compared), ThresholdChosen: true,
	}
	return opts, nil
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

// measured is the report's measured program, after when compared.
func measured(rep *results.Report) (*results.Program, error) {
	if len(rep.Programs) == 0 {
		return nil, fmt.Errorf("%w: the report holds no program", errNoResults)
	}
	return &rep.Programs[len(rep.Programs)-1], nil
}
