package xdpmicro_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
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
	programs, err := xdpmicro.Targets(prog)
	if err != nil {
		t.Fatal(err)
	}
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
