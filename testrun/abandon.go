package testrun

import (
	"context"

	"github.com/xdpmicro/xdpmicro/internal/crash"
	"github.com/xdpmicro/xdpmicro/internal/object"
)

// resolved is a program's map-init entries, and the objects loaded
// beside it, as resolved for its loads.
type resolved struct {
	updates []object.Update
	others  []object.Other
}

// orAbandon runs load, a load into the kernel or as long a step that
// looks at no context, and returns its result; once ctx is done first it
// returns ctx's error at once, and what load then makes is closed when it
// ends. The verifier can take seconds on a large program, and on a
// signal cilium/ebpf starts it over (EAGAIN), so no look at ctx between
// loads stops that one; nor one between programs the resolving of 16 M
// map-init entries: Ctrl-C must not wait for them (issue 59). A process
// that exits meanwhile takes the load with it.
func orAbandon[T any](ctx context.Context, load func() (T, error), closeIt func(T)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer crash.Guard()
		v, err := load()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		go func() {
			defer crash.Guard()
			if r := <-done; r.err == nil {
				closeIt(r.v)
			}
		}()
		return zero, ctx.Err()
	}
}
