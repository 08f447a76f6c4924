package testrun

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/insncount"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

// Counter is a program's instrumented copy (package insncount), loaded as
// Run loads the program it counts: with the load options and map-init
// applied, the objects map-init names loaded beside it and its maps
// filled. It runs one frame at a time and gives each basic block's count:
// for a search that runs many thousand frames a second.
type Counter struct {
	Info ProgramInfo
	// Instructions are the program's before instrumenting: Blocks index
	// them.
	Instructions asm.Instructions
	// Blocks are the program's basic blocks, each counted apart, in the
	// order of Run's counts.
	Blocks []Block
	// Notes say what xdpmicro changed of the object of its own accord.
	Notes []string
	// Contexts are the context of each case NewCounter was given, as the
	// program type lays it out; nil for a case without one.
	Contexts [][]byte

	twin      *object.Loaded
	prog      *insncount.Program
	linkLayer bool // frames behind a copy of their Ethernet header
	counts    []uint64
	frame     []byte
}

// ErrFrameRefused: the kernel would not run the program on a frame (too
// short for the program type, say).
var ErrFrameRefused = errors.New("frame refused by the kernel")

// UncountedError is a program whose instrumented copy could not be
// loaded: the verifier refused it, or insncount cannot rewrite it.
type UncountedError struct {
	Program string
	Err     error
}

func (e *UncountedError) Error() string {
	return fmt.Sprintf("%s: its instructions cannot be counted: %v", e.Program, e.Err)
}

func (e *UncountedError) Unwrap() error { return e.Err }

// NewCounter checks p, the load options, the map-init and each case's
// context against the object as Run does, then the privileges, and loads
// p's instrumented copy: bad input is refused before anything is loaded.
// The caller closes the counter.
func NewCounter(p Program, cases []packets.Case, mapInit *MapInit, load LoadOptions) (*Counter, error) {
	settings, err := object.NewSettings(object.LoadOptions(load), mapInit.internal())
	if err != nil {
		return nil, err
	}
	chosen, err := object.Choose(object.Object(p.Object), p.Program, settings)
	if err != nil {
		return nil, err
	}
	updates, others, err := resolveMapInit(mapInit.internal(), chosen, settings)
	if err != nil {
		return nil, err
	}
	c := &Counter{Info: ProgramInfo(chosen.Info), Instructions: chosen.Spec.Programs[chosen.Info.Name].Instructions,
		Notes: chosen.Notes, linkLayer: settings.LinkLayer()}
	for _, k := range cases {
		ctx, err := caseContext(chosen.Info.Type, k)
		if err != nil {
			return nil, err
		}
		c.Contexts = append(c.Contexts, ctx)
	}
	if err := host.CheckPrivileges(); err != nil {
		return nil, err
	}
	if c.prog, err = loadCounted(chosen.Spec, chosen.Info.Name, nil); err != nil {
		return nil, &UncountedError{Program: chosen.Info.Name, Err: err}
	}
	c.Blocks = blocksOf(c.prog.Rewrite.Blocks)
	c.twin = object.FromCollection(chosen.Object, chosen.Info, chosen.Spec, c.prog.Collection, c.prog.Program)
	if err := c.twin.LoadOthers(others); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.twin.Apply(updates); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close frees the copy, its maps and the objects loaded beside it.
func (c *Counter) Close() { c.twin.Close() }

// Run runs frame once through the copy, with the context ctx if not nil,
// and returns the action and each block's count, valid until the next
// run. A frame the kernel refuses is ErrFrameRefused.
func (c *Counter) Run(frame, ctx []byte) (uint32, []uint64, error) {
	if c.linkLayer {
		c.frame = object.AppendBehindLinkHeader(c.frame[:0], frame)
		frame = c.frame
	}
	if err := c.prog.Reset(); err != nil {
		return 0, nil, err
	}
	// Repeat 1: XDP then does not swap the dispatcher, and the call costs
	// a microsecond or two.
	ret, _, _, _, err := callRestarting(c.prog.Program.FD(), frame, ctx, 1)
	switch {
	case errors.Is(err, unix.EINVAL):
		return 0, nil, ErrFrameRefused
	case err != nil:
		return 0, nil, c.twin.RunError(err, frame, ctx)
	}
	if c.counts, err = c.prog.Counts(c.counts[:0]); err != nil {
		return 0, nil, err
	}
	return ret, c.counts, nil
}

// Total is the number of the program's instructions a run executed,
// given Run's counts of each block.
func (c *Counter) Total(counts []uint64) uint64 { return c.prog.Rewrite.Total(counts) }

// Maps are the copy's maps, by name.
func (c *Counter) Maps() map[string]*ebpf.Map { return c.twin.Maps() }

// resolveMapInit is what mi (nil: nothing) puts into the chosen program's
// maps, and the objects it loads beside it.
func resolveMapInit(mi *object.MapInit, c object.Chosen, s object.Settings) ([]object.Update, []object.Other, error) {
	if mi == nil {
		return nil, nil, nil
	}
	return mi.Resolve(c.Spec, c.Programs, s)
}

// caseContext is k's context as the program type lays it out, nil
// without one; a context the type cannot take is bad input.
func caseContext(programType ebpf.ProgramType, k packets.Case) ([]byte, error) {
	ctx, err := object.ContextIn(programType, k)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", k.Name, err)
	}
	return ctx, nil
}
