package testrun

import (
	"strings"

	"github.com/cilium/ebpf"
)

// loadedOther is another object in the kernel beside a measured one: a
// program array of the measured object holds one of its programs. Its
// maps and programs are named "FILE:NAME".
type loadedOther struct {
	prefix string
	spec   *ebpf.CollectionSpec
	coll   *ebpf.Collection
}

// loadOthers loads the other objects a map-init file named; l closes them.
func (l *loaded) loadOthers(others []other) error {
	for _, o := range others {
		lo, err := o.chosen.load()
		if err != nil {
			return err
		}
		l.others = append(l.others, &loadedOther{prefix: o.prefix, spec: lo.spec, coll: lo.coll})
	}
	return nil
}

// maps are the maps of the measured object and of the others, by name.
func (l *loaded) maps() map[string]*ebpf.Map {
	if len(l.others) == 0 {
		return l.coll.Maps
	}
	all := map[string]*ebpf.Map{}
	for name, m := range l.coll.Maps {
		all[name] = m
	}
	for _, o := range l.others {
		for name, m := range o.coll.Maps {
			all[o.prefix+name] = m
		}
	}
	return all
}

// mapSpec is the spec of a map of maps(), for its BTF.
func (l *loaded) mapSpec(name string) *ebpf.MapSpec {
	for _, o := range l.others {
		if own, ok := strings.CutPrefix(name, o.prefix); ok {
			return o.spec.Maps[own]
		}
	}
	return l.spec.Maps[name]
}

// program is a program of the measured object or of the others.
func (l *loaded) program(name string) *ebpf.Program {
	for _, o := range l.others {
		if own, ok := strings.CutPrefix(name, o.prefix); ok {
			return o.coll.Programs[own]
		}
	}
	return l.coll.Programs[name]
}
