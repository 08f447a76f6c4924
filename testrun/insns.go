package testrun

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/xdpmicro/xdpmicro/internal/insncount"
	"github.com/xdpmicro/xdpmicro/internal/object"
)

// loadCounted loads an instrumented copy; tests replace it.
var loadCounted = insncount.Load

// countInstructions sets, for every case of every program but the floor,
// the number of BPF instructions its checking run executed, counted on an
// instrumented copy of the program (package insncount) loaded beside the
// one measured, run once per case and closed. The copy has maps of its own,
// filled as the program's were and run through the cases in the same order,
// so that it takes the path the checking run took. A program whose copy
// cannot be loaded, or strays from that path, gets the reason instead: it
// is measured by time alone.
func (p *plan) countInstructions(progs []*program, res *Result) {
	first := map[int]int{} // program index in cfg -> the index of its first load
	for i, l := range progs {
		if p.isFloor(i) {
			continue
		}
		pr := &res.Programs[i]
		if j, ok := first[p.programOf[i]]; ok {
			// Another placement of a program counted already.
			for c := range pr.Cases {
				pr.Cases[c].Instructions = res.Programs[j].Cases[c].Instructions
				pr.Cases[c].NoCount = res.Programs[j].Cases[c].NoCount
				pr.Cases[c].Blocks = res.Programs[j].Cases[c].Blocks
			}
			pr.Counted = res.Programs[j].Counted
			continue
		}
		first[p.programOf[i]] = i
		blocks, rw, err := p.count(l, p.updates[i], pr.Cases)
		for c := range pr.Cases {
			if err != nil {
				pr.Cases[c].NoCount = firstLine(err.Error())
				continue
			}
			pr.Cases[c].Instructions = rw.Total(blocks[c])
			if p.cfg.Profile {
				pr.Cases[c].Blocks = blocks[c]
			}
		}
		if err == nil && p.cfg.Profile {
			pr.Counted = countedOf(l, rw)
		}
	}
}

// count runs every case once through an instrumented copy of l's program
// and returns, for each case, how many times each basic block of the
// rewrite ran.
func (p *plan) count(l *program, updates []object.Update, cases []CaseResult) ([][]uint64, insncount.Rewrite, error) {
	if l.Object.Prog != nil {
		return nil, insncount.Rewrite{}, errors.New("not counted: a program its caller loaded has no instructions to instrument; give its CollectionSpec")
	}
	counted, err := loadCounted(l.Spec, l.Info.Name)
	if err != nil {
		return nil, insncount.Rewrite{}, fmt.Errorf("not counted: %w", err)
	}
	defer counted.Close()
	counts, err := runCounted(l, counted, updates, cases)
	return counts, counted.Rewrite, err
}

// runCounted runs every case once through counted, the instrumented copy
// of l's program, after filling its maps as l's were.
func runCounted(l *program, counted *insncount.Program, updates []object.Update, cases []CaseResult) ([][]uint64, error) {
	twin := object.FromCollection(l.Object, l.Info, l.Spec, counted.Collection, counted.Program)
	if err := twin.Apply(updates); err != nil {
		return nil, fmt.Errorf("not counted: the instrumented copy's maps: %w", err)
	}
	counts := make([][]uint64, len(cases))
	for i, c := range cases {
		// As before each checking run: queues and stacks emptied.
		if _, err := twin.Snapshot(); err != nil {
			return nil, fmt.Errorf("not counted: case %s: %w", c.Case.Name, err)
		}
		if err := counted.Reset(); err != nil {
			return nil, fmt.Errorf("not counted: %w", err)
		}
		ret, out, _, err := twin.RunOnce(c.Case.Frame, c.ctxIn)
		if err != nil {
			return nil, fmt.Errorf("not counted: case %s: the instrumented copy: %w", c.Case.Name, err)
		}
		want := c.Output
		if want == nil {
			want = c.Case.Frame
		}
		switch {
		case ret != c.Return:
			return nil, fmt.Errorf("not counted: case %s: the instrumented copy returned %s, the program %s",
				c.Case.Name, object.ActionName(l.Info.Type, ret), object.ActionName(l.Info.Type, c.Return))
		case object.FrameChanged(l.Info.Type, want, out):
			return nil, fmt.Errorf("not counted: case %s: the instrumented copy left another frame than the program", c.Case.Name)
		}
		if counts[i], err = counted.Counts(nil); err != nil {
			return nil, fmt.Errorf("not counted: %w", err)
		}
	}
	return counts, nil
}

// Counted is what a program's block counts (CaseResult.Blocks) count, kept
// with Config.Profile: for profiles that attribute them to source lines.
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
}

// countedOf keeps l's instructions, the blocks of rw, and what the kernel
// says of the loaded program.
func countedOf(l *program, rw insncount.Rewrite) *Counted {
	c := &Counted{Instructions: l.Spec.Programs[l.Info.Name].Instructions, Blocks: blocksOf(rw.Blocks)}
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
