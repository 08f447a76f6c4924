package xdpmicro

import (
	"fmt"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/object"
)

// Benchmark skips where privileges are lacking, whichever part found it
// (loading, the test run, live frames' network: every one wraps the one
// ErrPermission), and fails on anything else.
func TestBenchmarkSkips(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("loading: %w", host.ErrPermission),
		fmt.Errorf("livenet: creating the veth pair: %w", ErrPermission),
	} {
		if !skips(err) {
			t.Errorf("%v: Benchmark fails instead of skipping", err)
		}
	}
	for _, err := range []error{fmt.Errorf("%w: no such program", ErrBadInput), object.ErrVerifier} {
		if skips(err) {
			t.Errorf("%v: Benchmark skips instead of failing", err)
		}
	}
}
