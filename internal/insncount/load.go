package insncount

import (
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// Program is an instrumented copy of a program, loaded with its own maps.
type Program struct {
	// Collection holds the copy and its maps, the counter among them.
	Collection *ebpf.Collection
	Program    *ebpf.Program
	Rewrite    Rewrite
	counter    *ebpf.Map
	// memory maps the counters into this process, so that reading and
	// clearing them takes no system call: a search runs the copy many
	// thousand times a second.
	memory *ebpf.Memory
	buf    []byte
}

// Load instruments the named program of spec and loads the copy with
// copies of its maps. spec is not changed. A copy the verifier rejects
// comes back as its error: the caller goes on without counts.
func Load(spec *ebpf.CollectionSpec, program string) (*Program, error) {
	return load(spec, program, options{})
}

// LoadSharing is Load with the maps of shared, by name, taken in place of
// copies: maps no program can write (BPF_F_RDONLY_PROG), which a copy
// would only duplicate in kernel memory (katran's 256 MiB ring).
func LoadSharing(spec *ebpf.CollectionSpec, program string, shared map[string]*ebpf.Map) (*Program, error) {
	return load(spec, program, options{shared: shared})
}

func load(spec *ebpf.CollectionSpec, program string, opt options) (*Program, error) {
	cs, rw, err := instrumentSpec(spec, program, opt)
	if errors.Is(err, errNeedStackDepths) {
		if opt.depths, err = stackDepths(spec, program, opt.shared); err != nil {
			return nil, err
		}
		cs, rw, err = instrumentSpec(spec, program, opt)
	}
	if err != nil {
		return nil, err
	}
	// At BPF_LOG_STATS, a refusal's log is its reason and statistics:
	// cilium/ebpf's default would load again for the whole log, growing
	// it up to 1 GiB.
	coll, err := ebpf.NewCollectionWithOptions(cs, ebpf.CollectionOptions{
		Programs:        ebpf.ProgramOptions{LogLevel: ebpf.LogLevelStats},
		MapReplacements: opt.shared,
	})
	var ve *ebpf.VerifierError
	switch {
	case errors.As(err, &ve):
		return nil, fmt.Errorf("the verifier rejected the instrumented copy: %w", err)
	case err != nil:
		return nil, fmt.Errorf("load the instrumented copy: %w", err)
	}
	p := &Program{Collection: coll, Program: coll.Programs[program], Rewrite: rw, counter: coll.Maps[CounterMap]}
	p.buf = make([]byte, 8*len(rw.Blocks))
	if p.memory, err = p.counter.Memory(); err != nil {
		coll.Close()
		return nil, fmt.Errorf("map the instruction counters: %w", err)
	}
	return p, nil
}

// instrumentSpec copies spec with only the named program, instruments it
// and adds the counter map.
func instrumentSpec(spec *ebpf.CollectionSpec, program string, opt options) (*ebpf.CollectionSpec, Rewrite, error) {
	ps := spec.Programs[program]
	if ps == nil {
		return nil, Rewrite{}, fmt.Errorf("%w: no program %q", ErrUnsupported, program)
	}
	if _, ok := spec.Maps[CounterMap]; ok {
		return nil, Rewrite{}, fmt.Errorf("%w: the object already has a map %s", ErrUnsupported, CounterMap)
	}
	rw, err := instrument(ps.Instructions, CounterMap, opt)
	if err != nil {
		return nil, Rewrite{}, err
	}
	cs := spec.Copy()
	cs.Programs = map[string]*ebpf.ProgramSpec{program: cs.Programs[program]}
	cs.Programs[program].Instructions = rw.Insns
	keepTailCallTargets(spec, cs)
	for _, m := range cs.Maps {
		// The copy's maps are its own: a pinned map would be shared with
		// the program measured, or with whoever else pinned it.
		m.Pinning = ebpf.PinNone
	}
	cs.Maps[CounterMap] = &ebpf.MapSpec{
		Name: CounterMap, Type: ebpf.Array, KeySize: 4,
		ValueSize: uint32(8 * len(rw.Blocks)), MaxEntries: 1,
		Flags: unix.BPF_F_MMAPABLE,
	}
	return cs, rw, nil
}

// Count returns the instructions executed since the last Reset.
func (p *Program) Count() (uint64, error) {
	counts, err := p.Counts(nil)
	if err != nil {
		return 0, err
	}
	return p.Rewrite.Total(counts), nil
}

// Counts returns how many times each block of Rewrite.Blocks ran since the
// last Reset, appended to dst.
func (p *Program) Counts(dst []uint64) ([]uint64, error) {
	if _, err := p.memory.ReadAt(p.buf, 0); err != nil {
		return nil, fmt.Errorf("read the instruction counters: %w", err)
	}
	for i := range p.Rewrite.Blocks {
		dst = append(dst, binary.NativeEndian.Uint64(p.buf[8*i:]))
	}
	return dst, nil
}

// Reset sets every count to zero.
func (p *Program) Reset() error {
	clear(p.buf)
	if _, err := p.memory.WriteAt(p.buf, 0); err != nil {
		return fmt.Errorf("reset the instruction counters: %w", err)
	}
	return nil
}

// Close frees the copy and its maps.
func (p *Program) Close() { p.Collection.Close() }

// StackDepths loads the named program of spec unchanged and returns the
// stack depth the verifier found for each of its functions, in the order
// of their first instructions.
func StackDepths(spec *ebpf.CollectionSpec, program string) ([]int, error) {
	return stackDepths(spec, program, nil)
}

func stackDepths(spec *ebpf.CollectionSpec, program string, shared map[string]*ebpf.Map) ([]int, error) {
	cs := spec.Copy()
	cs.Programs = map[string]*ebpf.ProgramSpec{program: cs.Programs[program]}
	coll, err := ebpf.NewCollectionWithOptions(cs, ebpf.CollectionOptions{
		Programs:        ebpf.ProgramOptions{LogLevel: ebpf.LogLevelStats},
		MapReplacements: shared,
	})
	if err != nil {
		return nil, fmt.Errorf("load %s to learn its stack depths: %w", program, err)
	}
	defer coll.Close()
	return ParseStackDepths(coll.Programs[program].VerifierLog)
}

var stackDepthLine = regexp.MustCompile(`(?m)^stack depth ([0-9+]+)\s*$`)

// ParseStackDepths reads the verifier's "stack depth 8+0+16" line: a
// depth per function, in the order of their first instructions.
func ParseStackDepths(log string) ([]int, error) {
	m := stackDepthLine.FindStringSubmatch(log)
	if m == nil {
		return nil, fmt.Errorf("%w: the verifier's log has no stack depths", ErrUnsupported)
	}
	var depths []int
	for _, f := range strings.Split(m[1], "+") {
		d, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%w: the verifier's stack depths %q: %w", ErrUnsupported, m[1], err)
		}
		depths = append(depths, d)
	}
	return depths, nil
}
