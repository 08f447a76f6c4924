package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// TestMain keeps the tests' runs out of the user's own phase history
// (every run without --history remembers its floor in the cache
// directory), and removes the binary the tests built.
// Go's own build cache moves with it unless named: the tests that build
// the binary keep the one they had.
func TestMain(m *testing.M) {
	if os.Getenv("GOCACHE") == "" {
		if user, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(user, "go-build"))
		}
	}
	dir, err := os.MkdirTemp("", "xdpmicro-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	if built.dir != "" {
		os.RemoveAll(built.dir) // the binary buildBinary built once
	}
	os.Exit(code)
}

// A run remembers its floor in --history; a run after it, told that the
// machine's fast phase read half that, scales every figure to it and says
// so.
func TestHistory(t *testing.T) {
	kerneltest.RequireBPF(t)
	dir := t.TempDir()
	history := filepath.Join(dir, "phases.json")
	bench := func(out string) *results.Run {
		t.Helper()
		args := append([]string{"bench", "--class", "fizz,none", "--placements", "6", "--history", history, "--format", "json", "-o", out}, quick...)
		if code, _, stderr := runCLI(args...); code != 0 {
			t.Fatalf("bench exits %d: %s", code, stderr)
		}
		return readReport(t, out)
	}
	// A floor known to worse than phases.MaxHalf is not remembered (a
	// quick run on a busy machine may read one): the test then writes
	// the run's floor itself, and goes on.
	remembered := func(r *results.Run) bool {
		_, half, ok := engine.FloorLevel(r)
		return ok && half <= phases.MaxHalf
	}
	first := bench(filepath.Join(dir, "first.json"))
	h, err := phases.Load(history)
	if !remembered(first) && err == nil && len(h.Levels) == 0 {
		boot, err := phases.Boot()
		if err != nil {
			t.Fatal(err)
		}
		level, _, _ := engine.FloorLevel(first)
		env := first.Environment
		design := phases.NewDesign(len(first.Programs), max(env.LoadsPerGroup, 1), (1+len(first.Floor.Placements))/max(env.Groups, 1))
		key := phases.Key{Boot: boot, CPU: env.CPU, Type: first.Floor.Info.Type, Design: design, Frames: phases.NewFrames(engine.FloorLevelFrames(first))}
		h.Add(key, level, phases.MaxHalf/2, time.Now())
	}
	if err != nil || len(h.Levels) != 1 {
		t.Fatalf("history after one run: %+v, %v; want one key", h, err)
	}
	var level phases.Level
	for key, levels := range h.Levels {
		if len(levels) != 1 {
			t.Fatalf("key %s holds %d runs, want 1", key, len(levels))
		}
		level = levels[0]
		levels[0].Floor /= 2 // the fast phase, as if earlier runs had met one twice as fast
	}
	floor := first.Floor.Results[0].Stats.Of(stats.Slope).Point
	if level.Floor < floor/2 || level.Floor > floor*2 {
		t.Fatalf("remembered floor %.2f ns, the run's floor read %.2f ns", level.Floor, floor)
	}
	if err := h.Save(history); err != nil {
		t.Fatal(err)
	}

	second := bench(filepath.Join(dir, "second.json"))
	for _, p := range append(second.Programs, *second.Floor) {
		for _, c := range p.Results {
			l := c.Stats.Loads
			if l == nil || l.Phase == nil || l.Phase.Recalled != level.Floor/2 || l.Phase.RecalledRuns != 1 {
				t.Fatalf("%s %s: loads %+v; want scaled to the recalled %.2f ns", p.Object, c.Name, l, level.Floor/2)
			}
		}
	}
	// Halved, give or take the machine's phases between the two runs
	// (up to ×1.4 here).
	before, after := first.Programs[0].Results[0].Stats.Of(stats.Slope).Point, second.Programs[0].Results[0].Stats.Of(stats.Slope).Point
	if ratio := after / before; ratio < 0.25 || ratio > 0.75 {
		t.Errorf("fizz read %.2f ns, then %.2f ns scaled to a fast phase of half the floor: ×%.2f, want about ×0.5", before, after, ratio)
	}
	if h, err := phases.Load(history); err != nil || len(h.Levels) != 1 {
		t.Errorf("history after two runs: %+v, %v", h, err)
	} else {
		// The second run's own floor is remembered where it was precise
		// enough: its report holds it scaled, so only the file says which.
		for _, levels := range h.Levels {
			switch {
			case len(levels) < 1 || len(levels) > 2:
				t.Errorf("the key holds %d runs after two, want 1 or 2", len(levels))
			case len(levels) == 2 && levels[1].Half > phases.MaxHalf:
				t.Errorf("a floor known to ±%.0f %% was remembered, past phases.MaxHalf", 100*levels[1].Half)
			}
		}
	}
}
