package xdpmicro

import (
	"context"
	"fmt"
	"time"

	"github.com/xdpmicro/xdpmicro/results"
)

// Outcome is one program's run of RunEach: its report, or why it has
// none.
type Outcome struct {
	Program string
	Report  *results.Report
	Err     error
}

// RunEach runs o once for each program named, in turn, as go test runs
// each benchmark: every program of o (before and after, when compared)
// is given that name. A program that fails, refused by the verifier or
// missing from an object, does not stop the others; a cancelled ctx
// does, and the last outcome holds its error and any partial report.
// observe, if set, gives each program's run its observer, and what to
// call when the run ends.
func RunEach(ctx context.Context, o Options, names []string, observe func(name string) (Observer, func())) []Outcome {
	var out []Outcome
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		var obs Observer
		end := func() {}
		if observe != nil {
			obs, end = observe(name)
		}
		one := o
		one.Programs = append(one.Programs[:0:0], o.Programs...)
		for i := range one.Programs {
			one.Programs[i].Program = name
		}
		one.Settings.Program = name
		one.Started = time.Now() // each program's budget its own
		rep, err := Run(ctx, one, obs)
		end()
		if err != nil {
			err = fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, Outcome{Program: name, Report: rep, Err: err})
	}
	return out
}
