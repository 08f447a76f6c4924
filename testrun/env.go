package testrun

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// chooseCPU validates a requested CPU, or picks one when cpu is negative.
func chooseCPU(cpu int) (int, error) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return 0, fmt.Errorf("read CPU affinity: %w", err)
	}
	var cpus []int
	for i := range runtime.NumCPU() * 4 {
		if allowed.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	if len(cpus) == 0 {
		return 0, fmt.Errorf("%w: no CPU available to this process", ErrConfig)
	}
	if cpu < 0 {
		// The highest-numbered CPU: CPU 0 usually takes more of the
		// machine's interrupts and housekeeping.
		return cpus[len(cpus)-1], nil
	}
	if !slices.Contains(cpus, cpu) {
		return 0, fmt.Errorf("%w: --cpu %d is not available (allowed: %v)", ErrConfig, cpu, cpus)
	}
	return cpu, nil
}

func environment(cfg Config, cpu int) Environment {
	env := Environment{
		Arch:       runtime.GOARCH,
		CPUModel:   cpuModel(),
		CPU:        cpu,
		CPUs:       runtime.NumCPU(),
		Repeat:     cfg.Repeat,
		Samples:    cfg.Samples,
		Warmup:     cfg.Warmup.String(),
		Resolution: Resolution,
		Timer:      TimerKernel,
		Start:      time.Now(),
	}
	if cfg.Timer == TimerStats {
		// Sums of whole nanoseconds over Repeat runs.
		env.Timer, env.Resolution = TimerStats, Resolution/float64(cfg.Repeat)
	}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		env.Kernel = unix.ByteSliceToString(uts.Release[:])
		env.KernelInfo = unix.ByteSliceToString(uts.Version[:])
	}
	env.Hostname, _ = os.Hostname()
	return env
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		key, value, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown"
}
