package xdpmicro_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// ports.o drops TCP and UDP to the ports in its map, returning hit_action.
const portsObject = "bpf/testdata/ports.o"

// apiOptions builds, as a user outside the module would, with the root
// package's names only: a map-init file that blocks DNS, load options that
// make a hit XDP_TX, the options of a run and a worst-packet search.
func apiOptions(t *testing.T) (xdpmicro.Options, xdpmicro.WorstSearch) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "init.yaml")
	if err := os.WriteFile(path, []byte("maps:\n  ports:\n    - {key: 'htons(53)', value: 1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mapInit *xdpmicro.MapInit
	mapInit, err := xdpmicro.ReadMapInit(path)
	if err != nil {
		t.Fatal(err)
	}
	load := xdpmicro.LoadOptions{Set: []string{"hit_action=3"}} // XDP_TX
	prog := xdpmicro.File(portsObject, "")
	programs := []xdpmicro.Program{prog}
	opts := xdpmicro.Options{Programs: programs, Cases: xdpmicro.Mix(), MapInit: mapInit, Load: load,
		Budget: time.Second, Placements: 2, NoFloor: true}
	search := xdpmicro.WorstSearch{Program: prog, MapInit: mapInit, Load: load, Seeds: xdpmicro.Mix(),
		Candidates: 2000, Seed: xdpmicro.DefaultWorstSeed, Top: 2}
	return opts, search
}

// The root package's options can be built and run from outside the
// module: the map-init file and the load options reach the program.
func TestAPIFromOutside(t *testing.T) {
	opts, search := apiOptions(t)
	kerneltest.RequireBPFAlone(t)
	ctx := context.Background()
	rep, err := xdpmicro.Run(ctx, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Measured().Results, func(c results.Case) bool { return c.Action == "XDP_TX" }) {
		t.Errorf("no case returned XDP_TX: the map-init file or --set did not reach the program: %+v", rep.Measured().Results)
	}
	found, err := xdpmicro.Worst(ctx, search, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Packets) == 0 {
		t.Fatal("the search found no packet")
	}
}

// Bad input through the API, an option or a file, is told with one
// sentinel: xdpmicro.ErrBadInput.
func TestAPIBadInput(t *testing.T) {
	ctx := context.Background()
	opts, search := apiOptions(t)
	opts.Placements = -1
	if _, err := xdpmicro.Run(ctx, opts, nil); !errors.Is(err, xdpmicro.ErrBadInput) {
		t.Errorf("placements -1: got %v, want ErrBadInput", err)
	}
	notELF := filepath.Join(t.TempDir(), "prog.o")
	if err := os.WriteFile(notELF, []byte("not an object"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := xdpmicro.Measure(ctx, xdpmicro.File(notELF, ""), nil); !errors.Is(err, xdpmicro.ErrBadInput) {
		t.Errorf("a file that is no object: got %v, want ErrBadInput", err)
	}
	search.Program = xdpmicro.Find(filepath.Join(t.TempDir(), "none.o"), "")
	if _, err := xdpmicro.Worst(ctx, search, nil, nil); !errors.Is(err, xdpmicro.ErrBadInput) {
		t.Errorf("a search of a missing file: got %v, want ErrBadInput", err)
	}
	bad := xdpmicro.LoadOptions{Type: "kprobe"}
	search.Program, search.Load = xdpmicro.File(portsObject, ""), bad
	if _, err := xdpmicro.Worst(ctx, search, nil, nil); !errors.Is(err, xdpmicro.ErrBadInput) {
		t.Errorf("a search with type kprobe: got %v, want ErrBadInput", err)
	}
}

// Every number of the options has an upper bound, checked with the rest
// before anything is loaded: a run of 2^63-1 samples failed in makeslice
// once its programs were loaded. None of these reaches the kernel.
func TestAPIUpperBounds(t *testing.T) {
	ctx := context.Background()
	opts, search := apiOptions(t)
	cpu := -2
	for name, change := range map[string]func(o *xdpmicro.Options){
		"samples":     func(o *xdpmicro.Options) { o.Samples = xdpmicro.MaxSamples + 1 },
		"samples max": func(o *xdpmicro.Options) { o.Samples, o.Precision = math.MaxInt, xdpmicro.FixedSamples },
		"placements":  func(o *xdpmicro.Options) { o.Placements = xdpmicro.MaxPlacements + 1 },
		"group loads": func(o *xdpmicro.Options) { o.GroupLoads = xdpmicro.MaxPlacements + 1 },
		"budget":      func(o *xdpmicro.Options) { o.Budget = xdpmicro.MaxDuration + 1 },
		"warm-up":     func(o *xdpmicro.Options) { o.Warmup = xdpmicro.MaxDuration + 1 },
		"resamples":   func(o *xdpmicro.Options) { o.Stats = stats.Options{Confidence: 0.95, Resamples: math.MaxInt} },
		"cases":       func(o *xdpmicro.Options) { o.Cases = make([]packets.Case, packets.MaxCases+1) },
		"cpu":         func(o *xdpmicro.Options) { o.CPU = &cpu },
	} {
		o := opts
		change(&o)
		if _, err := xdpmicro.Run(ctx, o, nil); !errors.Is(err, xdpmicro.ErrOptions) || !errors.Is(err, xdpmicro.ErrBadInput) {
			t.Errorf("%s: %v, want ErrOptions", name, err)
		}
	}
	if _, _, err := xdpmicro.Validate(ctx, opts, xdpmicro.MaxValidateRuns+1, nil); !errors.Is(err, xdpmicro.ErrOptions) {
		t.Errorf("validate runs: %v, want ErrOptions", err)
	}
	for name, change := range map[string]func(s *xdpmicro.WorstSearch){
		"top":        func(s *xdpmicro.WorstSearch) { s.Top = xdpmicro.MaxWorstTop + 1 },
		"candidates": func(s *xdpmicro.WorstSearch) { s.Candidates = xdpmicro.MaxWorstCandidates + 1 },
		"budget":     func(s *xdpmicro.WorstSearch) { s.Budget = xdpmicro.MaxDuration + 1 },
	} {
		s := search
		change(&s)
		if _, err := xdpmicro.Worst(ctx, s, nil, nil); !errors.Is(err, xdpmicro.ErrBadInput) {
			t.Errorf("worst %s: %v, want bad input", name, err)
		}
	}
}
