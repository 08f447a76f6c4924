package xdpmicro

import (
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/results"
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
	c, err := o.config()
	if err != nil {
		return nil, err
	}
	return engine.Verify(c, loads)
}
