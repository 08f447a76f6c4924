package testrun

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/host"
)

// loaded is a program in the kernel, with the maps it uses.
type loaded struct {
	object Object
	info   ProgramInfo
	spec   *ebpf.CollectionSpec // BTF of the maps, to show their contents
	coll   *ebpf.Collection
	prog   *ebpf.Program
	// statsTimer takes samples from the program's run-time statistics.
	statsTimer bool
	// others are objects loaded beside this one, whose programs its
	// program arrays hold (others.go).
	others []*loadedOther
	// unread are the maps, by name, that user space failed to read in
	// the checking run, and why: their changes are not shown.
	unread map[string]string
}

// chosen is a program picked from an object, ready to load.
type chosen struct {
	object Object
	info   ProgramInfo
	spec   *ebpf.CollectionSpec
	// programs are all the object's programs, for map-init to name.
	programs map[string]*ebpf.ProgramSpec
	// notes say what xdpmicro changed of the object of its own accord.
	notes []string
}

// load puts the chosen program of obj and its maps into the kernel.
func load(obj Object, program string) (*loaded, error) {
	c, err := choose(obj, program, loadSettings{})
	if err != nil {
		return nil, err
	}
	return c.load()
}

func choose(obj Object, program string, s loadSettings) (chosen, error) {
	spec, info, all, err := obj.choose(program, s)
	if err != nil {
		return chosen{}, err
	}
	notes, err := s.prepare(spec, obj.Name)
	if err != nil {
		return chosen{}, err
	}
	return chosen{obj, info, spec, all, notes}, nil
}

// chooseByType picks the program of obj that has the given type.
func chooseByType(obj Object, programType ebpf.ProgramType) (chosen, error) {
	infos, err := obj.Programs()
	if err != nil {
		return chosen{}, err
	}
	for _, p := range infos {
		if p.Type == programType {
			return choose(obj, p.Name, loadSettings{})
		}
	}
	return chosen{}, fmt.Errorf("%w: %s has no %s program", ErrNoProgram, obj.Name, programType)
}

// load puts the program and its maps into the kernel. Nothing is pinned or
// attached: closing the file descriptors frees it all.
func (c chosen) load() (*loaded, error) {
	obj, info, spec := c.object, c.info, c.spec
	// Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK; newer ones
	// ignore it and this is a no-op.
	if err := rlimit.RemoveMemlock(); err != nil && !errors.Is(err, unix.EPERM) {
		return nil, fmt.Errorf("remove memlock limit: %w", err)
	}
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		return nil, loadError(obj, info, spec, firstMapError(spec, err))
	}
	return &loaded{object: obj, info: info, spec: spec, coll: coll, prog: coll.Programs[info.Name]}, nil
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

func (l *loaded) close() {
	l.coll.Close()
	for _, o := range l.others {
		o.coll.Close()
	}
}

// runOnce runs a frame once, as a packet would be, with the context ctx
// if not nil, and returns the action, the frame as the program left it,
// and the context as the kernel copied it back (nil without ctx).
func (l *loaded) runOnce(frame, ctx []byte) (ret uint32, out, ctxOut []byte, err error) {
	return l.runTimes(frame, ctx, 1)
}

// runTimes is runOnce for a call of repeat runs: the action and frame are
// the last run's.
func (l *loaded) runTimes(frame, ctx []byte, repeat uint32) (ret uint32, out, ctxOut []byte, err error) {
	// Room for programs that grow the packet with bpf_xdp_adjust_tail.
	opts := &ebpf.RunOptions{Data: frame, DataOut: make([]byte, len(frame)+4096), Repeat: repeat}
	if ctx != nil {
		ctxOut = make([]byte, len(ctx))
		opts.Context, opts.ContextOut = ctx, ctxOut
	}
	ret, err = l.prog.Run(opts)
	if err != nil {
		return 0, nil, nil, l.runError(err, frame, ctx)
	}
	return ret, opts.DataOut, ctxOut, nil
}

// measurement is one sample: the kernel's figure for the time per run, the
// wall time of the call that gave it, and how often an interrupted call was
// restarted before it.
type measurement struct {
	perRun  float64 // ns
	wall    time.Duration
	retries int
	retval  uint32 // the last run's return
}

// sample runs a frame repeat times. The wall time is that of the last,
// complete call, read around the raw syscall on this thread: Go's
// monotonic clock, CLOCK_MONOTONIC through the vDSO, which reads the TSC in
// user space in tens of nanoseconds and enters no kernel code.
func (l *loaded) sample(frame, ctx []byte, repeat uint32) (m measurement, err error) {
	before, err := l.statsBefore()
	if err != nil {
		return m, err
	}
	var per uint32
	m.retval, per, m.wall, m.retries, err = l.call(frame, ctx, repeat)
	if err != nil {
		return m, err
	}
	m.perRun = float64(per)
	return m, l.statsSince(before, &m)
}

// call makes one test run of repeat runs, restarted after each signal
// that interrupts it (the kernel gives up the whole loop, so does the
// call), and returns the last run's return, the kernel's figure per run,
// the wall time of the complete call and the restarts.
func (l *loaded) call(frame, ctx []byte, repeat uint32) (ret, nsPerRun uint32, wall time.Duration, retries int, err error) {
	for {
		start := time.Now()
		ret, nsPerRun, err = testRun(l.prog.FD(), frame, ctx, repeat)
		wall = time.Since(start)
		if !errors.Is(err, unix.EINTR) {
			break
		}
		retries++
	}
	if err != nil {
		return 0, 0, wall, retries, l.runError(err, frame, ctx)
	}
	return ret, nsPerRun, wall, retries, nil
}

// statsBefore reads the program's run-time statistics before a sample
// taken with the stats timer; nil without it.
func (l *loaded) statsBefore() (*ebpf.ProgramStats, error) {
	if !l.statsTimer {
		return nil, nil
	}
	s, err := l.prog.Stats()
	if err != nil {
		return nil, fmt.Errorf("read run-time statistics: %w", err)
	}
	return s, nil
}

// statsSince sets m's time per run from the run-time statistics' growth
// since before, with the stats timer; it leaves m alone without it.
func (l *loaded) statsSince(before *ebpf.ProgramStats, m *measurement) error {
	if before == nil {
		return nil
	}
	after, err := l.prog.Stats()
	if err != nil {
		return fmt.Errorf("read run-time statistics: %w", err)
	}
	runs := after.RunCount - before.RunCount
	if runs == 0 {
		return fmt.Errorf("run-time statistics counted no run")
	}
	m.perRun = float64(after.Runtime-before.Runtime) / float64(runs)
	return nil
}

func (l *loaded) runError(err error, frame, ctx []byte) error {
	switch {
	case ctx != nil && (errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENODEV)):
		// contextIn checks what it knows the kernel refuses; an older
		// kernel takes fewer fields.
		return fmt.Errorf("%w: the kernel refused to run the %s program with this context on this %d-byte frame: %w",
			ErrConfig, l.info.Type, len(frame), err)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("%w: BPF_PROG_TEST_RUN needs CAP_BPF and CAP_NET_ADMIN: %s", host.ErrPermission, host.PermissionHint)
	case errors.Is(err, unix.EINVAL):
		return fmt.Errorf("the kernel refused to run the %s program on this %d-byte frame (too short or too long for the type?): %w",
			l.info.Type, len(frame), err)
	}
	return fmt.Errorf("test run: %w", err)
}
