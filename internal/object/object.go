package object

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// Sentinel errors, so that callers can tell bad input from a failed run.
var (
	// ErrConfig: an option of a run cannot hold for these objects or
	// cases (an expectation, a context, a load option).
	ErrConfig = badinput.New("bad configuration")
	// ErrBadObject: the file is missing, not ELF, or holds no BPF program.
	ErrBadObject = badinput.New("bad object")
	// ErrNoProgram: the program asked for is not in the object, or the
	// choice is ambiguous.
	ErrNoProgram = badinput.New("no such program")
	// ErrUnsupportedType: the program's type cannot be measured.
	ErrUnsupportedType = badinput.New("unsupported program type")
	// ErrUntyped marks a refusal of programs in sections that name no
	// type (Suricata's SEC("filter")): given one (LoadOptions.Type), they
	// run. It goes with ErrUnsupportedType.
	ErrUntyped = badinput.New("a section that names no type")
	// ErrVerifier: the verifier rejected the program.
	ErrVerifier = errors.New("rejected by the verifier")
	// ErrUnexpectedReturn: a case's checking run returned the wrong action.
	ErrUnexpectedReturn = errors.New("unexpected return code")
	// ErrUnexpectedOutput: a case's checking run left another frame, or
	// made other map effects, than the case expects.
	ErrUnexpectedOutput = errors.New("unexpected output")
)

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
	data, err := safefs.ReadFile(path, safefs.MaxInput)
	if err != nil {
		return Object{}, fmt.Errorf("%w: %w", ErrBadObject, err)
	}
	return Object{Name: path, ELF: data}, nil
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
func (p ProgramInfo) Supported() bool { return slices.Contains(measurable, p.Type) }

// ForMap names the map an XDP program runs from, "cpumap" or "devmap",
// when its section says so (xdp/cpumap, xdp.frags/devmap, ...): the
// kernel's BPF_PROG_TEST_RUN refuses such programs (EINVAL), whatever
// the frame. "" for any other program.
func (p ProgramInfo) ForMap() string {
	return forMap(p.Type, p.AttachType)
}

func forMap(t ebpf.ProgramType, a ebpf.AttachType) string {
	switch {
	case t != ebpf.XDP:
		return ""
	case a == ebpf.AttachXDPCPUMap:
		return "cpumap"
	case a == ebpf.AttachXDPDevMap:
		return "devmap"
	}
	return ""
}

// ErrNotTestRunnable: the program is of a type xdpmicro measures, but the
// kernel will not test-run it as it is loaded: an XDP program for a
// cpumap or a devmap.
var ErrNotTestRunnable = badinput.New("not test-runnable")

// mapProgramError says why a program for a cpumap or devmap is not run,
// and how it can be: loaded as plain XDP, when it needs nothing of the
// map's (a devmap program's ctx->egress_ifindex).
func mapProgramError(object string, p ProgramInfo) error {
	need := "needs nothing of a cpumap"
	if p.ForMap() == "devmap" {
		need = "reads no ctx->egress_ifindex"
	}
	return fmt.Errorf("%w: %s in %s is an XDP program for a %s (section %q, expected attach type %s), "+
		"which the kernel's BPF_PROG_TEST_RUN refuses whatever the frame; if it %s, load it as plain XDP",
		ErrNotTestRunnable, p.Name, object, p.ForMap(), p.Section, attachTypeName(p.AttachType), need)
}

// attachTypeName is the kernel's name of the two attach types it refuses.
func attachTypeName(a ebpf.AttachType) string {
	switch a {
	case ebpf.AttachXDPCPUMap:
		return "BPF_XDP_CPUMAP"
	case ebpf.AttachXDPDevMap:
		return "BPF_XDP_DEVMAP"
	}
	return a.String()
}

// maxZeroSection is the largest zero-filled section (.bss) an object may
// have: as large as any file xdpmicro reads (safefs.MaxInput).
const maxZeroSection = safefs.MaxInput

func (o Object) spec() (*ebpf.CollectionSpec, error) {
	switch {
	case o.Prog != nil:
		return loadedSpec(o)
	case o.Spec != nil:
		if len(o.Spec.Programs) == 0 {
			return nil, fmt.Errorf("%w: %s holds no BPF program", ErrBadObject, o.Name)
		}
		return o.Spec.Copy(), nil
	}
	f, err := elf.NewFile(bytes.NewReader(o.ELF))
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not an ELF file", ErrBadObject, o.Name)
	}
	if f.Machine != elf.EM_BPF {
		return nil, fmt.Errorf("%w: %s is an ELF file for %s, not a BPF object", ErrBadObject, o.Name, f.Machine)
	}
	for _, sec := range f.Sections {
		// A zero-filled section takes no room in the file, and cilium/ebpf
		// allocates it whole: a crafted .bss of 4 GiB took 8 GB here.
		if sec.Type == elf.SHT_NOBITS && sec.Size > maxZeroSection {
			return nil, fmt.Errorf("%w: %s: section %s of %s, over the %s a zero-filled section may have",
				ErrBadObject, o.Name, sec.Name, mib(sec.Size), mib(maxZeroSection))
		}
	}
	spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(o.ELF))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadObject, o.Name, err)
	}
	if len(spec.Programs) == 0 {
		return nil, fmt.Errorf("%w: %s holds no BPF program", ErrBadObject, o.Name)
	}
	return spec, nil
}

// Programs lists the programs in the object, sorted by name.
func (o Object) Programs() ([]ProgramInfo, error) {
	spec, err := o.spec()
	if err != nil {
		return nil, err
	}
	return programInfos(spec), nil
}

// choose returns the spec with only the named program, or with the only
// measurable program when name is empty, and the programs that the
// object's program arrays hold: a tail call needs its target loaded.
// Other programs are dropped so that one the verifier would reject cannot
// fail the run. Programs in sections that name no type get the settings'
// type, when it is set. all are the object's programs, for a --map-init
// file to name.
func (o Object) choose(name string, s Settings) (spec *ebpf.CollectionSpec, info ProgramInfo, all map[string]*ebpf.ProgramSpec, err error) {
	spec, err = o.spec()
	if err != nil {
		return nil, ProgramInfo{}, nil, err
	}
	if s.programType != ebpf.UnspecifiedProgram {
		if err := retype(spec, name, s.programType); err != nil {
			return nil, ProgramInfo{}, nil, err
		}
	}
	infos := programInfos(spec)
	var chosen ProgramInfo
	if name == "" {
		chosen, err = o.only(infos, s.plainXDP)
	} else {
		chosen, err = o.named(infos, name, s.plainXDP)
	}
	if err != nil {
		return nil, ProgramInfo{}, nil, err
	}
	keep := map[string]*ebpf.ProgramSpec{chosen.Name: spec.Programs[chosen.Name]}
	targets, err := tailCallTargets(spec)
	if err != nil {
		return nil, ProgramInfo{}, nil, fmt.Errorf("%s: %w", o.Name, err)
	}
	for _, t := range targets {
		keep[t] = spec.Programs[t]
	}
	all = spec.Programs
	spec.Programs = keep
	return spec, chosen, all, nil
}

// only picks the one measurable program of infos. Programs for a cpumap
// or a devmap count only when they are to be loaded as plain XDP: else an
// object that pairs one with the XDP program that redirects into its map
// (xdp-bench's) could not be measured without a name.
func (o Object) only(infos []ProgramInfo, plainXDP bool) (ProgramInfo, error) {
	var candidates, forMaps []ProgramInfo
	for _, p := range infos {
		switch {
		case !p.Supported():
		case p.ForMap() != "" && !plainXDP:
			forMaps = append(forMaps, p)
		default:
			candidates = append(candidates, p)
		}
	}
	switch {
	case len(candidates) == 1:
		return candidates[0], nil
	case len(candidates) > 1:
		return ProgramInfo{}, fmt.Errorf("%w: %s holds %d programs; choose one by name: %s",
			ErrNoProgram, o.Name, len(candidates), listPrograms(candidates))
	case len(forMaps) == 1:
		return ProgramInfo{}, mapProgramError(o.Name, forMaps[0])
	case len(forMaps) > 1:
		return ProgramInfo{}, fmt.Errorf("%w: %s holds only XDP programs for cpumaps and devmaps, which the kernel's BPF_PROG_TEST_RUN refuses whatever the frame: %s; "+
			"choose one by name, and if it needs nothing of its map, load it as plain XDP", ErrNotTestRunnable, o.Name, listPrograms(forMaps))
	}
	return ProgramInfo{}, withTypeHint(fmt.Errorf("%w: %s has no program of a supported type (%s); it holds: %s",
		ErrUnsupportedType, o.Name, strings.Join(SupportedTypes, ", "), listPrograms(infos)), infos)
}

// named picks the program called name from infos, if xdpmicro can run it.
func (o Object) named(infos []ProgramInfo, name string, plainXDP bool) (ProgramInfo, error) {
	i := slices.IndexFunc(infos, func(p ProgramInfo) bool { return p.Name == name })
	if i < 0 {
		return ProgramInfo{}, fmt.Errorf("%w: %s has no program %q; it holds: %s", ErrNoProgram, o.Name, name, listPrograms(infos))
	}
	p := infos[i]
	switch {
	case !p.Supported():
		return ProgramInfo{}, withTypeHint(fmt.Errorf("%w: %s is a %s program; supported: %s",
			ErrUnsupportedType, name, p.Type, strings.Join(SupportedTypes, ", ")), []ProgramInfo{p})
	case p.ForMap() != "" && !plainXDP:
		return ProgramInfo{}, mapProgramError(o.Name, p)
	}
	return p, nil
}

// listPrograms is "name (type), ...", a program for a map with its
// section.
func listPrograms(infos []ProgramInfo) string {
	var s []string
	for _, p := range infos {
		if p.ForMap() != "" {
			s = append(s, fmt.Sprintf("%s (%s, %s)", p.Name, p.Type, p.Section))
			continue
		}
		s = append(s, fmt.Sprintf("%s (%s)", p.Name, p.Type))
	}
	return strings.Join(s, ", ")
}

func programInfos(spec *ebpf.CollectionSpec) []ProgramInfo {
	var infos []ProgramInfo
	for name, p := range spec.Programs {
		infos = append(infos, ProgramInfo{Name: name, Type: p.Type, Section: p.SectionName, AttachType: p.AttachType})
	}
	slices.SortFunc(infos, func(a, b ProgramInfo) int { return strings.Compare(a.Name, b.Name) })
	return infos
}

// withTypeHint is err, a refusal of the types of infos, suggesting a type
// for programs in sections that name none, and marked ErrUntyped, when
// one of infos is.
func withTypeHint(err error, infos []ProgramInfo) error {
	for _, p := range infos {
		if p.Type == ebpf.UnspecifiedProgram {
			return untypedError{fmt.Errorf("%w (a program in a section that names no type, such as %q, is measured when given a type: %s)",
				err, p.Section, strings.Join(TypeNames, ", "))}
		}
	}
	return err
}

// untypedError is err, whose text it keeps, marked ErrUntyped.
type untypedError struct{ err error }

func (e untypedError) Error() string   { return e.err.Error() }
func (e untypedError) Unwrap() []error { return []error{e.err, ErrUntyped} }

// retype gives programs in sections that name no type the type t. A
// program named with --program must be one of them, or of type t already.
func retype(spec *ebpf.CollectionSpec, name string, t ebpf.ProgramType) error {
	if p := spec.Programs[name]; p != nil && p.Type != ebpf.UnspecifiedProgram && p.Type != t {
		return fmt.Errorf("%w: type %s: program %s in section %q is a %s program already; a type is given only to sections that name none",
			ErrConfig, t, name, p.SectionName, p.Type)
	}
	for _, p := range spec.Programs {
		if p.Type == ebpf.UnspecifiedProgram {
			p.Type = t
		}
	}
	return nil
}

// tailCallTargets are the programs the object's program arrays hold from
// the start (static initialisation), sorted. cilium/ebpf loads every map
// of the spec and the programs its program arrays name.
func tailCallTargets(spec *ebpf.CollectionSpec) ([]string, error) {
	var targets []string
	for _, mapName := range sortedKeys(spec.Maps) {
		ms := spec.Maps[mapName]
		if ms.Type != ebpf.ProgramArray {
			continue
		}
		for _, kv := range ms.Contents {
			name, ok := kv.Value.(string)
			if !ok {
				continue
			}
			p := spec.Programs[name]
			switch {
			case p == nil:
				return nil, fmt.Errorf("%w: program array %s holds program %s, which the object does not have", ErrBadObject, mapName, name)
			case p.Type == ebpf.UnspecifiedProgram:
				return nil, fmt.Errorf("%w: program array %s holds program %s, in section %q, which names no type: give the program type",
					ErrUnsupportedType, mapName, name, p.SectionName)
			}
			if !slices.Contains(targets, name) {
				targets = append(targets, name)
			}
		}
	}
	slices.Sort(targets)
	return targets, nil
}
