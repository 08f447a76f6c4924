package engine

import (
	"errors"
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Verify loads each program c's measured object chooses loads times and
// keeps the verifier's figures of each load; with two programs, the
// before build's too, and the change.
func Verify(o Config, loads int) (*results.Verification, error) {
	after := o.Programs[len(o.Programs)-1]
	names, skipped, err := Choose(after.Object, after.Program, o.Load, o.MapInit)
	if err != nil {
		return nil, err
	}
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
