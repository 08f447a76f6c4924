package testrun

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

// Restored frames. A test run's repeats share one buffer, and a case a
// program changes the frame of was first sampled one run a call. Measured
// here, one run a call reads more than the same runs repeated (on this
// host 10-20 ns for v4, which changes nothing: every call starts with a
// flushed TLB), so an XDP program's frame-changing cases are sampled as
// repeats through a restorer (bpf/restore.c) instead: before each run it
// puts the buffer back to the case's frame and tail-calls the program.
// The floor runs through a restorer of its own, which takes the
// restoring's cost out of the net.
//
// A restorer is relied on only where its runs reproduce the program's own
// checking run, action and frame, in a call of one run and in a call of
// several; elsewhere the case stays one run a call, and a note says why.

// maxRestoredFrame is the longest frame the restorer holds (restore.c's
// MAX_FRAME).
const maxRestoredFrame = 3520

// restoreProbeRepeat is the repeat of the call that checks a restorer's
// runs after the first.
const restoreProbeRepeat = 3

// restorer is a restoring program in the kernel for one program.
type restorer struct {
	*program // the restore program: it tail-calls the target
	current  *ebpf.Variable
	at       int // the case current holds; -1 before the first
}

// newRestorer loads a restorer of target for cases; it moves the ends
// back of the cases move marks and writes the bytes back of those write
// marks. Frames too long for it are left out: a case of one is never
// restored.
func newRestorer(target *program, cases []packets.Case, move, write []bool, flows []*packets.FlowSet) (*restorer, error) {
	spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(bpf.Restorer()))
	if err != nil {
		return nil, fmt.Errorf("restorer: %w", err)
	}
	spec.Maps["frames"].MaxEntries = uint32(max(len(cases), 1))
	// Where no case moves, the variant that only writes bytes: it needs
	// no CAP_PERFMON (restore.c).
	name, other := "restore_bytes", "restore"
	if slices.Contains(move, true) {
		name, other = other, name
	}
	delete(spec.Programs, other)
	// A program array takes only programs like its first user: the same
	// type, attach type and multi-buffer flag.
	if ts := target.Spec.Programs[target.Info.Name]; ts != nil {
		rs := spec.Programs[name]
		rs.Flags |= ts.Flags & unix.BPF_F_XDP_HAS_FRAGS
		rs.AttachType = ts.AttachType
	}
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		return nil, fmt.Errorf("load the restorer: %w", err)
	}
	r := &restorer{
		program: &program{Loaded: object.FromCollection(object.Object{Name: "restorer (bundled)"},
			object.ProgramInfo{Name: name, Type: ebpf.XDP, Section: "xdp"}, spec, coll, coll.Programs[name])},
		current: coll.Variables["current_case"],
		at:      -1,
	}
	if err := coll.Maps["target"].Put(uint32(0), target.Prog); err != nil {
		coll.Close()
		return nil, fmt.Errorf("put %s in the restorer's program array: %w", target.Info.Name, err)
	}
	for i, c := range cases {
		if len(c.Frame) > maxRestoredFrame {
			continue
		}
		value := make([]byte, frameHeader+maxRestoredFrame) // restore.c's struct frame
		binary.NativeEndian.PutUint32(value, uint32(len(c.Frame)))
		if write[i] {
			binary.NativeEndian.PutUint32(value[4:], 1)
		}
		if move[i] {
			binary.NativeEndian.PutUint32(value[8:], 1)
		}
		if i < len(flows) && flows[i] != nil {
			putFlows(value, flows[i])
		}
		copy(value[frameHeader:], c.Frame)
		if err := coll.Maps["frames"].Put(uint32(i), value); err != nil {
			coll.Close()
			return nil, fmt.Errorf("restorer: frame of case %s: %w", c.Name, err)
		}
	}
	return r, nil
}

// frameHeader is the size of restore.c's struct frame before its bytes.
const frameHeader = 40

// putFlows sets a case's flows in value, restore.c's struct frame: their
// number, where they differ and flow 0's values there, from which the
// restorer makes each flow's bytes; nothing is kept per flow.
func putFlows(value []byte, s *packets.FlowSet) {
	p := s.Patch()
	put16, put32 := binary.NativeEndian.PutUint16, binary.NativeEndian.PutUint32
	put32(value[12:], uint32(s.N()))
	for i, off := range p.At {
		put16(value[20+2*i:], uint16(off))
	}
	put32(value[28:], p.Addr)
	put16(value[32:], p.Port)
	put16(value[34:], p.IPCheck)
	put16(value[36:], p.L4Check)
	if p.UDP {
		put16(value[38:], 1)
	}
}

// choose makes the next calls restore case ci's frame.
func (r *restorer) choose(ci int) error {
	if r.at == ci {
		return nil
	}
	if err := r.current.Set(uint32(ci)); err != nil {
		return fmt.Errorf("restorer: choose case %d: %w", ci, err)
	}
	r.at = ci
	return nil
}

// reproduces says whether the restorer's runs of case ci give the
// program's checking run's action and frame, out (nil: any), in a call of one run
// and in a call of several; if not, why.
func (r *restorer) reproduces(ci int, frame, ctx []byte, action uint32, out []byte) (string, error) {
	if len(frame) > maxRestoredFrame {
		return fmt.Sprintf("its %d-byte frame is longer than the restorer holds (%d)", len(frame), maxRestoredFrame), nil
	}
	if err := r.choose(ci); err != nil {
		return "", err
	}
	repeats := []uint32{1, restoreProbeRepeat}
	if r.live {
		// A live restorer does not move the ends back, which the kernel
		// does between live runs but not between a test run's: its one
		// run is checked here, its live runs by checkLiveRestored.
		repeats = repeats[:1]
	}
	for _, repeat := range repeats {
		ret, got, _, err := r.RunTimes(frame, ctx, repeat)
		if err != nil {
			return "", err
		}
		switch {
		case ret != action:
			return fmt.Sprintf("a call of %d run(s) through the restorer returned %d, the program's own run %d", repeat, ret, action), nil
		case out != nil && !bytes.Equal(got, out):
			return fmt.Sprintf("a call of %d run(s) through the restorer left another frame than the program's own run (%d bytes, not %d)", repeat, len(got), len(out)), nil
		}
	}
	return "", nil
}

// restoredRunner samples one case through a restorer.
type restoredRunner struct {
	r         *restorer
	caseIndex int
}

func (x restoredRunner) sample(frame, ctx []byte, repeat uint32) (measurement, error) {
	if err := x.r.choose(x.caseIndex); err != nil {
		return measurement{}, err
	}
	return x.r.sample(frame, ctx, repeat)
}

func (x restoredRunner) sampleSingle(frame func() []byte, ctx []byte, calls int, want uint32, reset func() error) (measurement, error) {
	if err := x.r.choose(x.caseIndex); err != nil {
		return measurement{}, err
	}
	return x.r.sampleSingle(frame, ctx, calls, want, reset)
}

// restore decides, before sampling, which cases run through restorers:
// every case with Config.Restore, else those some program changes the
// frame of. It loads a restorer for every program and the floor, and
// keeps a case one run a call unless every one of them reproduces its
// program's checking run. It fills p.restorers and marks res's cases.
func (p *plan) restore(progs []*program, res *Result) error {
	if p.cfg.SingleRun {
		return nil
	}
	candidates, move, write := p.restoreCandidates(res)
	if len(candidates) == 0 || !p.loadRestorers(progs, move, write, res) {
		return nil
	}
	for _, ci := range candidates {
		why, err := p.probeRestorers(progs, ci, res)
		if err != nil {
			return err
		}
		if why != "" {
			res.Environment.Notes = append(res.Environment.Notes,
				fmt.Sprintf("case %s is sampled one run a call: the restorer does not reproduce its runs (%s)", p.cfg.Cases[ci].Name, why))
			continue
		}
		for i := range res.Programs {
			res.Programs[i].Cases[ci].Single, res.Programs[i].Cases[ci].Restored = false, true
		}
	}
	return nil
}

// restoreCandidates are the cases that may run through restorers, by the
// checking runs in res, and for each case whether a restorer must move
// the frame's ends back and write its bytes back.
func (p *plan) restoreCandidates(res *Result) (candidates []int, move, write []bool) {
	move, write = make([]bool, len(p.cfg.Cases)), make([]bool, len(p.cfg.Cases))
	for ci := range p.cfg.Cases {
		changed, ctxChanged := false, false
		for i, pr := range res.Programs {
			c := pr.Cases[ci]
			changed = changed || (!p.isFloor(i) && c.Output != nil)
			ctxChanged = ctxChanged || (!p.isFloor(i) && c.ContextChanges != nil)
			// A program that moves an end by as much as it moves the
			// other keeps the length: the restorer, not told to move
			// them, then fails to reproduce its runs, and the case stays
			// one run a call.
			move[ci] = move[ci] || (!p.isFloor(i) && c.Output != nil && len(c.Output) != len(c.Case.Frame))
		}
		// A flows=N case runs through the restorer, which patches in the
		// next flow every run; a first-state one through its undoer,
		// which tail-calls the restorer where the frame needs it.
		flows := packets.FlowsOf(p.cfg.Cases[ci].State) > 0
		if (changed || p.cfg.Restore || flows) && !ctxChanged {
			candidates = append(candidates, ci)
		}
		write[ci] = changed
	}
	return candidates, move, write
}

// loadRestorers loads a restorer for every program into p.restorers. It
// says false where none is to be used: a program is not XDP, or a
// restorer did not load (a note in res says why).
func (p *plan) loadRestorers(progs []*program, move, write []bool, res *Result) bool {
	for _, l := range progs {
		if l.Info.Type != ebpf.XDP {
			return false // Config.Restore was refused in prepare
		}
	}
	p.restorers = make([]*restorer, len(progs))
	for i, l := range progs {
		// Live frames: the kernel puts each run's ends back itself, and
		// its pages do not start where a test run's buffer does.
		mv := move
		if l.live {
			mv = make([]bool, len(move))
		}
		r, err := newRestorer(l, p.cfg.Cases, mv, write, p.flows)
		if err != nil {
			res.Environment.Notes = append(res.Environment.Notes,
				fmt.Sprintf("no restorer for %s (%v): cases it changes the frame of are sampled one run a call", l.Info.Name, err))
			p.releaseRestorers()
			return false
		}
		p.restorers[i] = r
		r.live, r.batch, r.drain = l.live, l.batch, l.drain
	}
	return true
}

// probeRestorers runs case ci through each program's restorer, and says
// why the first that does not reproduce its program's checking run does
// not; "" where all do.
func (p *plan) probeRestorers(progs []*program, ci int, res *Result) (string, error) {
	for i, l := range progs {
		c := res.Programs[i].Cases[ci]
		out := c.Output
		if out == nil {
			out = c.Case.Frame
		}
		// The probe's runs change the maps: put them back, so that
		// sampling starts from the maps as loaded.
		before, err := l.Snapshot()
		if err != nil {
			return "", fmt.Errorf("case %s: %w", c.Case.Name, err)
		}
		if c.flows != nil {
			out = nil // each run another flow, another frame
		}
		why, err := p.restorers[i].reproduces(ci, c.Case.Frame, c.ctxIn, c.Return, out)
		if err != nil {
			return "", fmt.Errorf("case %s: %w", c.Case.Name, err)
		}
		if err := l.PutBack(before); err != nil {
			return "", fmt.Errorf("case %s: %w", c.Case.Name, err)
		}
		if why != "" {
			return fmt.Sprintf("%s: %s", l.Info.Name, why), nil
		}
	}
	return "", nil
}

// releaseRestorers closes every restorer.
func (p *plan) releaseRestorers() {
	for _, r := range p.restorers {
		if r != nil {
			r.Close()
		}
	}
	p.restorers = nil
}
