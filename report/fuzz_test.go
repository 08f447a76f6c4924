package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// FuzzParse: a saved result or baseline from anywhere must give an error
// or a report that compares without panicking.
func FuzzParse(f *testing.F) {
	// Files of today's schema, flat and linear, reach the comparison; an
	// older schema is refused.
	f.Add([]byte(`{"schema": "` + results.Schema + `", "programs": [{"program": {"name": "p", "type": "XDP"}, "cases": [{"name": "a", "samples_ns": [20,21,20,22,20,21,20,20,23,20,21]}]}]}`))
	f.Add([]byte(`{"schema": "` + results.Schema + `", "config": {"estimator": "slope"}, "programs": [{"program": {"name": "p", "type": "XDP"}, "cases": [{"name": "a",
		"samples_ns": [20,20,20,20,20,20,20,20,20,20], "runs": [100,200,100,200,100,200,100,200,100,200],
		"wall_ns": [3000,5000,3010,5020,3000,5000,2990,5010,3000,5000]}]}]}`))
	f.Add([]byte(`{"schema": "xdpmicro.bench/v1", "programs": [{"cases": [{"name": "a", "samples_ns": [1,2,3]}]}]}`))
	f.Add([]byte(`not json`))
	// A name with an OSC sequence and a C1 CSI, which reached the terminal.
	f.Add([]byte(`{"schema": "` + results.Schema + `", "programs": [{"program": {"name": "p\u009b2J", "type": "XDP"}, "cases": [{"name": "a\u001b]0;t\u0007", "samples_ns": [20,21,20,22,20,21,20,20,23,20,21]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := results.Parse("fuzz.json", data)
		if err != nil {
			return
		}
		if r.Schema != results.Schema || len(r.Programs) == 0 {
			t.Fatalf("accepted a report with schema %q and %d programs", r.Schema, len(r.Programs))
		}
		opts := stats.CompareOptions{Options: stats.Options{Confidence: 0.95, Resamples: 100, Seed: 1}, Significance: 0.05, Quantum: 1}
		// Whatever compares writes, as a table and as JSON: no figure
		// JSON cannot hold, no name a terminal would act on.
		if c, err := engine.Against(r, r, results.Files, opts); err == nil {
			for _, f := range []Format{Table, JSON} {
				var buf bytes.Buffer
				if err := Write(&buf, c, f, View{Verbose: true}); err != nil {
					t.Fatalf("the comparison does not write as %s: %v", f, err)
				}
				if f == Table && strings.ContainsAny(buf.String(), "\x1b\x07\u009b") {
					t.Fatalf("the table holds a control character: %q", buf.String())
				}
			}
		}
	})
}
