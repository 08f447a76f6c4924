package object

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/kmem"
)

// Loaded is a program in the kernel, with the maps it uses.
type Loaded struct {
	Object Object
	Info   ProgramInfo
	Spec   *ebpf.CollectionSpec // BTF of the maps, to show their contents
	Prog   *ebpf.Program
	coll   *ebpf.Collection
	// others are objects loaded beside this one, whose programs its
	// program arrays hold (others.go).
	others []*loadedOther
	// unread are the maps, by name, that user space failed to read in
	// the checking run, and why: their changes are not shown.
	unread map[string]string
	// Verifier is what the kernel told of this load (verifier.go); nil
	// for a program someone else loaded.
	Verifier *VerifierStats
	// shadows hold the latest snapshot of each large array (mapped.go).
	shadows map[string]*shadow
	// shared are the maps this load shares with others of its program
	// (share.go); nil: none.
	shared *sharedMaps
}

// Chosen is a program picked from an object, ready to load.
type Chosen struct {
	Object Object
	Info   ProgramInfo
	Spec   *ebpf.CollectionSpec
	// Programs are all the object's programs, for map-init to name.
	Programs map[string]*ebpf.ProgramSpec
	// Notes say what xdpmicro changed of the object of its own accord.
	Notes []string
	// shared are the maps its loads share (share.go); nil: none.
	shared *sharedMaps
}

// Load puts the chosen program of obj and its maps into the kernel.
func Load(obj Object, program string) (*Loaded, error) {
	c, err := Choose(obj, program, Settings{})
	if err != nil {
		return nil, err
	}
	return c.Load()
}

// Choose picks the program named program of obj (the only measurable one
// when the name is empty) and prepares its spec as the settings s ask; it
// loads nothing.
func Choose(obj Object, program string, s Settings) (Chosen, error) {
	spec, info, all, err := obj.choose(program, s)
	if err != nil {
		return Chosen{}, err
	}
	notes, err := s.prepare(spec, obj.Name)
	if err != nil {
		return Chosen{}, err
	}
	c := Chosen{Object: obj, Info: info, Spec: spec, Programs: all, shared: &sharedMaps{}}
	if obj.Prog == nil {
		// Before the probe of large arrays loads it once.
		if err := s.checkOneLoad(c); err != nil {
			return Chosen{}, err
		}
	}
	c.Notes = append(notes, markLargeArrays(spec)...)
	return c, nil
}

// ChooseByType picks the program of obj that has the given type.
func ChooseByType(obj Object, programType ebpf.ProgramType) (Chosen, error) {
	infos, err := obj.Programs()
	if err != nil {
		return Chosen{}, err
	}
	for _, p := range infos {
		if p.Type == programType {
			return Choose(obj, p.Name, Settings{})
		}
	}
	return Chosen{}, fmt.Errorf("%w: %s has no %s program", ErrNoProgram, obj.Name, programType)
}

// Load puts the program and its maps into the kernel. Nothing is pinned or
// attached: closing the file descriptors frees it all.
func (c Chosen) Load() (*Loaded, error) {
	obj, info, spec := c.Object, c.Info, c.Spec
	if obj.Prog != nil {
		return c.loadPreloaded()
	}
	// Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK; newer ones
	// ignore it and this is a no-op.
	if err := rlimit.RemoveMemlock(); err != nil && !errors.Is(err, unix.EPERM) {
		return nil, fmt.Errorf("remove memlock limit: %w", err)
	}
	kmem.AwaitFreed() // the maps of loads closed before (internal/kmem)
	// The verifier's statistics come with the very load that is
	// measured: they cost a log buffer, and no second load.
	coll, err := ebpf.NewCollectionWithOptions(spec, ebpf.CollectionOptions{
		Programs:        ebpf.ProgramOptions{LogLevel: ebpf.LogLevelStats},
		MapReplacements: c.shared.replacements(),
	})
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) {
		// A log of statistics alone holds not the path the verifier
		// refused: load again for the whole log, where it is bounded
		// (verifier.go).
		if opts, ok := wholeLog(ve); ok {
			again, errAgain := ebpf.NewCollectionWithOptions(spec, ebpf.CollectionOptions{
				Programs: opts, MapReplacements: c.shared.replacements(),
			})
			if errAgain == nil {
				again.Close()
			} else {
				err = errAgain
			}
		}
	}
	if err != nil {
		return nil, loadError(obj, info, spec, firstMapError(spec, err))
	}
	c.shared.adopt(spec, coll)
	l := &Loaded{Object: obj, Info: info, Spec: spec, coll: coll, Prog: coll.Programs[info.Name], shared: c.shared}
	if s, ok := verifierStats(l.Prog); ok {
		l.Verifier = &s
	}
	return l, nil
}

// FromCollection is a program already in the kernel, prog of coll, as if
// loaded from obj: a copy of a program xdpmicro changed before loading
// (an instrumented copy, a restorer) is run as the program is.
func FromCollection(obj Object, info ProgramInfo, spec *ebpf.CollectionSpec, coll *ebpf.Collection, prog *ebpf.Program) *Loaded {
	return &Loaded{Object: obj, Info: info, Spec: spec, coll: coll, Prog: prog}
}

func loadError(obj Object, info ProgramInfo, spec *ebpf.CollectionSpec, err error) error {
	var ve *ebpf.VerifierError
	switch {
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("%w: loading %s needs CAP_BPF and CAP_NET_ADMIN: %s", host.ErrPermission, info.Name, host.PermissionHint)
	case errors.As(err, &ve) && len(ve.Log) > 0 && readsEgressAsPlainXDP(info, spec, ve):
		return fmt.Errorf("%w: %s in %s reads ctx->egress_ifindex, which only a devmap program may, so it cannot run as plain XDP, "+
			"and the kernel test-runs no devmap program: %w", ErrVerifier, info.Name, obj.Name, err)
	case errors.As(err, &ve) && len(ve.Log) > 0:
		return fmt.Errorf("%w: %s in %s: %w", ErrVerifier, info.Name, obj.Name, err)
	}
	return fmt.Errorf("load %s from %s: %w", info.Name, obj.Name, err)
}

// readsEgressAsPlainXDP says whether the verifier refused a devmap
// program loaded as plain XDP for reading ctx->egress_ifindex: the log
// names only the context's offset.
func readsEgressAsPlainXDP(info ProgramInfo, spec *ebpf.CollectionSpec, ve *ebpf.VerifierError) bool {
	p := spec.Programs[info.Name]
	if info.ForMap() != "devmap" || p == nil || p.AttachType != ebpf.AttachXDP {
		return false
	}
	refusal := fmt.Sprintf("invalid bpf_context access off=%d ", xdpEgressIfindex)
	return slices.ContainsFunc(ve.Log, func(line string) bool { return strings.Contains(line, refusal) })
}

// Close frees the program, its maps and the objects loaded beside it.
func (l *Loaded) Close() {
	l.FreeCopies()
	kmem.Linger(l.shared.own(l.coll.Maps)) // the shared, as the last load closes (share.go)
	l.coll.Close()
	l.shared.release()
	l.shared = nil // a second Close releases nothing
	for _, o := range l.others {
		o.coll.Close()
	}
}

// RunOnce runs a frame once, as a packet would be, with the context ctx
// if not nil, and returns the action, the frame as the program left it,
// and the context as the kernel copied it back (nil without ctx).
func (l *Loaded) RunOnce(frame, ctx []byte) (ret uint32, out, ctxOut []byte, err error) {
	return l.RunTimes(frame, ctx, 1)
}

// RunTimes is RunOnce for a call of repeat runs: the action and frame are
// the last run's.
func (l *Loaded) RunTimes(frame, ctx []byte, repeat uint32) (ret uint32, out, ctxOut []byte, err error) {
	// Room for programs that grow the packet with bpf_xdp_adjust_tail.
	opts := &ebpf.RunOptions{Data: frame, DataOut: make([]byte, len(frame)+4096), Repeat: repeat}
	if ctx != nil {
		ctxOut = make([]byte, len(ctx))
		opts.Context, opts.ContextOut = ctx, ctxOut
	}
	ret, err = l.Prog.Run(opts)
	if err != nil {
		return 0, nil, nil, l.RunError(err, frame, ctx)
	}
	return ret, opts.DataOut, ctxOut, nil
}

// RunError says in the user's words why BPF_PROG_TEST_RUN refused to run
// the program on frame with the context ctx: a context the kernel would
// not take is the user's input (ErrConfig), missing privileges are
// host.ErrPermission.
func (l *Loaded) RunError(err error, frame, ctx []byte) error {
	switch {
	case ctx != nil && (errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENODEV)):
		// ContextIn checks what it knows the kernel refuses; an older
		// kernel takes fewer fields.
		return fmt.Errorf("%w: the kernel refused to run the %s program with this context on this %d-byte frame: %w",
			ErrConfig, l.Info.Type, len(frame), err)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("%w: BPF_PROG_TEST_RUN needs CAP_BPF and CAP_NET_ADMIN: %s", host.ErrPermission, host.PermissionHint)
	case errors.Is(err, unix.EINVAL):
		return fmt.Errorf("the kernel refused to run the %s program on this %d-byte frame (too short or too long for the type?): %w",
			l.Info.Type, len(frame), err)
	}
	return fmt.Errorf("test run: %w", err)
}
