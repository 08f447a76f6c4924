package report

import (
	"bytes"
	"testing"

	"github.com/xdpmicro/xdpmicro/stats"
)

// FuzzParse: a saved result or baseline from anywhere must give an error
// or a report that compares without panicking.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"schema": "xdpmicro.bench/v1", "programs": [{"cases": [{"name": "a", "samples_ns": [1,2,3]}]}]}`))
	f.Add([]byte(`{"schema": "xdpmicro.bench/v1", "programs": []}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("fuzz.json", data)
		if err != nil {
			return
		}
		if r.Schema != Schema || len(r.Programs) == 0 {
			t.Fatalf("accepted a report with schema %q and %d programs", r.Schema, len(r.Programs))
		}
		opts := stats.CompareOptions{Options: stats.Options{Confidence: 0.95, Resamples: 100, Seed: 1}, Significance: 0.05, Quantum: 1}
		if c, err := Against(r, r, Files, opts); err == nil {
			var buf bytes.Buffer
			_ = c.Write(&buf, Table)
		}
	})
}
