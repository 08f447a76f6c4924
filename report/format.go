package report

import (
	"fmt"
	"io"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
)

// Format is an output format.
type Format string

// The output formats.
const (
	Table Format = "table" // for people, in a terminal
	BMF   Format = "bmf"   // Bencher Metric Format, for `bencher run --adapter json`
	JSON  Format = "json"  // everything, for tools and later comparison
	// GoBench is Go's benchmark format, one line per sample, for benchstat.
	GoBench Format = "gobench"
)

// Formats lists a run's formats (KindRun.Formats).
func Formats() []string { return KindRun.Formats() }

// ErrFormat is returned for an unknown format name.
var ErrFormat = badinput.New("unknown format")

// ParseFormat checks the name of a run's format (KindRun.Parse).
func ParseFormat(name string) (Format, error) { return KindRun.Parse(name) }

// View is how much a table shows; the other formats hold everything
// either way.
type View struct {
	// Wide shows every column: the source address, the second figure,
	// the standard deviation, outliers and samples, each interval as
	// [low high]. Without it, the table fits 100 columns.
	Wide bool
	// Verbose puts every line under the table: the method (estimator,
	// levels, clock, anchoring, the floor of each case, ...) and the notes
	// of every case. Without it, only the lines that matter, and one
	// short line of where and how long (see lines.go).
	Verbose bool
	// SourceOrder and Machine are a text profile's: every line in source
	// order, unexecuted ones too; each line's machine code.
	SourceOrder, Machine bool
}

// doc is a report as this package renders it.
type doc struct{ *results.Run }

// comparison is a report's comparison as this package renders it.
type comparison struct{ *results.Comparison }

// Write renders the report in the format, a table as v shows it.
func Write(w io.Writer, r *results.Run, f Format, v View) error {
	row, ok := lookup(KindRun, f)
	if !ok {
		return fmt.Errorf("%w %q", ErrFormat, f)
	}
	return row.render(w, r, v)
}

// writeJSON writes v as indented JSON, its strings' C1 controls and
// bidirectional overrides as \u escapes: JSON on a terminal is text too.
func writeJSON(w io.Writer, v any) error { return printable.JSON(w, v) }

// bmfMetric is one measure of one benchmark in Bencher Metric Format.
type bmfMetric struct {
	Value float64 `json:"value"`
	Lower float64 `json:"lower_value"`
	Upper float64 `json:"upper_value"`
}

// bmfCount is an exact measure in Bencher Metric Format: no interval.
type bmfCount struct {
	Value float64 `json:"value"`
}

// writeBMF reports the last program measured: the only one, or the "after"
// build of a comparison. Benchmarks are named <program>/<case>; the
// measures are Bencher's built-in latency, in nanoseconds, and
// instructions, the BPF instructions of the path timed, where counted,
// and, in a flows=N state, miss-rate, the share of runs that missed.
// A case asked for in a map state is named case@state. The benchmark
// named <program> alone holds what its load cost the verifier:
// verified-instructions and verification-time (µs, over the loads) and
// jit-size (bytes).
func (r doc) writeBMF(w io.Writer) error {
	return writeJSON(w, r.bmf(map[string]map[string]any{}))
}

// bmf adds the report's benchmarks to out, by program and case.
func (r doc) bmf(out map[string]map[string]any) map[string]map[string]any {
	if len(r.Programs) > 0 {
		p := r.Measured()
		for _, c := range p.Results {
			measures := map[string]any{}
			if c.Stats != nil {
				e := c.Stats.Of(r.Settings.ChosenEstimator())
				measures["latency"] = bmfMetric{Value: e.Point, Lower: e.Lower, Upper: e.Upper}
			}
			if n := c.Net; n != nil {
				// What a replay's net-latency is too: the program's own.
				measures["net-latency"] = bmfMetric{Value: n.Point, Lower: n.Lower, Upper: n.Upper}
			}
			if c.Instructions > 0 {
				measures["instructions"] = bmfCount{Value: float64(c.Instructions)}
			}
			if c.MissRate != nil {
				measures["miss-rate"] = bmfCount{Value: *c.MissRate}
			}
			if len(measures) > 0 {
				out[p.Info.Name+"/"+c.Name] = measures
			}
		}
		if p.Verifier != nil {
			// The program's own benchmark, beside its cases': what its
			// load cost the verifier, and its native code's size.
			out[p.Info.Name] = verifierMeasures(*p.Verifier, p.VerificationTimes())
		}
	}
	return out
}
