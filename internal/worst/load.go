package worst

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/insncount"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/internal/progrun"
)

// counted is the instrumented copy of the program the search runs, with
// its maps filled as the program's would be, and what it takes to run a
// frame through it.
type counted struct {
	twin    *object.Loaded
	prog    *insncount.Program
	info    object.ProgramInfo
	insns   asm.Instructions // the original program's, which the blocks index
	notes   []string
	ctxs    [][]byte // each seed's context, as the program type lays it out
	link    bool     // socket filters see frames behind a copy of their Ethernet header
	fd      int
	counts  []uint64
	linkBuf []byte
}

// load checks the options against the object, and loads the instrumented
// copy of the program: bad input is refused before anything is loaded.
func load(o Options) (*counted, error) {
	settings, err := object.NewSettings(o.Load, o.MapInit)
	if err != nil {
		return nil, err
	}
	chosen, err := object.Choose(o.Object, o.Program, settings)
	if err != nil {
		return nil, err
	}
	var updates []object.Update
	var others []object.Other
	if o.MapInit != nil {
		if updates, others, err = o.MapInit.Resolve(chosen.Spec, chosen.Programs, settings); err != nil {
			return nil, err
		}
	}
	c := &counted{info: chosen.Info, insns: chosen.Spec.Programs[chosen.Info.Name].Instructions, notes: chosen.Notes, link: settings.LinkLayer()}
	for _, seed := range o.Seeds {
		ctx, err := object.ContextIn(chosen.Info.Type, seed)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", seed.Name, err)
		}
		c.ctxs = append(c.ctxs, ctx)
	}
	if err := host.CheckPrivileges(); err != nil {
		return nil, err
	}
	if c.prog, err = insncount.Load(chosen.Spec, chosen.Info.Name); err != nil {
		return nil, fmt.Errorf("%s cannot be searched: its instructions cannot be counted: %w", chosen.Info.Name, err)
	}
	c.twin = object.FromCollection(chosen.Object, chosen.Info, chosen.Spec, c.prog.Collection, c.prog.Program)
	if err := c.twin.LoadOthers(others); err != nil {
		c.close()
		return nil, err
	}
	if err := c.twin.Apply(updates); err != nil {
		c.close()
		return nil, err
	}
	c.fd = c.prog.Program.FD()
	return c, nil
}

// close frees the copy, its maps and the objects loaded beside it.
func (c *counted) close() { c.twin.Close() }

// errRefused: the kernel would not run the program on a frame (too short
// for the program type, say); the search goes on without it.
var errRefused = errors.New("frame refused by the kernel")

// run runs frame once through the copy and returns the action and each
// block's count, valid until the next run.
func (c *counted) run(frame, ctx []byte) (uint32, []uint64, error) {
	if c.link && len(frame) >= 14 {
		c.linkBuf = append(append(c.linkBuf[:0], frame[:14]...), frame...)
		frame = c.linkBuf
	}
	if err := c.prog.Reset(); err != nil {
		return 0, nil, err
	}
	var ret uint32
	var err error
	for {
		// Repeat 1: XDP then does not swap the dispatcher, and the call
		// costs a microsecond or two.
		if ret, _, err = progrun.Run(c.fd, frame, ctx, 1); !errors.Is(err, unix.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, unix.EINVAL):
		return 0, nil, errRefused
	case err != nil:
		return 0, nil, c.twin.RunError(err, frame, ctx)
	}
	if c.counts, err = c.prog.Counts(c.counts[:0]); err != nil {
		return 0, nil, err
	}
	return ret, c.counts, nil
}

// maps are the copy's maps, for their keys.
func (c *counted) maps() map[string]*ebpf.Map { return c.twin.Maps() }
