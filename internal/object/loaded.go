package object

import (
	"fmt"

	"github.com/cilium/ebpf"
)

// loadedSpec stands for a program its caller loaded: a spec with the
// program's name and type and no instructions, so that choosing it goes
// the way it goes for an object's.
func loadedSpec(o Object) (*ebpf.CollectionSpec, error) {
	info, err := o.Prog.Info()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: the program's info: %w", ErrBadObject, o.Name, err)
	}
	name := loadedName(o, info)
	return &ebpf.CollectionSpec{
		Maps:     map[string]*ebpf.MapSpec{},
		Programs: map[string]*ebpf.ProgramSpec{name: {Name: name, Type: o.Prog.Type()}},
	}, nil
}

// loadedName is the program's name: the kernel keeps 15 characters of
// it, so the object's name stands in where it has none.
func loadedName(o Object, info *ebpf.ProgramInfo) string {
	if info.Name != "" {
		return info.Name
	}
	return o.Name
}

// loadPreloaded wraps the caller's program in a Loaded of its own copy of
// the file descriptor, so that closing it leaves the caller's open.
func (c Chosen) loadPreloaded() (*Loaded, error) {
	prog, err := c.Object.Prog.Clone()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Object.Name, err)
	}
	coll := &ebpf.Collection{Programs: map[string]*ebpf.Program{c.Info.Name: prog}, Maps: map[string]*ebpf.Map{}}
	return &Loaded{Object: c.Object, Info: c.Info, Spec: c.Spec, coll: coll, Prog: prog}, nil
}
