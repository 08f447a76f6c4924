package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// spikeRun is a run of n cases, c00, c01, …, of a program named
// xdp_prog_main: each case's runs mostly take 19.2 ns plus i/10, a third
// of them up to 3 ns more, and one call 170 ns a run (a machine hiccup). Flat: the kernel's whole ns of each sample; linear: calls of
// 100 to 1000 runs costing 900 ns beyond them, and the kernel's figures.
func spikeRun(t *testing.T, n int, linear bool) results.Measured {
	t.Helper()
	base, err := packets.Select([]string{packets.Fizz})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(n), 1))
	prog := results.Program{Object: "test.o", Info: results.ProgramInfo{Name: "xdp_prog_main", Type: "XDP"}}
	for i := range n {
		c := fixture(base[0], 2, "XDP_PASS", nil)
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
	return results.Measured{Environment: env, Programs: []results.Program{prog}}
}

// settingsFor are bench's: the slope stands for a case sampled linearly.
func settingsFor(linear bool) results.Settings {
	s := results.Settings{Confidence: 0.95}
	if linear {
		s.Estimator = stats.Slope
	}
	return s
}
