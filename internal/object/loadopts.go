package object

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
	"github.com/xdpmicro/xdpmicro/internal/kmem"
	"github.com/xdpmicro/xdpmicro/internal/yamlsize"
	"gopkg.in/yaml.v3"
)

// LoadOptions change an object before it is loaded, as the program's own
// loader would: the type of a program in a section cilium/ebpf does not
// know, the values of global variables, the sizes of maps.
type LoadOptions struct {
	// Type is the program type of programs whose section names none:
	// xdp, tc (sched_cls), socket_filter, or af_packet: a socket filter
	// attached to an AF_PACKET socket, which sees each frame from its
	// Ethernet header on (frame.go). Suricata's SEC("filter") and
	// SEC("loadbalancer") are such.
	Type string
	// Set are NAME=VALUE: a global variable of .rodata, .data or .bss
	// (a `const volatile` knob) set before loading. VALUE is written as
	// in a --map-init file: a number, an enum name, an address, or YAML
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
	// them, and programs): a size such as 2G or 512M (ParseSize); ""
	// for kmem.Default.
	KernelMemory string
}

// AttachTypeNames are the values LoadOptions.AttachType takes.
var AttachTypeNames = []string{attachPlainXDP}

// attachPlainXDP clears the expected attach type of programs for maps.
const attachPlainXDP = "xdp"

// programTypes are the names --type takes, and cilium/ebpf's own.
var programTypes = map[string]ebpf.ProgramType{
	"xdp":           ebpf.XDP,
	"tc":            ebpf.SchedCLS,
	"sched_cls":     ebpf.SchedCLS,
	"classifier":    ebpf.SchedCLS,
	"schedcls":      ebpf.SchedCLS,
	"socket_filter": ebpf.SocketFilter,
	"socket":        ebpf.SocketFilter,
	"socketfilter":  ebpf.SocketFilter,
	afPacket:        ebpf.SocketFilter,
}

// afPacket is the type of socket filters that see the link-layer header.
const afPacket = "af_packet"

// TypeNames are the names of program types that LoadOptions.Type takes.
var TypeNames = []string{"xdp", "tc", "socket_filter", afPacket}

// assignment is a variable's value, from --set or a map-init file.
type assignment struct {
	name  string
	value *yaml.Node
	where string // "variable NAME=VALUE" or "file:line", for errors
	file  bool   // from a map-init file: its errors are ErrMapInit
}

// sizing is a map's size, from --max-entries or a map-init file.
type sizing struct {
	name  string
	n     uint32
	where string
	file  bool
}

// Settings are LoadOptions and the map-init file's variables and
// sizes, checked for syntax; the file's come first, so flags win.
type Settings struct {
	programType ebpf.ProgramType
	// linkLayer: socket filters are given frames behind a copy of their
	// Ethernet header (--type af_packet).
	linkLayer bool
	// plainXDP: programs for a cpumap or a devmap are loaded as plain
	// XDP (AttachType "xdp").
	plainXDP  bool
	variables []assignment
	sizes     []sizing
	// kernelMemory is the budget of kernel memory (kmem.go); 0 before
	// NewSettings, which Settings{} callers take as the default.
	kernelMemory uint64
}

// KernelMemory is the budget of kernel memory of a run, in bytes.
func (s Settings) KernelMemory() uint64 {
	if s.kernelMemory == 0 {
		return kmem.Default()
	}
	return s.kernelMemory
}

// LinkLayer says socket filters are given frames behind a copy of their
// Ethernet header (BehindLinkHeader).
func (s Settings) LinkLayer() bool { return s.linkLayer }

func (s *Settings) fail(file bool, where, format string, args ...any) error {
	sentinel := ErrConfig
	if file {
		sentinel = ErrMapInit
	}
	return fmt.Errorf("%w: %s: %s", sentinel, where, fmt.Sprintf(format, args...))
}

// NewSettings checks the options' syntax; mi may be nil.
func NewSettings(opts LoadOptions, mi *MapInit) (Settings, error) {
	var s Settings
	if opts.Type != "" {
		t, ok := programTypes[strings.ToLower(opts.Type)]
		if !ok {
			return s, fmt.Errorf("%w: program type %q: want one of %s", ErrConfig, opts.Type, strings.Join(TypeNames, ", "))
		}
		s.programType, s.linkLayer = t, strings.ToLower(opts.Type) == afPacket
	}
	switch strings.ToLower(opts.AttachType) {
	case "":
	case attachPlainXDP:
		s.plainXDP = true
	default:
		return s, fmt.Errorf("%w: attach type %q: want %s (XDP programs for a cpumap or a devmap loaded as plain XDP)",
			ErrConfig, opts.AttachType, strings.Join(AttachTypeNames, ", "))
	}
	if opts.KernelMemory != "" {
		n, err := kmem.ParseSize(opts.KernelMemory)
		if err != nil {
			return s, fmt.Errorf("%w: %s: %w", ErrConfig, kmem.Flag, err)
		}
		s.kernelMemory = n
	}
	if mi != nil {
		s.variables = append(s.variables, mi.variables...)
		s.sizes = append(s.sizes, mi.sizes...)
	}
	for _, set := range opts.Set {
		name, value, ok := strings.Cut(set, "=")
		where := "variable " + set
		if !ok || name == "" {
			return s, fmt.Errorf("%w: %s: want NAME=VALUE", ErrConfig, where)
		}
		if yamlsize.Nodes([]byte(value)) > maxSetNodes {
			return s, fmt.Errorf("%w: %s: more than %d YAML nodes", ErrConfig, where, maxSetNodes)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(value), &doc); err != nil || len(doc.Content) != 1 {
			return s, fmt.Errorf("%w: %s: %q is not a value (a number, a name, or YAML such as {a: 1})", ErrConfig, where, value)
		}
		s.variables = append(s.variables, assignment{name: name, value: doc.Content[0], where: where})
	}
	for _, size := range opts.MaxEntries {
		name, value, ok := strings.Cut(size, "=")
		where := "map size " + size
		n, err := strconv.ParseUint(value, 0, 32)
		if !ok || name == "" || err != nil || n == 0 {
			return s, fmt.Errorf("%w: %s: want NAME=N, N from 1 to 4294967295", ErrConfig, where)
		}
		s.sizes = append(s.sizes, sizing{name: name, n: uint32(n), where: where})
	}
	return s, nil
}

// prepare changes spec as the options say and returns notes on what
// xdpmicro changed of its own accord. Maps are taken in name order, so
// that the same object gives the same notes and errors every time.
func (s *Settings) prepare(spec *ebpf.CollectionSpec, object string) ([]string, error) {
	var notes []string
	mapNames := sortedKeys(spec.Maps)

	// xdpmicro never pins: a pinned map would outlive the run, or bring
	// in the contents another program left.
	var pinned []string
	for _, name := range mapNames {
		ms := spec.Maps[name]
		if ms.Pinning != ebpf.PinNone {
			pinned = append(pinned, name)
			ms.Pinning = ebpf.PinNone
		}
		if ms.InnerMap != nil {
			ms.InnerMap.Pinning = ebpf.PinNone
		}
	}
	if len(pinned) > 0 {
		notes = append(notes, fmt.Sprintf("maps pinned by name in the object are loaded unpinned, as the object declares them, and freed at exit (xdpmicro never pins): %s", strings.Join(pinned, ", ")))
	}
	if s.plainXDP {
		notes = append(notes, asPlainXDP(spec)...)
	}

	given := map[string]bool{}
	for _, z := range s.sizes {
		ms := spec.Maps[z.name]
		if ms == nil {
			return nil, s.fail(z.file, z.where, "%s has no map %q (maps: %s)", object, z.name, strings.Join(mapNames, ", "))
		}
		if !needsSize(ms.Type) {
			return nil, s.fail(z.file, z.where, "map %s is a %s, whose size is not set by max_entries", z.name, ms.Type)
		}
		ms.MaxEntries, given[z.name] = z.n, true
	}
	// One note for the maps given each default size.
	defaulted := map[string][]string{}
	var whys []string
	for _, name := range mapNames {
		ms := spec.Maps[name]
		if ms.MaxEntries != 0 || given[name] || !needsSize(ms.Type) {
			continue
		}
		n, why, err := defaultSize(ms.Type)
		if err != nil {
			return nil, fmt.Errorf("%s: map %s declares no max_entries, and %w", object, name, err)
		}
		ms.MaxEntries = n
		why = fmt.Sprintf("%d, %s", n, why)
		if defaulted[why] == nil {
			whys = append(whys, why)
		}
		defaulted[why] = append(defaulted[why], name)
	}
	for _, why := range whys {
		notes = append(notes, fmt.Sprintf("maps declaring no max_entries (their loader sizes them) are given %s: %s; give sizes by map name",
			why, strings.Join(defaulted[why], ", ")))
	}

	for _, a := range s.variables {
		vs := spec.Variables[a.name]
		if vs == nil {
			return nil, s.fail(a.file, a.where, "%s has no global variable %q (variables: %s)", object, a.name, strings.Join(variableNames(spec), ", "))
		}
		if !isDataSection(vs.SectionName) {
			return nil, s.fail(a.file, a.where, "%s is in section %s: only variables of .rodata, .data and .bss are set", a.name, vs.SectionName)
		}
		if vs.Type == nil {
			return nil, s.fail(a.file, a.where, "%s has no BTF for %s: its type is unknown", object, a.name)
		}
		b, err := btfvalue.Encode(vs.Type.Type, a.value)
		if err != nil {
			return nil, s.fail(a.file, a.where, "%s: %v", a.name, err)
		}
		if err := vs.Set(b); err != nil {
			return nil, s.fail(a.file, a.where, "%s: %v", a.name, err)
		}
	}
	return notes, nil
}

// asPlainXDP gives the programs of spec that are for a cpumap or a devmap
// the expected attach type of a plain XDP program, as SEC("xdp") does,
// and says which it changed: the kernel test-runs those, not these. Their
// frags flag (xdp.frags/...) stays.
func asPlainXDP(spec *ebpf.CollectionSpec) []string {
	var notes []string
	for _, name := range sortedKeys(spec.Programs) {
		p := spec.Programs[name]
		if m := forMap(p.Type, p.AttachType); m != "" {
			p.AttachType = ebpf.AttachXDP
			notes = append(notes, fmt.Sprintf("%s, an XDP program for a %s (section %s), is loaded as plain XDP: "+
				"it runs as it would from the %s only if it needs nothing of it", name, m, p.SectionName, m))
		}
	}
	return notes
}

// needsSize says whether a map of this type takes its size from
// max_entries and must not be created with 0. Perf event arrays are sized
// by cilium/ebpf, storage maps must have 0.
func needsSize(t ebpf.MapType) bool {
	switch t {
	case ebpf.PerfEventArray, ebpf.CGroupStorage, ebpf.PerCPUCGroupStorage, ebpf.SkStorage,
		ebpf.InodeStorage, ebpf.TaskStorage, ebpf.StructOpsMap, ebpf.Arena, ebpf.UnspecifiedMap:
		return false
	}
	return true
}

// defaultSize is the size given to a map declared without one: what
// loaders most often size at run time is one entry per CPU.
func defaultSize(t ebpf.MapType) (uint32, string, error) {
	if t == ebpf.RingBuf || t == ebpf.UserRingbuf {
		// A power of two, a multiple of the page size.
		return uint32(64 * os.Getpagesize()), "64 pages", nil
	}
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		return 0, "", fmt.Errorf("the possible CPUs are unknown: %w", err)
	}
	return uint32(cpus), "the number of possible CPUs", nil
}

func isDataSection(name string) bool {
	return name == ".bss" || strings.HasPrefix(name, ".data") || strings.HasPrefix(name, ".rodata")
}

func variableNames(spec *ebpf.CollectionSpec) []string {
	var names []string
	for name, vs := range spec.Variables {
		if isDataSection(vs.SectionName) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return []string{"none"}
	}
	return names
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// maxSetNodes bounds a --set value's YAML nodes: a variable's value, of
// at most a map value's size, needs far fewer.
const maxSetNodes = 100_000
