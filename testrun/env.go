package testrun

import (
	"os"
	"runtime"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/results"
)

func environment(cfg Config, claim *host.Claim) results.Environment {
	env := results.Environment{
		Arch:       runtime.GOARCH,
		CPUModel:   host.CPUModel(),
		CPU:        claim.CPU,
		CPUChoice:  claim.Why,
		CPULock:    &claim.Lock,
		CPUs:       runtime.NumCPU(),
		Repeat:     cfg.Repeat,
		Samples:    cfg.Samples,
		Warmup:     cfg.Warmup.String(),
		Resolution: Resolution,
		Timer:      string(TimerKernel),
		Start:      time.Now(),
	}
	if cfg.Timer == TimerStats {
		// Sums of whole nanoseconds over Repeat runs.
		env.Timer, env.Resolution = string(TimerStats), Resolution/float64(cfg.Repeat)
	}
	env.Kernel, env.KernelInfo = host.Kernel()
	env.Hostname, _ = os.Hostname()
	env.TLBFlushedOnEntry = host.TLBFlushedOnEntry()
	return env
}
