package testrun

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
)

// Sentinel errors, so that callers can tell bad input from a failed run.
var (
	// ErrBadObject: the file is missing, not ELF, or holds no BPF program.
	ErrBadObject = errors.New("bad object")
	// ErrNoProgram: the program asked for is not in the object, or the
	// choice is ambiguous.
	ErrNoProgram = errors.New("no such program")
	// ErrUnsupportedType: the program's type cannot be measured.
	ErrUnsupportedType = errors.New("unsupported program type")
	// ErrPermission: the kernel refused to load or run the program.
	ErrPermission = errors.New("not permitted")
	// ErrVerifier: the verifier rejected the program.
	ErrVerifier = errors.New("rejected by the verifier")
	// ErrUnexpectedReturn: a case's checking run returned the wrong action.
	ErrUnexpectedReturn = errors.New("unexpected return code")
)

// PermissionHint says how to get the privileges that loading needs.
const PermissionHint = "run as root (sudo), or grant the binary capabilities: sudo setcap cap_bpf,cap_net_admin,cap_perfmon+ep $(command -v xdpmicro)"

// Object is an ELF object holding BPF programs.
type Object struct {
	Name string // as reported: a bundled build's name or a file's path
	ELF  []byte
}

// ReadObject reads an object file.
func ReadObject(path string) (Object, error) {
	data, err := os.ReadFile(path)
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
}

// Supported reports whether xdpmicro can measure programs of this type.
func (p ProgramInfo) Supported() bool { return slices.Contains(measurable, p.Type) }

func (o Object) spec() (*ebpf.CollectionSpec, error) {
	f, err := elf.NewFile(bytes.NewReader(o.ELF))
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not an ELF file", ErrBadObject, o.Name)
	}
	if f.Machine != elf.EM_BPF {
		return nil, fmt.Errorf("%w: %s is an ELF file for %s, not a BPF object", ErrBadObject, o.Name, f.Machine)
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
// fail the run. Programs in sections that name no type get programType,
// when it is set. all are the object's programs, for a --map-init file to
// name.
func (o Object) choose(name string, programType ebpf.ProgramType) (spec *ebpf.CollectionSpec, info ProgramInfo, all map[string]*ebpf.ProgramSpec, err error) {
	spec, err = o.spec()
	if err != nil {
		return nil, ProgramInfo{}, nil, err
	}
	if programType != ebpf.UnspecifiedProgram {
		if err := retype(spec, name, programType); err != nil {
			return nil, ProgramInfo{}, nil, err
		}
	}
	infos := programInfos(spec)
	list := func(infos []ProgramInfo) string {
		var s []string
		for _, p := range infos {
			s = append(s, fmt.Sprintf("%s (%s)", p.Name, p.Type))
		}
		return strings.Join(s, ", ")
	}
	var chosen ProgramInfo
	if name == "" {
		var candidates []ProgramInfo
		for _, p := range infos {
			if p.Supported() {
				candidates = append(candidates, p)
			}
		}
		switch len(candidates) {
		case 0:
			return nil, ProgramInfo{}, nil, fmt.Errorf("%w: %s has no program of a supported type (%s); it holds: %s%s",
				ErrUnsupportedType, o.Name, strings.Join(SupportedTypes, ", "), list(infos), typeHint(infos))
		case 1:
			chosen = candidates[0]
		default:
			return nil, ProgramInfo{}, nil, fmt.Errorf("%w: %s holds %d programs; choose one by name: %s",
				ErrNoProgram, o.Name, len(candidates), list(candidates))
		}
	} else {
		i := slices.IndexFunc(infos, func(p ProgramInfo) bool { return p.Name == name })
		if i < 0 {
			return nil, ProgramInfo{}, nil, fmt.Errorf("%w: %s has no program %q; it holds: %s", ErrNoProgram, o.Name, name, list(infos))
		}
		chosen = infos[i]
		if !chosen.Supported() {
			return nil, ProgramInfo{}, nil, fmt.Errorf("%w: %s is a %s program; supported: %s%s",
				ErrUnsupportedType, name, chosen.Type, strings.Join(SupportedTypes, ", "), typeHint([]ProgramInfo{chosen}))
		}
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

func programInfos(spec *ebpf.CollectionSpec) []ProgramInfo {
	var infos []ProgramInfo
	for name, p := range spec.Programs {
		infos = append(infos, ProgramInfo{Name: name, Type: p.Type, Section: p.SectionName})
	}
	slices.SortFunc(infos, func(a, b ProgramInfo) int { return strings.Compare(a.Name, b.Name) })
	return infos
}

// typeHint suggests giving a type to programs in sections of no known type.
func typeHint(infos []ProgramInfo) string {
	for _, p := range infos {
		if p.Type == ebpf.UnspecifiedProgram {
			return fmt.Sprintf(" (a program in a section that names no type, such as %q, is measured when given a type: %s)",
				p.Section, strings.Join(TypeNames, ", "))
		}
	}
	return ""
}

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
