package xdpmicro

import (
	"errors"
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/object"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// DefaultVerifierLoads is how many times Verify loads each program: the
// verification time varies from load to load, and its spread is given.
const DefaultVerifierLoads = 5

// MaxVerifierLoads bounds Verify's loads of each program.
const MaxVerifierLoads = 1000

// Verify loads every program of o's object that the program name
// chooses (every measurable one without a name), and of the old build
// too where o compares two, loads times each, and runs nothing: what the
// verifier told of them, program by program, old against new.
func Verify(o Options, loads int) (*results.Verification, error) {
	if loads < 1 || loads > MaxVerifierLoads {
		return nil, fmt.Errorf("%w: %d loads: want 1 to %d", ErrOptions, loads, MaxVerifierLoads)
	}
	names, skipped, err := Choose(o)
	if err != nil {
		return nil, err
	}
	after := o.Programs[len(o.Programs)-1]
	v := &results.Verification{Schema: results.VerificationSchema, Kernel: release(), Object: after.Object.Name}
	for _, p := range skipped {
		v.Skipped = append(v.Skipped, results.ProgramInfo{Name: p.Name, Type: p.Type.String(), Section: p.Section})
	}
	var before *testrun.Program
	if o.Compared && len(o.Programs) == 2 {
		before = &o.Programs[0]
		v.Before = before.Object.Name
	}
	for _, name := range names {
		p := after
		p.Program = name
		info, stats, err := testrun.Verify(p, o.Load, loads)
		if err != nil {
			return nil, err
		}
		vp := results.VerifiedProgram{Info: results.ProgramInfo{Name: info.Name, Type: info.Type.String(), Section: info.Section}, Loads: saved(stats)}
		if before != nil {
			b := *before
			b.Program = name
			if _, old, err := testrun.Verify(b, o.Load, loads); err == nil {
				vp.Before = saved(old)
				vp.Change = &results.VerifierChange{Before: vp.Before[0], After: vp.Loads[0],
					BeforeTimes: results.Times(vp.Before), AfterTimes: results.Times(vp.Loads)}
			} else if !errors.Is(err, object.ErrNoProgram) {
				return nil, fmt.Errorf("before: %w", err)
			}
		}
		v.Programs = append(v.Programs, vp)
	}
	return v, nil
}

// saved are a program's loads' statistics as results saves them.
func saved(stats []testrun.VerifierStats) []results.Verifier {
	out := make([]results.Verifier, len(stats))
	for i, s := range stats {
		out[i] = savedVerifier(s)
	}
	return out
}

// release is this kernel's release, as reports name it.
func release() string {
	r, _ := host.Kernel()
	return r
}
