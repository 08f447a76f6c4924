package testrun

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/xdpmicro/xdpmicro/internal/insncount"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

// loadCounted loads an instrumented copy, sharing the maps of shared;
// tests replace it.
var loadCounted = insncount.LoadSharing

// countInstructions sets, for every case of every program but the floor,
// the number of BPF instructions of its first run and of a later one, and
// of the one its samples time, counted on an instrumented copy of the
// program (package insncount) loaded beside the one measured, and closed.
// The copy has maps of its own, filled as the program's were and put back
// after each case as the program's are, so that it takes the paths the
// program takes. A program whose copy
// cannot be loaded, or strays from that path, gets the reason instead: it
// is measured by time alone. Once ctx is done it stops, with ctx's
// error: the copy's maps take as long to fill as the program's.
func (p *plan) countInstructions(ctx context.Context, progs []*program, res *Result) error {
	known := p.cfg.Counts
	res.Counts = &Counts{programs: map[int]ProgramResult{}}
	first := map[int]int{} // program index in cfg -> the index of its first load
	for i, l := range progs {
		if p.isFloor(i) {
			continue
		}
		pr := &res.Programs[i]
		if from, ok := known.of(p.programOf[i], len(pr.Cases)); ok {
			copyCounts(pr, from)
			res.Counts.programs[p.programOf[i]] = from
			continue
		}
		if j, ok := first[p.programOf[i]]; ok {
			// Another placement of a program counted already.
			copyCounts(pr, res.Programs[j])
			continue
		}
		first[p.programOf[i]] = i
		paths, rw, err := p.count(ctx, l, p.updates[i], pr.Cases)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		for c := range pr.Cases {
			cr := &pr.Cases[c]
			if err != nil {
				cr.NoCount = firstLine(err.Error())
				continue
			}
			cr.FirstInstructions, cr.LaterInstructions = rw.Total(paths.first[c]), rw.Total(paths.later[c])
			cr.LaterReturn, cr.FlowReplay = paths.laterReturns[c], paths.replays[c]
			timed := paths.timed(c, cr.State())
			cr.Instructions = rw.Total(timed)
			if p.cfg.KeepBlocks {
				cr.Blocks = timed
			}
		}
		if err == nil && p.cfg.KeepBlocks {
			pr.Counted = countedOf(l, rw)
		}
		res.Counts.programs[p.programOf[i]] = *pr
	}
	return nil
}

// Counts are the instruction counts of a run's programs, by their index
// in Config.Programs, as their first loads' results hold them.
type Counts struct {
	programs map[int]ProgramResult
}

// of is program's counted result, where c knows it for as many cases.
func (c *Counts) of(program, cases int) (ProgramResult, bool) {
	if c == nil {
		return ProgramResult{}, false
	}
	pr, ok := c.programs[program]
	return pr, ok && len(pr.Cases) == cases
}

// copyCounts gives to what from's cases were counted: another load of
// the same program runs the same instructions.
func copyCounts(to *ProgramResult, from ProgramResult) {
	for c := range to.Cases {
		f, t := &from.Cases[c], &to.Cases[c]
		t.Instructions, t.NoCount, t.Blocks = f.Instructions, f.NoCount, f.Blocks
		t.FirstInstructions, t.LaterInstructions, t.LaterReturn = f.FirstInstructions, f.LaterInstructions, f.LaterReturn
		t.FlowReplay = f.FlowReplay
	}
	to.Counted = from.Counted
}

// pathCounts are, for each case, how many times each basic block of the
// rewrite ran in its first run and in a later one, and the later one's
// return.
type pathCounts struct {
	first, later [][]uint64
	laterReturns []uint32
	replays      []*FlowReplay // of flows=N cases, nil for others
}

// timed is the block counts of case c's timed path: its first run's in
// the first state, a later run's otherwise.
func (pc pathCounts) timed(c int, state string) []uint64 {
	if state == packets.StateFirst {
		return pc.first[c]
	}
	return pc.later[c]
}

// count runs every case through an instrumented copy of l's program
// (runCounted).
func (p *plan) count(ctx context.Context, l *program, updates []object.Update, cases []CaseResult) (pathCounts, insncount.Rewrite, error) {
	if l.Object.Prog != nil {
		return pathCounts{}, insncount.Rewrite{}, errors.New("not counted: a program its caller loaded has no instructions to instrument; give its CollectionSpec")
	}
	// The maps no program can write the copy shares, filled already.
	counted, err := orAbandon(ctx, func() (*insncount.Program, error) {
		return loadCounted(l.Spec, l.Info.Name, l.SharedMaps())
	}, (*insncount.Program).Close)
	if err != nil {
		return pathCounts{}, insncount.Rewrite{}, fmt.Errorf("not counted: %w", err)
	}
	updates = l.WithoutShared(updates)
	defer counted.Close()
	first, later, laterReturns, replays, err := runCounted(ctx, l, counted, updates, cases)
	return pathCounts{first: first, later: later, laterReturns: laterReturns, replays: replays}, counted.Rewrite, err
}

// laterRuns is how many runs of a case, after its first, warm up the
// maps before the run counted as a later one: enough for a flow table's
// insert and a counter's first steps, not for a rate limiter's budget.
const laterRuns = 8

// runCounted runs every case through counted, the instrumented copy of
// l's program, after filling its maps as l's were: once from the maps as
// loaded, then laterRuns times more and once counted again, and puts its
// maps back before the next case, as the checking runs do. It returns
// each case's block counts of the first run and of the later one, and the
// later one's return.
func runCounted(ctx context.Context, l *program, counted *insncount.Program, updates []object.Update, cases []CaseResult) (first, later [][]uint64, laterReturns []uint32, replays []*FlowReplay, err error) {
	twin := object.FromCollection(l.Object, l.Info, l.Spec, counted.Collection, counted.Program)
	defer twin.FreeCopies()
	if err := twin.ApplyContext(ctx, updates); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("not counted: the instrumented copy's maps: %w", err)
	}
	first, later, laterReturns = make([][]uint64, len(cases)), make([][]uint64, len(cases)), make([]uint32, len(cases))
	replays = make([]*FlowReplay, len(cases))
	for i, c := range cases {
		fail := func(err error) ([][]uint64, [][]uint64, []uint32, []*FlowReplay, error) {
			return nil, nil, nil, nil, fmt.Errorf("not counted: case %s: %w", c.Case.Name, err)
		}
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		// As before each checking run: queues and stacks emptied.
		before, err := twin.SnapshotContext(ctx)
		if err != nil {
			return fail(err)
		}
		if err := counted.Reset(); err != nil {
			return fail(err)
		}
		ret, out, _, err := twin.RunOnce(c.Case.Frame, c.ctxIn)
		if err != nil {
			return fail(fmt.Errorf("the instrumented copy: %w", err))
		}
		want := c.Output
		if want == nil {
			want = c.Case.Frame
		}
		switch {
		case ret != c.Return:
			return fail(fmt.Errorf("the instrumented copy returned %s, the program %s",
				object.ActionName(l.Info.Type, ret), object.ActionName(l.Info.Type, c.Return)))
		case object.FrameChanged(l.Info.Type, want, out):
			return fail(errors.New("the instrumented copy left another frame than the program"))
		}
		if first[i], err = counted.Counts(nil); err != nil {
			return fail(err)
		}
		for range laterRuns {
			if _, _, _, err := twin.RunOnce(c.Case.Frame, c.ctxIn); err != nil {
				return fail(fmt.Errorf("the instrumented copy: %w", err))
			}
		}
		if err := counted.Reset(); err != nil {
			return fail(err)
		}
		if laterReturns[i], _, _, err = twin.RunOnce(c.Case.Frame, c.ctxIn); err != nil {
			return fail(fmt.Errorf("the instrumented copy: %w", err))
		}
		if later[i], err = counted.Counts(nil); err != nil {
			return fail(err)
		}
		if err := twin.PutBack(before); err != nil {
			return fail(err)
		}
		if c.flows != nil {
			if replays[i], err = replayFlows(ctx, twin, counted, c, first[i], later[i]); err != nil {
				return fail(err)
			}
		}
	}
	return first, later, laterReturns, replays, nil
}

// Counted is what a program's block counts (CaseResult.Blocks) count, kept
// with Config.KeepBlocks: for profiles that attribute them to source lines.
type Counted struct {
	// Instructions are the program as loaded, with its line and function
	// metadata; Blocks index them.
	Instructions asm.Instructions
	Blocks       []Block
	// JIT is the kernel's record of the loaded program (its machine code
	// and the machine address of each line record), and JITLines the line
	// records, read while the program was loaded (they name its BTF by
	// an ID that dies with it); nil when the kernel did not give them,
	// and JITError why.
	JIT      *ebpf.ProgramInfo
	JITLines btf.LineOffsets
	JITError string
	// Verified is how often the verifier processed each instruction, by
	// raw offset, from a load with its log at level 2; nil, and
	// VerifiedNote why, where it was not read.
	Verified     map[int]uint64
	VerifiedNote string
}

// countedOf keeps l's instructions, the blocks of rw, and what the kernel
// says of the loaded program.
func countedOf(l *program, rw insncount.Rewrite) *Counted {
	c := &Counted{Instructions: l.Spec.Programs[l.Info.Name].Instructions, Blocks: blocksOf(rw.Blocks)}
	if v := l.Verifier; v != nil && v.Processed > object.MaxWalkProcessed {
		c.VerifiedNote = fmt.Sprintf("the verifier processed %d instructions, past the %d whose log at level 2 is read (tens of MB)", v.Processed, object.MaxWalkProcessed)
	} else if walked, err := l.VerifierWalk(); err != nil {
		c.VerifiedNote = err.Error()
	} else {
		c.Verified = walked
	}
	info, err := l.Prog.Info()
	if err != nil {
		c.JITError = fmt.Sprintf("the kernel's program info: %v", err)
		return c
	}
	if c.JITLines, err = info.LineInfos(); err != nil {
		c.JITError = fmt.Sprintf("the kernel's line info: %v", err)
		return c
	}
	c.JIT = info
	return c
}

// firstLine is a reason's first line: a verifier's log follows it.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
