package runfixture

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// CompareOpts are a comparison's options with few resamples, for
// speed, and a 2 % noise threshold.
func CompareOpts() stats.CompareOptions {
	o := stats.DefaultOptions()
	o.Resamples = 1000
	return stats.CompareOptions{Options: o, Significance: 0.05, NoiseThreshold: 0.02, Quantum: 1}
}

// Derived is a copy of p labelled label, every sample passed through f.
func Derived(p results.Program, label string, f func(float64) float64) results.Program {
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

// Fixture is a packet case's samples as cmd hands them to report.
func Fixture(c packets.Case, ret uint32, action string, samples []float64) results.Case {
	rc := results.Case{Name: c.Name, Summary: c.Summary, Length: len(c.Frame), Frame: hex.EncodeToString(c.Frame), Return: ret, Action: action, Samples: samples}
	if c.Source.IsValid() {
		rc.Source = c.Source.String()
	}
	return rc
}

// Interleaved is the report of res, its two programs compared as sampled
// together.
func Interleaved(t *testing.T, res results.Raw, opts stats.Options) *results.Run {
	t.Helper()
	r, err := engine.New(results.Settings{Confidence: 0.95}, res, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.CompareInterleaved(r, CompareOpts(), phases.ChangeTransfer); err != nil {
		t.Fatal(err)
	}
	return r
}

// SampleResult is a run as cmd hands it to report, with samples chosen so
// that the statistics are known: fizz is 10..19 ns (mean 14.5) plus one
// high severe outlier at 100 ns.
func SampleResult(t *testing.T) results.Raw {
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
	return results.Raw{
		Environment: results.Environment{Kernel: "6.1.0-test", CPU: 1, CPUs: 2, Repeat: 1000, Resolution: 1},
		Programs: []results.Program{{
			Object: "v4 (bundled)",
			Info:   results.ProgramInfo{Name: "fizzbuzz", Type: "XDP"},
			Results: []results.Case{
				WithRetries(Fixture(cases[0], 2, "XDP_PASS", fizz), 2),
				Fixture(cases[1], 0, "XDP_ABORTED", short),
			},
		}},
	}
}

// SettingsFor are bench's: the slope stands for a case sampled linearly.
func SettingsFor(linear bool) results.Settings {
	s := results.Settings{Confidence: 0.95}
	if linear {
		s.Estimator = stats.Slope
	}
	return s
}

// SpikeRun is a run of n cases, c00, c01, …, of a program named
// xdp_prog_main: each case's runs mostly take 19.2 ns plus i/10, a third
// of them up to 3 ns more, and one call 170 ns a run (a machine hiccup). Flat: the kernel's whole ns of each sample; linear: calls of
// 100 to 1000 runs costing 900 ns beyond them, and the kernel's figures.
func SpikeRun(t *testing.T, n int, linear bool) results.Raw {
	t.Helper()
	base, err := packets.Select([]string{packets.Fizz})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(n), 1))
	prog := results.Program{Object: "test.o", Info: results.ProgramInfo{Name: "xdp_prog_main", Type: "XDP"}}
	for i := range n {
		c := Fixture(base[0], 2, "XDP_PASS", nil)
		c.Name = fmt.Sprintf("c%02d", i)
		for k := range 200 {
			perRun := 19.2 + float64(i)/10 + 0.02*r.NormFloat64()
			if r.Float64() < 0.3 {
				perRun += 3 * r.Float64()
			}
			if k == 77 {
				perRun = 170
			}
			c.Samples = append(c.Samples, math.Floor(perRun))
			if linear {
				runs := uint32(100 * (1 + k%10))
				c.Runs = append(c.Runs, runs)
				c.Wall = append(c.Wall, 900+perRun*float64(runs))
			}
		}
		prog.Results = append(prog.Results, c)
	}
	env := results.Environment{Kernel: "6.1.0-test", CPU: 1, CPUs: 2, Repeat: 1000, Resolution: 1, Timer: "kernel"}
	if linear {
		env.Sampling = results.Sampling{Mode: results.SamplingLinear, Step: 100, Levels: 10}
		env.Resolution = 0.001
	}
	return results.Raw{Environment: env, Programs: []results.Program{prog}}
}

// TwoBuilds is a before/after run where every after sample is 1.5 times
// its before sample.
func TwoBuilds(t *testing.T) results.Raw {
	t.Helper()
	res := SampleResult(t)
	after := Derived(res.Programs[0], "after", func(s float64) float64 { return s * 1.5 })
	res.Programs[0].Label = "before"
	res.Programs = append(res.Programs, after)
	return res
}

// WithRetries is c with n samples said to have restarted after a
// signal.
func WithRetries(c results.Case, n int) results.Case {
	c.Retries = n
	return c
}
