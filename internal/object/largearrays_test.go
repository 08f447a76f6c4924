package object

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"golang.org/x/sys/unix"
)

// loadLargeArrays loads a program of largearrays.o as a run does, and
// returns it with the notes on what xdpmicro changed.
func loadLargeArrays(t *testing.T, program string) (*Loaded, string) {
	t.Helper()
	kerneltest.RequireBPF(t)
	c, err := Choose(kerneltest.ReadTestObject[Object](t, "largearrays.o"), program, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l, strings.Join(c.Notes, "\n")
}

// tcpSyn is the built-in tcp-syn frame and its source address's slot in
// largearrays.o.
func tcpSyn(t *testing.T) ([]byte, uint32) {
	t.Helper()
	cases, err := packets.Assemble(packets.Selection{Builtin: true, Names: []string{"tcp-syn"}})
	if err != nil {
		t.Fatal(err)
	}
	frame := cases[0].Frame
	return frame, binary.BigEndian.Uint32(frame[14+12:]) & (1<<18 - 1)
}

// Arrays no program writes (a load balancer's ring) need no watching:
// the verifier, given them read-only, proves it (issue 48, item 4).
func TestLargeArraysReadOnly(t *testing.T) {
	l, notes := loadLargeArrays(t, "route")
	if !strings.Contains(notes, "created read-only to programs (BPF_F_RDONLY_PROG)") || !strings.Contains(notes, "counters, ring") {
		t.Errorf("notes %q: want counters and ring read-only", notes)
	}
	for _, name := range []string{"ring", "counters"} {
		if m := l.Maps()[name]; m.Flags()&unix.BPF_F_RDONLY_PROG == 0 {
			t.Errorf("map %s: flags %#x, want BPF_F_RDONLY_PROG", name, m.Flags())
		}
	}
	if note := l.UnwatchedNote(); note != "" {
		t.Errorf("unwatched: %q, want none: no program can change the arrays", note)
	}
	if effects := checkRun(t, l); len(effects) != 0 {
		t.Errorf("effects %v, want none", effects)
	}
}

// A large array a program writes is compared in memory with a shadow:
// the counter one run bumps is shown, and put back, where a map over
// 65,536 entries was "not shown" and never put back.
func TestLargeArraysComparedInMemory(t *testing.T) {
	l, notes := loadLargeArrays(t, "count")
	// Each map is tried alone where not all can be read-only: the ring,
	// which count only reads, needs no watching.
	if !strings.Contains(notes, "mmapable (BPF_F_MMAPABLE), so that what a run changes in them is found in memory; programs reach them as before: counters") ||
		!strings.Contains(notes, "proves no run changes them: ring") {
		t.Errorf("notes %q: want counters created mmapable and ring read-only", notes)
	}
	if ring := l.Maps()["ring"]; ring.Flags()&unix.BPF_F_RDONLY_PROG == 0 {
		t.Errorf("ring: flags %#x, want read-only to programs", ring.Flags())
	}
	if note := l.UnwatchedNote(); note != "" {
		t.Errorf("unwatched: %q, want none", note)
	}
	frame, slot := tcpSyn(t)
	counters := l.Maps()["counters"]
	count := func() uint64 {
		var n uint64
		if err := counters.Lookup(slot, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for round := range 2 {
		before, err := l.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := l.RunOnce(frame, nil); err != nil {
			t.Fatal(err)
		}
		effects, undo, err := l.Changes(before)
		if err != nil {
			t.Fatal(err)
		}
		if len(effects) != 1 || effects[0].Map != "counters" || effects[0].Key != strconv.FormatUint(uint64(slot), 10) || effects[0].Value != "1" {
			t.Fatalf("round %d: effects %+v, want counters [%d] set to 1", round, effects, slot)
		}
		if n := count(); n != 1 {
			t.Fatalf("round %d: counter %d after the run, want 1", round, n)
		}
		if err := undo.Apply(); err != nil {
			t.Fatal(err)
		}
		// Put back: the next round starts from zero, and finds the run's
		// change again.
		if n := count(); n != 0 {
			t.Fatalf("round %d: counter %d after the undo, want 0", round, n)
		}
	}
	// A copy a later snapshot replaced is not compared with.
	old, err := l.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Changes(old); err == nil || !strings.Contains(err.Error(), "later snapshot") {
		t.Errorf("changes since a replaced snapshot: %v, want an error", err)
	}
}
