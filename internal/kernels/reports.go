package kernels

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/xdpmicro/xdpmicro/results"
)

// Reports turns the outcomes of bench --format json into a run across
// kernels: each kernel's reports, or why it has none.
func Reports(outcomes []Outcome, args []string) results.KernelRuns {
	return Runs(outcomes, args, func(k *results.KernelRun, stdout []byte) error {
		reps, err := decodeReports(stdout)
		k.Reports = reps
		return err
	})
}

// Runs turns the outcomes of a command into a run across kernels: what
// each kernel was, and whether it ran (status, error, console), its
// output given to decode where the command succeeded; an output decode
// cannot read fails that kernel.
func Runs(outcomes []Outcome, args []string, decode func(k *results.KernelRun, stdout []byte) error) results.KernelRuns {
	runs := results.KernelRuns{Schema: results.KernelsSchema}
	for _, o := range outcomes {
		k := results.KernelRun{
			Kernel: o.Name, Release: o.Release, Accel: o.Accel, Emulated: o.Emulated(), KVMFallback: o.Fallback,
			VCPUs: o.VCPUs, MemoryMiB: o.MemoryMiB, Boot: o.Up, Wall: o.Wall, Exit: o.Exit, Args: args,
		}
		switch {
		case o.Err != nil:
			k.Status, k.Error, k.Console = results.KernelFailed, o.Err.Error(), o.Console
		case o.Exit != 0:
			k.Status = results.KernelRefused
			k.Error, k.Log = commandError(o.Stderr)
		default:
			if err := decode(&k, o.Stdout); err != nil {
				k.Status, k.Error = results.KernelFailed, err.Error()
				break
			}
			k.Status = results.KernelMeasured
		}
		runs.Kernels = append(runs.Kernels, k)
	}
	return runs
}

// commandError is the command's error line, "xdpmicro: " cut, and the
// lines after it: the verifier's log, where there is one.
func commandError(stderr string) (string, []string) {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i, line := range lines {
		if msg, ok := strings.CutPrefix(line, "xdpmicro: "); ok && !strings.HasPrefix(msg, "note: ") && !strings.HasPrefix(msg, "warning: ") {
			var log []string
			for _, l := range lines[i+1:] {
				log = append(log, strings.TrimSpace(l))
			}
			return msg, log
		}
	}
	if len(lines) > 0 && lines[len(lines)-1] != "" {
		return lines[len(lines)-1], nil
	}
	return "exited without a message", nil
}

// decodeReports reads bench's JSON: one report, or an array of them when
// the object's several programs were measured.
func decodeReports(data []byte) ([]results.Report, error) {
	data = bytes.TrimSpace(data)
	var reps []results.Report
	if bytes.HasPrefix(data, []byte("[")) {
		if err := json.Unmarshal(data, &reps); err != nil {
			return nil, fmt.Errorf("unreadable report: %w", err)
		}
		return reps, nil
	}
	var rep results.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("unreadable report: %w", err)
	}
	return []results.Report{rep}, nil
}
