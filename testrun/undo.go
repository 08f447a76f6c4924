package testrun

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

// Undoers: the first state inside the kernel. One run a call, the maps
// put back from user space between calls, times every run from a cold
// start: a call begins with a flushed TLB here, and a program that
// touches many pages read 200 ns more so (katran's hit path, one run a
// call against repeats) and a flow table's miss 30 % more than its own
// in-BPF timing. An undoer is a program generated for one case of one
// load: before each run it writes back, with map helpers, every entry the
// case's checking run changed (the old value, or a delete of a new key),
// then tail-calls the program, so the case is sampled as repeats. The
// floor's runs go through an undoer of their own that makes the same
// helper calls on shadow maps of the same types, so that the net leaves
// the undoing out, as the kernel's own XDP load-balancer benchmark takes
// its reset step out. A delete of the key the run before inserted finds
// it; the floor's finds nothing after its first run, as the reference
// timings' reset loops do.

// maxUndoStack bounds a key and a value together, each 8-byte aligned,
// on the undoer's 512-byte stack.
const maxUndoStack = 512

// maxUndoWrites bounds the helper calls an undoer makes before each run;
// a variable, so that tests can make a case need more.
var maxUndoWrites = 64

// undoer is the generated program for one case of one load.
type undoer struct {
	*program // the undoer: it tail-calls the target
	jump     *ebpf.Map
	shadows  []*ebpf.Map // the floor's: the maps it writes instead
	// clock, where set, sums the put-back's own time and its runs
	// (putBackClock), per CPU.
	clock *ebpf.Map
}

// newUndoer loads an undoer that writes writes back, the per-CPU ones'
// value of cpu, and tail-calls target, of type and flags as targetSpec.
// With shadow set, it makes the same calls on maps of its own instead.
// With timed set, it times its writes with the kernel's clock into
// u.clock: a put-back that deletes what the run before inserted frees an
// LRU node, the floor's shadow finds nothing to delete, and the two need
// not cost alike (putBackCost).
func newUndoer(target *ebpf.Program, targetSpec *ebpf.ProgramSpec, writes []object.UndoWrite, cpu int, shadow, timed bool) (*undoer, error) {
	if len(writes) > maxUndoWrites {
		return nil, fmt.Errorf("the checking run changed %d entries, more than the %d an undoer writes back", len(writes), maxUndoWrites)
	}
	u := &undoer{}
	ok := false
	defer func() {
		if !ok {
			u.close()
		}
	}()
	var err error
	if u.jump, err = ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.ProgramArray, KeySize: 4, ValueSize: 4, MaxEntries: 1}); err != nil {
		return nil, fmt.Errorf("undoer: %w", err)
	}
	insns := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	if timed {
		if u.clock, err = ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 16, MaxEntries: 1}); err != nil {
			return nil, fmt.Errorf("undoer's clock: %w", err)
		}
		insns = append(insns, asm.FnKtimeGetNs.Call(), asm.Mov.Reg(asm.R7, asm.R0))
	}
	shadows := map[*ebpf.Map]*ebpf.Map{}
	for _, w := range writes {
		m := w.Map
		if shadow {
			if shadows[m] == nil {
				if shadows[m], err = shadowOf(m); err != nil {
					return nil, err
				}
				u.shadows = append(u.shadows, shadows[m])
			}
			m = shadows[m]
		}
		write, err := writeInsns(w, m, cpu)
		if err != nil {
			return nil, err
		}
		insns = append(insns, write...)
	}
	if timed {
		insns = append(insns, clockInsns(u.clock)...)
	}
	insns = append(insns,
		asm.Mov.Reg(asm.R1, asm.R6), asm.LoadMapPtr(asm.R2, u.jump.FD()), asm.Mov.Imm(asm.R3, 0), asm.FnTailCall.Call(),
		asm.Mov.Imm(asm.R0, 0), asm.Return()) // XDP_ABORTED: the tail call failed
	spec := &ebpf.ProgramSpec{Name: "undo", Type: ebpf.XDP, License: "Dual BSD/GPL", Instructions: insns}
	if targetSpec != nil {
		// A program array takes only programs like its first user.
		spec.Flags |= targetSpec.Flags & unix.BPF_F_XDP_HAS_FRAGS
		spec.AttachType = targetSpec.AttachType
	}
	prog, err := ebpf.NewProgram(spec)
	if err != nil {
		return nil, fmt.Errorf("load an undoer: %w", err)
	}
	u.program = &program{Loaded: object.FromCollection(object.Object{Name: "undoer (generated)"},
		object.ProgramInfo{Name: "undo", Type: ebpf.XDP, Section: "xdp"},
		&ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{"undo": spec}, Maps: map[string]*ebpf.MapSpec{}},
		&ebpf.Collection{Programs: map[string]*ebpf.Program{"undo": prog}, Maps: map[string]*ebpf.Map{}}, prog)}
	if err := u.jump.Put(uint32(0), target); err != nil {
		return nil, fmt.Errorf("undoer: put the target in its program array: %w", err)
	}
	ok = true
	return u, nil
}

// writeInsns write w back into m (w's map, or the floor's shadow of it):
// its old value of cpu, or a delete of a key the run added.
func writeInsns(w object.UndoWrite, m *ebpf.Map, cpu int) (asm.Instructions, error) {
	value, err := w.ValueOn(cpu)
	if err != nil {
		return nil, fmt.Errorf("undoer: %w", err)
	}
	keyAt := int16(-maxUndoStack)
	valueAt := keyAt + int16(align8(len(w.Key)))
	if align8(len(w.Key))+align8(len(value)) > maxUndoStack {
		return nil, fmt.Errorf("map %s's key and value, %d bytes, do not fit an undoer's stack", w.Map, len(w.Key)+len(value))
	}
	// The bytes first: storing them goes through R1.
	insns := storeBytes(keyAt, w.Key)
	if value != nil {
		insns = append(insns, storeBytes(valueAt, value)...)
	}
	insns = append(insns, asm.LoadMapPtr(asm.R1, m.FD()), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, int32(keyAt)))
	if value == nil {
		return append(insns, asm.FnMapDeleteElem.Call()), nil
	}
	return append(insns, asm.Mov.Reg(asm.R3, asm.RFP), asm.Add.Imm(asm.R3, int32(valueAt)),
		asm.Mov.Imm(asm.R4, int32(ebpf.UpdateAny)), asm.FnMapUpdateElem.Call()), nil
}

// clockInsns add the time since R7 was read from the kernel's clock, and
// one run, to clock's entry of this CPU: {sum ns, runs}. The writes are
// done, so their stack is free for the key.
func clockInsns(clock *ebpf.Map) asm.Instructions {
	return asm.Instructions{
		asm.FnKtimeGetNs.Call(), asm.Sub.Reg(asm.R0, asm.R7), asm.Mov.Reg(asm.R8, asm.R0),
		asm.StoreImm(asm.RFP, -maxUndoStack, 0, asm.Word),
		asm.LoadMapPtr(asm.R1, clock.FD()), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -maxUndoStack),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "clock_done"),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord), asm.Add.Reg(asm.R1, asm.R8), asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
		asm.LoadMem(asm.R1, asm.R0, 8, asm.DWord), asm.Add.Imm(asm.R1, 1), asm.StoreMem(asm.R0, 8, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("clock_done"),
	}
}

// putBackClock is the put-back's total time in ns, and its runs, as
// u.clock summed them over every CPU.
func (u *undoer) putBackClock() (sum, runs float64, err error) {
	var values [][]byte
	if err := u.clock.Lookup(uint32(0), &values); err != nil {
		return 0, 0, fmt.Errorf("undoer's clock: %w", err)
	}
	for _, v := range values {
		sum += float64(binary.NativeEndian.Uint64(v[0:]))
		runs += float64(binary.NativeEndian.Uint64(v[8:]))
	}
	return sum, runs, nil
}

// shadowOf is an empty map like m, for the floor's undoer to write: of
// its type and sizes, and as many entries up to a bound.
func shadowOf(m *ebpf.Map) (*ebpf.Map, error) {
	info, err := m.Info()
	if err != nil {
		return nil, fmt.Errorf("undoer: map %s: %w", m, err)
	}
	s, err := ebpf.NewMap(&ebpf.MapSpec{Type: m.Type(), KeySize: m.KeySize(), ValueSize: m.ValueSize(),
		MaxEntries: min(m.MaxEntries(), maxInspectedShadow), Flags: info.Flags})
	if err != nil {
		return nil, fmt.Errorf("undoer: a shadow of map %s: %w", m, err)
	}
	return s, nil
}

// maxInspectedShadow bounds a shadow map's entries: it holds the few keys
// its undoer writes.
const maxInspectedShadow = 1 << 16

// storeBytes writes b to the stack at off, 8 bytes a store where it can.
func storeBytes(off int16, b []byte) asm.Instructions {
	var insns asm.Instructions
	for i := 0; i < len(b); {
		at := off + int16(i)
		switch rest := len(b) - i; {
		case rest >= 8:
			insns = append(insns, asm.LoadImm(asm.R1, int64(binary.NativeEndian.Uint64(b[i:])), asm.DWord), asm.StoreMem(asm.RFP, at, asm.R1, asm.DWord))
			i += 8
		case rest >= 4:
			insns = append(insns, asm.StoreImm(asm.RFP, at, int64(int32(binary.NativeEndian.Uint32(b[i:]))), asm.Word))
			i += 4
		case rest >= 2:
			insns = append(insns, asm.StoreImm(asm.RFP, at, int64(binary.NativeEndian.Uint16(b[i:])), asm.Half))
			i += 2
		default:
			insns = append(insns, asm.StoreImm(asm.RFP, at, int64(b[i]), asm.Byte))
			i++
		}
	}
	return insns
}

func align8(n int) int { return (n + 7) &^ 7 }

func (u *undoer) close() {
	if u == nil {
		return
	}
	if u.program != nil {
		u.Close()
	}
	if u.jump != nil {
		u.jump.Close()
	}
	for _, s := range u.shadows {
		s.Close()
	}
	if u.clock != nil {
		u.clock.Close()
	}
}

// undoneRunner samples one case through its undoer.
type undoneRunner struct {
	u *undoer
	// choose, if set, makes the frame restorer the undoer tail-calls
	// restore the case's frame.
	choose func() error
}

func (x undoneRunner) sample(frame, ctx []byte, repeat uint32) (measurement, error) {
	if x.choose != nil {
		if err := x.choose(); err != nil {
			return measurement{}, err
		}
	}
	return x.u.sample(frame, ctx, repeat)
}

func (x undoneRunner) sampleSingle(frame func() []byte, ctx []byte, calls int, want uint32, reset func() error) (measurement, error) {
	return measurement{}, errors.New("an undone case is sampled as repeats")
}

// undo decides, before sampling, which first-state cases run through
// undoers: every one whose undoers load for every program and the floor
// and reproduce the program's checking run in a call of several runs;
// the others stay one run a call, their maps put back from user space,
// and a note says why. It fills p.undoers and marks res's cases.
func (p *plan) undo(progs []*program, res *Result) error {
	p.undoers = make([][]*undoer, len(progs))
	for i := range progs {
		p.undoers[i] = make([]*undoer, len(p.cfg.Cases))
	}
	for ci, k := range p.cfg.Cases {
		if k.State != packets.StateFirst || progs[0].Info.Type != ebpf.XDP {
			continue
		}
		if why := p.undoCase(progs, res, ci); why != "" {
			if err := p.userUndoFits(res, ci, why); err != nil {
				return err
			}
			for i := range progs {
				p.undoers[i][ci].close()
				p.undoers[i][ci] = nil
				c := &res.Programs[i].Cases[ci]
				c.Single, c.Restored = true, false
			}
			res.Environment.Notes = append(res.Environment.Notes,
				fmt.Sprintf("case %s is sampled one run a call, its maps put back from user space between calls: %s", k.Name, why))
			continue
		}
		for i := range res.Programs {
			c := &res.Programs[i].Cases[ci]
			c.Single, c.Undone = false, true
			if !p.isFloor(i) {
				c.LRUMap, c.LRUEntries = recycledLRU(c.undo.Writes())
			}
		}
		if p.cfg.PutBackTimed {
			continue
		}
		if err := p.putBackCost(progs, res, ci); err != nil {
			return err
		}
	}
	return nil
}

// recycledLRU names the first LRU map whose new entry a put-back
// deletes, and its size: the next run's insert then takes the node the
// delete freed, from the CPU's own free list, the cheapest miss such a
// map has; never a refill from its global list or an eviction.
func recycledLRU(writes []object.UndoWrite) (name string, entries uint32) {
	for _, w := range writes {
		if t := w.Map.Type(); w.Value == nil && (t == ebpf.LRUHash || t == ebpf.LRUCPUHash) {
			name = w.Map.String()
			if info, err := w.Map.Info(); err == nil && info.Name != "" {
				name = info.Name
			}
			return name, w.Map.MaxEntries()
		}
	}
	return "", 0
}

// putBackRepeat and putBackCalls: the put-back is timed in calls of
// some milliseconds of a miss's runs each, alternating between the
// program and the floor, so that the machine's drift meets both; each
// side stands for the median of its calls.
const (
	putBackRepeat = 2000
	putBackCalls  = 3
)

// putBackCost times, inside BPF, what each program's undoer and the
// floor's take to put case ci's maps back before a run (their
// PutBack), on the first load of each, through a timed copy of its
// undoer: the net of the floor leaves out only the floor's, and the
// program's may cost more, as its delete finds what the run before
// inserted and the floor's finds nothing. The maps are put back after.
func (p *plan) putBackCost(progs []*program, res *Result, ci int) error {
	var timers []*putBackTimer
	byProgram := map[int]*putBackTimer{}
	defer func() {
		for _, t := range timers {
			t.u.close()
		}
	}()
	for i, l := range progs {
		if byProgram[p.programOf[i]] != nil {
			continue
		}
		t, err := p.newPutBackTimer(l, res, i, ci)
		if err != nil {
			return fmt.Errorf("case %s: time the put-back of %s: %w", p.cfg.Cases[ci].Name, l.Info.Name, err)
		}
		timers, byProgram[p.programOf[i]] = append(timers, t), t
	}
	for range putBackCalls {
		for _, t := range timers {
			if err := t.call(p, res, ci); err != nil {
				return fmt.Errorf("case %s: time the put-back of %s: %w", p.cfg.Cases[ci].Name, t.l.Info.Name, err)
			}
		}
	}
	for _, t := range timers {
		if err := t.putMapsBack(); err != nil {
			return err
		}
	}
	for i := range progs {
		res.Programs[i].Cases[ci].PutBack = byProgram[p.programOf[i]].median()
	}
	return nil
}

// putBackTimer is a timed copy of one load's undoer, its calls' mean
// put-back times, and the load's maps as they were before.
type putBackTimer struct {
	l         *program
	i         int
	u         *undoer
	before    object.MapState
	sum, runs float64
	calls     []float64
}

func (p *plan) newPutBackTimer(l *program, res *Result, i, ci int) (*putBackTimer, error) {
	u, err := p.undoerOf(l, res, i, ci, true)
	if err != nil {
		return nil, err
	}
	before, err := l.Snapshot()
	if err != nil {
		u.close()
		return nil, err
	}
	return &putBackTimer{l: l, i: i, u: u, before: before}, nil
}

// call runs one call of the case through the timed undoer, and keeps the
// mean put-back time of its runs.
func (t *putBackTimer) call(p *plan, res *Result, ci int) error {
	c := res.Programs[t.i].Cases[ci]
	if c.Restored {
		if err := p.restorers[t.i].choose(ci); err != nil {
			return err
		}
	}
	if _, _, _, err := t.u.RunTimes(c.Case.Frame, c.ctxIn, putBackRepeat); err != nil {
		return err
	}
	sum, runs, err := t.u.putBackClock()
	if err != nil {
		return err
	}
	if runs <= t.runs {
		return errors.New("no run reached its clock")
	}
	t.calls = append(t.calls, (sum-t.sum)/(runs-t.runs))
	t.sum, t.runs = sum, runs
	return nil
}

func (t *putBackTimer) median() float64 {
	s := slices.Sorted(slices.Values(t.calls))
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// putMapsBack puts the load's maps back as they were before its calls.
func (t *putBackTimer) putMapsBack() error {
	_, undo, err := t.l.Changes(t.before)
	if err != nil {
		return err
	}
	return undo.Apply()
}

// maxUserUndo bounds what putting a first-state case's maps back from
// user space may write before each call: an 8 MiB global and three
// 15 MiB slabs written back every call took a 1 s run to two minutes and
// 700 MB.
const maxUserUndo = 1 << 20

// userUndoFits refuses a first-state case that no undoer can serve and
// whose maps are too much to put back from user space before every call.
func (p *plan) userUndoFits(res *Result, ci int, why string) error {
	for i, pr := range res.Programs {
		if p.isFloor(i) {
			continue
		}
		if n := pr.Cases[ci].undo.Bytes(); n > maxUserUndo {
			return fmt.Errorf("%w: case %s: the first state puts back before every run what a run changed, and no undoer can (%s); "+
				"its runs change %.1f MiB of maps, past the %d MiB put back from user space: time it in the steady state",
				ErrConfig, p.cfg.Cases[ci].Name, why, float64(n)/(1<<20), maxUserUndo>>20)
		}
	}
	return nil
}

// undoerOf loads load i's undoer of case ci: it tail-calls the load, or
// its restorer where the case is restored, and writes back what the
// program's checking run changed; the floor's, on shadows of its own.
func (p *plan) undoerOf(l *program, res *Result, i, ci int, timed bool) (*undoer, error) {
	c := res.Programs[i].Cases[ci]
	target := l.Prog
	if c.Restored {
		target = p.restorers[i].Prog
	}
	writes, shadow := c.undo.Writes(), p.isFloor(i)
	if shadow {
		writes = res.Programs[0].Cases[ci].undo.Writes()
	}
	return newUndoer(target, l.Spec.Programs[l.Info.Name], writes, p.cpu, shadow, timed)
}

// undoCase loads the undoers of case ci, one a load, and checks them;
// it returns why they cannot be used, or "".
func (p *plan) undoCase(progs []*program, res *Result, ci int) string {
	for i, l := range progs {
		c := res.Programs[i].Cases[ci]
		u, err := p.undoerOf(l, res, i, ci, false)
		if err != nil {
			return fmt.Sprintf("%s: %v", l.Info.Name, err)
		}
		p.undoers[i][ci] = u
		if p.isFloor(i) {
			continue
		}
		if why, err := p.undoReproduces(l, u, c, i, ci); err != nil || why != "" {
			if err != nil {
				why = err.Error()
			}
			return fmt.Sprintf("%s: %s", l.Info.Name, why)
		}
	}
	return ""
}

// undoReproduces says whether a call of several runs through u returns
// the program's checking run's action and leaves the maps as one run from
// the maps as loaded does; if not, why. It puts the maps back after.
func (p *plan) undoReproduces(l *program, u *undoer, c CaseResult, i, ci int) (string, error) {
	before, err := l.Snapshot()
	if err != nil {
		return "", err
	}
	if c.Restored {
		if err := p.restorers[i].choose(ci); err != nil {
			return "", err
		}
	}
	ret, _, _, err := u.RunTimes(c.Case.Frame, c.ctxIn, restoreProbeRepeat)
	if err != nil {
		return "", err
	}
	effects, undo, err := l.Changes(before)
	if err != nil {
		return "", err
	}
	if err := undo.Apply(); err != nil {
		return "", err
	}
	switch {
	case ret != c.Return:
		return fmt.Sprintf("a call of %d runs through its undoer returned %d, the checking run %d", restoreProbeRepeat, ret, c.Return), nil
	case len(effects) != len(c.Effects):
		return fmt.Sprintf("a call of %d runs through its undoer changed %d map entries, the checking run %d", restoreProbeRepeat, len(effects), len(c.Effects)), nil
	}
	return "", nil
}

// releaseUndoers closes every undoer.
func (p *plan) releaseUndoers() {
	for _, us := range p.undoers {
		for _, u := range us {
			u.close()
		}
	}
	p.undoers = nil
}
