package kernels

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/jsonsize"
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

// maxLine bounds each line of a command's error and log kept: they come
// from a guest, and are shown as they are.
const maxLine = 4096

// commandError is the command's error line, "xdpmicro: " cut, and the
// lines after it: the verifier's log, where there is one. Each is made
// printable and cut at maxLine bytes: a guest wrote them.
func commandError(stderr string) (string, []string) {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i, line := range lines {
		msg, ok := strings.CutPrefix(line, "xdpmicro: ")
		if !ok || strings.HasPrefix(msg, "note: ") || strings.HasPrefix(msg, "warning: ") {
			continue
		}
		if msg = Printable(msg, maxLine); strings.TrimSpace(msg) == "" {
			continue
		}
		var log []string
		for _, l := range lines[i+1:] {
			log = append(log, Printable(strings.TrimSpace(l), maxLine))
		}
		return msg, log
	}
	if last := Printable(lines[len(lines)-1], maxLine); strings.TrimSpace(last) != "" {
		return last, nil
	}
	return "exited without a message", nil
}

// decodeReports reads bench's JSON, one report or an array of them when
// the object's several programs were measured, each with the checks a
// saved result is read with (results.Parse): a guest's output is no more
// trusted than a file. A report that fails them fails its kernel.
func decodeReports(data []byte) ([]results.Run, error) {
	data = bytes.TrimSpace(data)
	items := []json.RawMessage{data}
	if bytes.HasPrefix(data, []byte("[")) {
		// Each item is a copy: bounded as a saved result is, where 16 MiB
		// of "1," would have made 8 M of them.
		if err := jsonsize.Check(data, &items, 2*int64(len(data))+1<<20); err != nil {
			return nil, unreadable(err)
		}
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, unreadable(err)
		}
		if len(items) == 0 {
			return nil, errors.New("unreadable report: bench's output holds no report")
		}
	}
	reps := make([]results.Run, 0, len(items))
	for _, item := range items {
		rep, err := results.Parse("bench's output", item)
		if err != nil {
			return nil, unreadable(err)
		}
		reps = append(reps, *rep)
	}
	return reps, nil
}

// unreadable says why bench's output is no report, as a failed run: the
// saved-result reader's bad-input mark is dropped with its words.
func unreadable(err error) error {
	return errors.New("unreadable report: " + strings.TrimPrefix(err.Error(), results.ErrBadResult.Error()+": "))
}
