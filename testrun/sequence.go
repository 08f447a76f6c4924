package testrun

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/insncount"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// Sequence is a program loaded for a replay of packets in their order,
// its maps carried from one run to the next: its instrumented copy
// (Counter), which gives each run's path and can read its map effects,
// and the program itself, loaded again for each timed replay so that
// every replay starts from the maps as loaded (and map-init) on a fresh
// placement, beside the floor's empty program. The copy and the program
// have maps of their own: given the same packets in the same order they
// take the same paths, which the replay checks by their actions.
type Sequence struct {
	Info  ProgramInfo
	Notes []string
	// CPU is the CPU the runs are pinned to, claimed against other runs.
	CPU int

	program   Program
	mapInit   *MapInit
	load      LoadOptions
	chosen    object.Chosen
	updates   []object.Update
	others    []object.Other
	counter   *Counter
	timed     *object.Loaded
	floor     *object.Loaded
	ctxIn     []byte // the program type's default context, nil without
	linkLayer bool
	frame     []byte
	claim     *host.Claim
}

// OpenSequence checks p, the load options and the map-init as Run does,
// loads p's instrumented copy and floor's empty program of p's type,
// and claims a CPU (cpu, or AnyCPU) as Run does. The program itself is
// loaded by Reload. The caller closes the sequence.
func OpenSequence(ctx context.Context, p Program, floor Object, mapInit *MapInit, load LoadOptions, cpu int, notice func(string)) (*Sequence, error) {
	allowed, err := host.AllowedCPUs(cpu)
	if err != nil {
		return nil, err
	}
	s, err := openSequence(p, floor, mapInit, load)
	if err != nil {
		return nil, err
	}
	if s.claim, err = host.ChooseCPU(ctx, cpu, allowed, notice); err != nil {
		s.Close()
		return nil, err
	}
	s.CPU = s.claim.CPU
	return s, nil
}

// OpenBeside is OpenSequence for a second program run on first's CPU,
// under first's claim: two builds replayed in turn on one CPU.
func OpenBeside(first *Sequence, p Program, floor Object, mapInit *MapInit, load LoadOptions) (*Sequence, error) {
	s, err := openSequence(p, floor, mapInit, load)
	if err != nil {
		return nil, err
	}
	s.CPU = first.CPU
	return s, nil
}

// openSequence checks and loads what OpenSequence loads.
func openSequence(p Program, floor Object, mapInit *MapInit, load LoadOptions) (*Sequence, error) {
	settings, err := object.NewSettings(object.LoadOptions(load), mapInit.internal())
	if err != nil {
		return nil, err
	}
	chosen, err := object.Choose(object.Object(p.Object), p.Program, settings)
	if err != nil {
		return nil, err
	}
	if chosen.Object.Prog != nil {
		return nil, fmt.Errorf("%w: a program its caller loaded cannot be loaded again for each replay; give its CollectionSpec", ErrConfig)
	}
	updates, others, err := resolveMapInit(mapInit.internal(), chosen, settings)
	if err != nil {
		return nil, err
	}
	ctxIn, err := caseContext(chosen.Info.Type, packets.Case{Name: "replay", Frame: make([]byte, 64)})
	if err != nil {
		return nil, err
	}
	s := &Sequence{Info: ProgramInfo(chosen.Info), Notes: chosen.Notes, chosen: chosen, updates: updates, others: others,
		ctxIn: ctxIn, linkLayer: settings.LinkLayer(), program: p, mapInit: mapInit, load: load}
	if s.counter, err = NewCounter(p, nil, mapInit, load); err != nil {
		return nil, err
	}
	if err := s.openFloor(floor); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openFloor loads floor's empty program of the sequence's type.
func (s *Sequence) openFloor(floor Object) error {
	c, err := object.ChooseByType(object.Object(floor), s.chosen.Info.Type)
	if err != nil {
		return err
	}
	s.floor, err = c.Load()
	return err
}

// Close frees everything loaded, and gives the CPU back.
func (s *Sequence) Close() {
	if s.timed != nil {
		s.timed.Close()
	}
	if s.floor != nil {
		s.floor.Close()
	}
	if s.counter != nil {
		s.counter.Close()
	}
	s.claim.Release()
}

// Pin runs f on an OS thread pinned to the sequence's CPU.
func (s *Sequence) Pin(f func() error) error { return host.Pin(s.CPU, f) }

// Reload loads the program anew, its maps as loaded and filled by
// map-init, in place of the last load: the start of a timed replay.
func (s *Sequence) Reload(ctx context.Context) error {
	if s.timed != nil {
		s.timed.Close()
		s.timed = nil
	}
	l, err := s.chosen.Load()
	if err != nil {
		return err
	}
	s.timed = l
	if err := l.LoadOthers(s.others); err != nil {
		return err
	}
	return l.ApplyContext(ctx, s.updates)
}

// ReloadCopy loads the instrumented copy anew, its maps as loaded and
// filled by map-init: the start of another counting replay.
func (s *Sequence) ReloadCopy() error {
	s.counter.Close()
	var err error
	s.counter, err = NewCounter(s.program, nil, s.mapInit, s.load)
	return err
}

// Count runs frame once through the instrumented copy and returns the
// action and each block's count (valid until the next run).
func (s *Sequence) Count(frame []byte) (uint32, []uint64, error) {
	return s.counter.Run(frame, s.ctxIn)
}

// Total is the instructions a run of the copy executed, given its counts.
func (s *Sequence) Total(counts []uint64) uint64 { return s.counter.Total(counts) }

// Blocks is the number of the program's basic blocks, Count's length.
func (s *Sequence) Blocks() int { return len(s.counter.Blocks) }

// CountEffects is Count, with what the run did to the copy's maps, map
// by map: read by copying the maps before and after, so it costs what
// copying them costs.
func (s *Sequence) CountEffects(frame []byte) (uint32, []uint64, []results.MapChange, error) {
	twin := s.counter.twin
	before, err := twin.Snapshot()
	if err != nil {
		return 0, nil, nil, err
	}
	ret, counts, err := s.Count(frame)
	if err != nil {
		return 0, nil, nil, err
	}
	effects, undo, err := twin.Changes(before)
	if err != nil {
		return 0, nil, nil, err
	}
	return ret, counts, mapChanges(twin.Maps(), effects, undo), nil
}

// mapChanges counts a run's effects map by map: an entry the undo would
// delete was inserted, one it would write back was updated, unless the
// run deleted it.
func mapChanges(maps map[string]*ebpf.Map, effects []Effect, undo object.Undo) []results.MapChange {
	byMap := map[string]*results.MapChange{}
	var order []string
	at := func(name string) *results.MapChange {
		if c, ok := byMap[name]; ok {
			return c
		}
		c := &results.MapChange{Map: name}
		if m, ok := maps[name]; ok {
			c.MapType = m.Type().String()
		}
		byMap[name], order = c, append(order, name)
		return c
	}
	for _, e := range effects {
		if e.Map == insncount.CounterMap {
			continue
		}
		switch e.Change {
		case "deleted":
			at(e.Map).Deleted++
		case "pushed":
			at(e.Map).Pushed++
		}
	}
	names := map[*ebpf.Map]string{}
	for name, m := range maps {
		names[m] = name
	}
	for _, w := range undo.Writes() {
		if names[w.Map] == insncount.CounterMap {
			continue // the copy's own counters
		}
		c := at(names[w.Map])
		if w.Value == nil {
			c.Inserted++
		} else {
			c.Updated++
		}
	}
	out := make([]results.MapChange, 0, len(order))
	for _, name := range order {
		c := *byMap[name]
		c.Updated -= c.Deleted // a deleted entry's old value is written back too
		if c.Updated < 0 {
			c.Updated = 0
		}
		out = append(out, c)
	}
	return out
}

// Time runs frame once (repeat 1) through the program's current load and
// returns its action and the kernel's duration of the run, ns. Repeat 1
// swaps no XDP dispatcher, and copies the frame in anew.
func (s *Sequence) Time(frame []byte) (ret, ns uint32, err error) {
	return s.run(s.timed, frame)
}

// TimeFloor is Time for the floor's empty program.
func (s *Sequence) TimeFloor(frame []byte) (uint32, error) {
	_, ns, err := s.run(s.floor, frame)
	return ns, err
}

// floorWarmRepeat and floorWarmCalls: the floor's cost a run in a warm
// loop is the median of a few calls of many runs, each the kernel's
// whole-ns mean, so within half a nanosecond.
const (
	floorWarmRepeat = 100000
	floorWarmCalls  = 3
)

// FloorWarm is the floor's empty program's cost a run in a warm loop of
// repeats (what bench's figures hold beside a program's own), ns, on the
// sequence's CPU: a replay's mean net of the floor plus this is in
// bench's terms.
func (s *Sequence) FloorWarm(frame []byte) (float64, error) {
	if s.linkLayer {
		frame = object.AppendBehindLinkHeader(nil, frame)
	}
	var calls []float64
	err := s.Pin(func() error {
		for range floorWarmCalls {
			_, ns, _, _, err := callRestarting(s.floor.Prog.FD(), frame, s.ctxIn, floorWarmRepeat)
			if err != nil {
				return s.floor.RunError(err, frame, s.ctxIn)
			}
			// The kernel gives the whole ns below the mean.
			calls = append(calls, float64(ns)+0.5)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	slices.Sort(calls)
	return calls[len(calls)/2], nil
}

func (s *Sequence) run(l *object.Loaded, frame []byte) (ret, ns uint32, err error) {
	if l == nil {
		return 0, 0, errors.New("the program is not loaded: Reload first")
	}
	if s.linkLayer {
		s.frame = object.AppendBehindLinkHeader(s.frame[:0], frame)
		frame = s.frame
	}
	ret, ns, _, _, err = callRestarting(l.Prog.FD(), frame, s.ctxIn, 1)
	switch {
	case errors.Is(err, unix.EINVAL):
		return 0, 0, ErrFrameRefused
	case err != nil:
		return 0, 0, l.RunError(err, frame, s.ctxIn)
	}
	return ret, ns, nil
}

// RunTime is the program's current load's and the floor's run-time
// statistics (run_time_ns, run_cnt): they grow only while EnableRunTimeStats
// holds them on.
func (s *Sequence) RunTime() (prog, floor RunTime, err error) {
	p, err := s.timed.Prog.Stats()
	if err != nil {
		return RunTime{}, RunTime{}, fmt.Errorf("read run-time statistics: %w", err)
	}
	f, err := s.floor.Prog.Stats()
	if err != nil {
		return RunTime{}, RunTime{}, fmt.Errorf("read run-time statistics: %w", err)
	}
	return RunTime{NS: uint64(p.Runtime), Runs: p.RunCount}, RunTime{NS: uint64(f.Runtime), Runs: f.RunCount}, nil
}

// RunTime is a program's run-time statistics.
type RunTime struct {
	NS   uint64 // run_time_ns
	Runs uint64 // run_cnt
}

// EnableRunTimeStats turns the kernel's run-time statistics on until the
// returned function is called (BPF_ENABLE_STATS: closing the descriptor
// turns them off, also when the process dies). Every BPF program on the
// machine pays two clock reads a run meanwhile.
func EnableRunTimeStats() (func(), error) {
	fd, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		return nil, fmt.Errorf("%w: enabling them needs CAP_SYS_ADMIN and a kernel with BPF_ENABLE_STATS: %w", ErrNoRunTimeStats, err)
	}
	return func() { _ = fd.Close() }, nil
}

// ActionName names a return of the sequence's program type.
func (s *Sequence) ActionName(ret uint32) string { return object.ActionName(s.chosen.Info.Type, ret) }

// Verifier is what the kernel told of the current load; nil before one.
func (s *Sequence) Verifier() *VerifierStats {
	if s.timed == nil || s.timed.Verifier == nil {
		return nil
	}
	v := VerifierStats(*s.timed.Verifier)
	return &v
}
