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
	Name    string `json:"name"`
	Type    string `json:"type"`
	Section string `json:"section"`
}

// Supported reports whether xdpmicro can measure programs of this type.
func (p ProgramInfo) Supported() bool { return slices.Contains(SupportedTypes, p.Type) }

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
	var infos []ProgramInfo
	for name, p := range spec.Programs {
		infos = append(infos, ProgramInfo{Name: name, Type: p.Type.String(), Section: p.SectionName})
	}
	slices.SortFunc(infos, func(a, b ProgramInfo) int { return strings.Compare(a.Name, b.Name) })
	return infos, nil
}

// choose returns the spec with only the named program, or with the only
// measurable program when name is empty. Other programs are dropped so that
// one the verifier would reject cannot fail the run.
func (o Object) choose(name string) (*ebpf.CollectionSpec, ProgramInfo, error) {
	spec, err := o.spec()
	if err != nil {
		return nil, ProgramInfo{}, err
	}
	infos, _ := o.Programs()
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
			return nil, ProgramInfo{}, fmt.Errorf("%w: %s has no program of a supported type (%s); it holds: %s",
				ErrUnsupportedType, o.Name, strings.Join(SupportedTypes, ", "), list(infos))
		case 1:
			chosen = candidates[0]
		default:
			return nil, ProgramInfo{}, fmt.Errorf("%w: %s holds %d programs; choose one with --program: %s",
				ErrNoProgram, o.Name, len(candidates), list(candidates))
		}
	} else {
		i := slices.IndexFunc(infos, func(p ProgramInfo) bool { return p.Name == name })
		if i < 0 {
			return nil, ProgramInfo{}, fmt.Errorf("%w: %s has no program %q; it holds: %s", ErrNoProgram, o.Name, name, list(infos))
		}
		chosen = infos[i]
		if !chosen.Supported() {
			return nil, ProgramInfo{}, fmt.Errorf("%w: %s is a %s program; supported: %s",
				ErrUnsupportedType, name, chosen.Type, strings.Join(SupportedTypes, ", "))
		}
	}
	spec.Programs = map[string]*ebpf.ProgramSpec{chosen.Name: spec.Programs[chosen.Name]}
	return spec, chosen, nil
}
