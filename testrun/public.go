package testrun

import (
	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/internal/insncount"
	"github.com/xdpmicro/xdpmicro/internal/livenet"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/results"
)

// The types a caller of testrun names are testrun's own: plain data, or
// handles made by testrun's functions. Each is converted at the boundary to
// or from the internal package that does the work, so that a user of the
// module can build a Config and read a Result.

// Object holds BPF programs: as an ELF file's bytes, as a collection its
// caller parsed (bpf2go's generated loadX functions return one), or as one
// program its caller loaded. Exactly one of ELF, Spec and Prog is set.
type Object struct {
	Name string // as reported: a bundled build's name or a file's path
	ELF  []byte
	// Spec is used as it is, copied, in place of ELF.
	Spec *ebpf.CollectionSpec
	// Prog is a program already in the kernel, run as it is, with the
	// maps it holds. Without its instructions it cannot be instrumented:
	// its cases have no instruction counts, and no map effects are read.
	Prog *ebpf.Program
}

// ReadObject reads an object file.
func ReadObject(path string) (Object, error) {
	o, err := object.ReadObject(path)
	return Object(o), err
}

// ProgramInfo describes a program inside an object.
type ProgramInfo struct {
	Name    string
	Type    ebpf.ProgramType
	Section string
	// AttachType is the expected attach type the section gives.
	AttachType ebpf.AttachType
}

// Supported reports whether xdpmicro can measure programs of this type.
func (p ProgramInfo) Supported() bool { return object.ProgramInfo(p).Supported() }

// ForMap names the map an XDP program runs from, "cpumap" or "devmap",
// when its section says so; empty otherwise.
func (p ProgramInfo) ForMap() string { return object.ProgramInfo(p).ForMap() }

// VerifierStats are what the kernel told of one load of a program: the
// verifier's statistics, from its log at BPF_LOG_STATS on the load that
// is measured, and the program's sizes, from bpf_prog_info.
type VerifierStats struct {
	Verdict, Reason  string // success, or failure and its first line
	TimeMicros       uint64 // "verification time N usec"
	Processed        uint64 // "processed N insns": what the 1,000,000 limit holds
	TotalStates      uint64
	PeakStates       uint64
	MaxStatesPerInsn uint64
	MarkRead         int64 // -1 where the kernel does not give it (6.x)
	StackDepths      []int // bytes, one per function
	XlatedInsns      int   // the program as the kernel rewrote it
	JITBytes         int   // its native code; 0 without the JIT
}

// Effect is a change that one run of a case made to a map.
type Effect = results.Effect

// ContextChange is a field of the context that the checking run's program
// changed: the kernel runs every repeat of a call on one context, so from
// the second run on the program sees its own change.
type ContextChange = results.ContextChange

// Block is a basic block of a program as its object holds it: its
// instructions Start..End-1, as indexes of the program's asm.Instructions
// (a 64-bit load is one).
type Block struct {
	Start, End int
}

// Len is the number of instructions the block executes each time.
func (b Block) Len() int { return b.End - b.Start }

// LoadOptions change an object before it is loaded, as the program's own
// loader would: the type of a program in a section cilium/ebpf does not
// know, the values of global variables, the sizes of maps.
type LoadOptions struct {
	// Type is the program type of programs whose section names none:
	// xdp, tc (sched_cls), socket_filter, or af_packet: a socket filter
	// attached to an AF_PACKET socket, which sees each frame from its
	// Ethernet header on. Suricata's SEC("filter") and SEC("loadbalancer")
	// are such.
	Type string
	// Set are NAME=VALUE: a global variable of .rodata, .data or .bss
	// (a `const volatile` knob) set before loading. VALUE is written as
	// in a map-init file: a number, an enum name, an address, or YAML
	// for structs and arrays.
	Set []string
	// MaxEntries are NAME=N: the size of a map, for maps declared
	// without max_entries (their loader sizes them) or to change it.
	MaxEntries []string
	// AttachType "xdp" loads XDP programs for a cpumap or a devmap (their
	// section's expected attach type, BPF_XDP_CPUMAP or BPF_XDP_DEVMAP)
	// as plain XDP, which the kernel test-runs and they do not: a
	// program that needs nothing of its map then runs as it would there.
	// "" keeps the section's.
	AttachType string
	// KernelMemory is the budget of kernel memory for everything a run
	// creates in the kernel at once (maps, times the loads that hold
	// them, and programs): a size such as 2G or 512M; "" for 1 GiB or a
	// quarter of the machine's memory, the less. A run past it is
	// refused (bad input) before anything is loaded.
	KernelMemory string
}

// MapInit is a map-init file, read and checked for syntax: entries to put
// into maps after loading, before any run, and global variables and map
// sizes to set before loading (docs/usage.md describes the file). Make one
// with ReadMapInit or ParseMapInit; whether its maps and types fit is
// checked against each object before anything is loaded.
type MapInit struct {
	parsed *object.MapInit
}

// ReadMapInit reads a map-init file (YAML or JSON). A file that is not one
// is bad input.
func ReadMapInit(path string) (*MapInit, error) {
	mi, err := object.ReadMapInit(path)
	if err != nil {
		return nil, err
	}
	return &MapInit{mi}, nil
}

// ParseMapInit parses the content of a map-init file; name is how its
// errors name it.
func ParseMapInit(name string, data []byte) (*MapInit, error) {
	mi, err := object.ParseMapInit(name, data)
	if err != nil {
		return nil, err
	}
	return &MapInit{mi}, nil
}

// internal is the parsed file, nil for no file.
func (mi *MapInit) internal() *object.MapInit {
	if mi == nil {
		return nil
	}
	return mi.parsed
}

// LiveNet is where live frames go: a veth pair in a network namespace of
// its own, with a counter on each way a frame can leave (internal/livenet).
// Nothing of it is seen from the host's namespace, and the kernel frees it
// when the process ends however it ends.
type LiveNet struct {
	pair *livenet.Pair
}

// OpenLiveNet makes the place for live frames; the caller closes it. A
// kernel without live frames (before 5.18) is refused as bad input.
func OpenLiveNet() (*LiveNet, error) {
	if err := livenet.Supported(); err != nil {
		return nil, err
	}
	pair, err := livenet.Open()
	if err != nil {
		return nil, err
	}
	return &LiveNet{pair}, nil
}

// Close tears the pair down.
func (n *LiveNet) Close() error { return n.pair.Close() }

// Select names the programs of obj that patterns choose, in the object's
// (name) order: every measurable one when patterns is empty, else those
// whose names equal or match (path.Match) one of the comma-separated
// patterns. skipped are the programs a glob or the empty pattern passed
// over as not measurable with load and mi (nil: none). A pattern that
// chooses nothing is bad input, and so is a name chosen that cannot be
// measured.
func Select(obj Object, patterns string, load LoadOptions, mi *MapInit) (names []string, skipped []ProgramInfo, err error) {
	settings, err := object.NewSettings(object.LoadOptions(load), mi.internal())
	if err != nil {
		return nil, nil, err
	}
	names, passed, err := object.Select(object.Object(obj), patterns, settings)
	for _, p := range passed {
		skipped = append(skipped, ProgramInfo(p))
	}
	return names, skipped, err
}

// blocksOf turns the counter's blocks into testrun's own, keeping nil as
// nil. (Effects and context changes are results' types at every layer.)

func blocksOf(in []insncount.Block) []Block {
	return convertAll(in, func(b insncount.Block) Block { return Block(b) })
}

func convertAll[T, U any](in []T, convert func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = convert(v)
	}
	return out
}
