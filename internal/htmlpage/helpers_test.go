package htmlpage

import (
	"encoding/hex"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/analysis"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// interleaved is the report of res, its two programs compared as sampled
// together.
func interleaved(t *testing.T, res results.Measured, opts stats.Options) *results.Report {
	t.Helper()
	r, err := analysis.New(results.Settings{Confidence: 0.95}, res, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := analysis.CompareInterleaved(r, compareOpts()); err != nil {
		t.Fatal(err)
	}
	return r
}

// twoBuilds is a before/after run where every after sample is 1.5 times
// its before sample.
func twoBuilds(t *testing.T) results.Measured {
	t.Helper()
	res := sampleResult(t)
	after := derived(res.Programs[0], "after", func(s float64) float64 { return s * 1.5 })
	res.Programs[0].Label = "before"
	res.Programs = append(res.Programs, after)
	return res
}

// sampleResult is a run as cmd hands it to report, with samples chosen so
// that the statistics are known: fizz is 10..19 ns (mean 14.5) plus one
// high severe outlier at 100 ns.
func sampleResult(t *testing.T) results.Measured {
	t.Helper()
	cases, err := packets.Select([]string{packets.Fizz, packets.Short})
	if err != nil {
		t.Fatal(err)
	}
	var fizz, short []float64
	for i := range 10 {
		fizz = append(fizz, float64(10+i))
		short = append(short, 5)
	}
	fizz = append(fizz, 100)
	short = append(short, 5)
	return results.Measured{
		Environment: results.Environment{Kernel: "6.1.0-test", CPU: 1, CPUs: 2, Repeat: 1000, Resolution: 1},
		Programs: []results.Program{{
			Object: "v4 (bundled)",
			Info:   results.ProgramInfo{Name: "fizzbuzz", Type: "XDP"},
			Results: []results.Case{
				withRetries(fixture(cases[0], 2, "XDP_PASS", fizz), 2),
				fixture(cases[1], 0, "XDP_ABORTED", short),
			},
		}},
	}
}

func compareOpts() stats.CompareOptions {
	o := stats.DefaultOptions()
	o.Resamples = 1000
	return stats.CompareOptions{Options: o, Significance: 0.05, NoiseThreshold: 0.02, Quantum: 1}
}

// derived is a copy of p labelled label, every sample passed through f.
func derived(p results.Program, label string, f func(float64) float64) results.Program {
	out := p
	out.Label = label
	out.Results = nil
	for _, c := range p.Results {
		samples := make([]float64, len(c.Samples))
		for i, s := range c.Samples {
			samples[i] = f(s)
		}
		c.Samples = samples
		out.Results = append(out.Results, c)
	}
	return out
}

func withRetries(c results.Case, n int) results.Case {
	c.Retries = n
	return c
}

// fixture is a packet case's samples as cmd hands them to report.
func fixture(c packets.Case, ret uint32, action string, samples []float64) results.Case {
	rc := results.Case{Name: c.Name, Summary: c.Summary, Length: len(c.Frame), Frame: hex.EncodeToString(c.Frame), Return: ret, Action: action, Samples: samples}
	if c.Source.IsValid() {
		rc.Source = c.Source.String()
	}
	return rc
}
