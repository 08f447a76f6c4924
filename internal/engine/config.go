package engine

import (
	"time"

	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Config is a run as the engine takes it: xdpmicro.Options completed,
// every default decided and every sentinel turned into testrun's value (a
// zero Warmup is one round, a zero Precision exactly Samples rounds, a
// zero noise threshold none), the map states applied to the cases, and
// the programs resolved. The fields mean what Options' fields of the same
// names mean.
type Config struct {
	Programs   []testrun.Program
	Compared   bool
	Live       bool
	LiveBatch  int
	Cases      []packets.Case
	MapInit    *testrun.MapInit
	Load       testrun.LoadOptions
	CPU        int // testrun.AnyCPU to choose
	Warmup     time.Duration
	Samples    int
	Precision  float64
	Budget     time.Duration
	Repeat     uint32
	Sampling   testrun.SamplingMode
	Timer      testrun.Timer
	SampleTime time.Duration

	Placements int
	GroupLoads int
	SingleRun  bool
	Restore    bool
	NoFloor    bool
	NoAnchor   bool

	Estimator    stats.Estimator
	Stats        stats.Options
	Compare      stats.CompareOptions
	Baseline     *results.Run
	BaselineName string
	History      string
	Started      time.Time
	Settings     results.Settings
}

// measured is the program c is about, as results.Run.Measured is a
// report's: the only one, or the after build of a comparison, the last.
// Nil when there is none.
func (c *Config) measured() *testrun.Program {
	if len(c.Programs) == 0 {
		return nil
	}
	return &c.Programs[len(c.Programs)-1]
}
