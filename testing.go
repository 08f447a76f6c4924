package xdpmicro

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/results"
)

// The metrics Benchmark reports, besides ns/op: benchstat compares each
// across runs as it does ns/op.
const (
	UnitInsns = "insns/op"  // BPF instructions a run executes, exact
	UnitNet   = "net-ns/op" // the time of a run less the empty program's
	UnitLow   = "lo-ns/op"  // the lower bound of the time's interval
	UnitHigh  = "hi-ns/op"  // the upper bound
)

// unitLines declare, once per test binary, that instruction counts are
// exact: benchstat then reports their change without a p-value.
var unitLines sync.Once

// Benchmark measures p's cases as Measure does, in one run whose rounds
// take every case in turn, and reports each case as a sub-benchmark of b,
// named after it, with ns/op (the slope, fractional), insns/op,
// net-ns/op, lo-ns/op and hi-ns/op. It skips b, with the reason, where
// this process may not load and run BPF programs or set up live frames
// (ErrPermission); any other failure fails b. For
// a program bpf2go generated (examples/portfilter is a whole one, run
// with sudo go test -bench .):
//
//	func BenchmarkFilter(b *testing.B) {
//		spec, err := loadFilter() // bpf2go's
//		if err != nil {
//			b.Fatal(err)
//		}
//		xdpmicro.Benchmark(b, xdpmicro.Spec(spec, "xdp_filter"), &xdpmicro.Options{Cases: xdpmicro.Mix()})
//	}
//
// go test runs each sub-benchmark -count times: the k-th time reports the
// k-th run of Measure, so that benchstat sees that many measurements,
// not one repeated. The sub-benchmarks do no work of their own: the
// iterations go test prints are its own, and mean nothing here.
// -test.benchtime, given as a duration, is each run's time budget when o
// sets none.
func Benchmark(b *testing.B, p Program, o *Options) {
	b.Helper()
	opts := Options{}
	if o != nil {
		opts = *o
	}
	if opts.Budget == 0 {
		opts.Budget = benchTime()
	}
	ctx := b.Context()
	runs := &runs{measure: func() (*results.Run, error) { return Measure(ctx, p, &opts) }}
	rep, err := runs.nth(1)
	switch {
	case skips(err):
		b.Skipf("xdpmicro: %v", err)
	case err != nil:
		b.Fatalf("xdpmicro: %v", err)
	}
	prog, err := measured(rep)
	if err != nil {
		b.Fatal(err)
	}
	unitLines.Do(func() {
		fmt.Fprintf(os.Stdout, "Unit %s assume=exact better=lower\n", UnitInsns)
	})
	for i, c := range prog.Results {
		count := 0
		b.Run(c.Name, func(b *testing.B) {
			if b.N == 1 { // go test's first call of a -count repetition
				count++
			}
			rep, err := runs.nth(count)
			if err != nil {
				b.Fatalf("xdpmicro: %v", err)
			}
			prog, err := measured(rep)
			if err != nil || len(prog.Results) <= i {
				b.Fatalf("xdpmicro: run %d has no case %s: %v", count, c.Name, err)
			}
			reportCase(b, rep, &prog.Results[i])
		})
	}
}

// skips says whether Benchmark skips, rather than fails, on err: where
// this process may not load and run BPF programs, or set up live frames.
func skips(err error) bool { return errors.Is(err, ErrPermission) }

// runs are the runs of Measure a benchmark made, each taken when a
// sub-benchmark first asks for it.
type runs struct {
	measure func() (*results.Run, error)
	reports []*results.Run
}

// nth is the n-th run, from 1.
func (r *runs) nth(n int) (*results.Run, error) {
	for len(r.reports) < n {
		rep, err := r.measure()
		if err != nil {
			return nil, err
		}
		r.reports = append(r.reports, rep)
	}
	return r.reports[n-1], nil
}

// reportCase reports one case's figures as b's metrics.
func reportCase(b *testing.B, rep *results.Run, c *results.Case) {
	for name, v := range Metrics(rep, c) {
		b.ReportMetric(v, name)
	}
}

// Metrics are a measured case's figures by the units Benchmark reports:
// ns/op, the report's estimate (the slope with linear sampling);
// UnitLow and UnitHigh, its interval; UnitNet, the net of the floor, when
// the floor was measured; UnitInsns, when the instructions were counted.
func Metrics(rep *results.Run, c *results.Case) map[string]float64 {
	m := map[string]float64{}
	if c.Stats != nil {
		e := c.Stats.Of(rep.Settings.ChosenEstimator())
		m["ns/op"], m[UnitLow], m[UnitHigh] = e.Point, e.Lower, e.Upper
	}
	if c.Net != nil {
		m[UnitNet] = c.Net.Point
	}
	if c.NoCount == "" && c.Instructions > 0 {
		m[UnitInsns] = float64(c.Instructions)
	}
	return m
}

// benchTime is -test.benchtime when it was given as a duration other than
// Go's default of 1 s, which is too short for an interval; else zero.
func benchTime() time.Duration {
	f := flag.Lookup("test.benchtime")
	if f == nil {
		return 0
	}
	d, err := time.ParseDuration(f.Value.String())
	if err != nil || d == time.Second {
		return 0
	}
	return d
}
