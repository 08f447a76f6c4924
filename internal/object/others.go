package object

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
)

// loadedOther is another object in the kernel beside a measured one: a
// program array of the measured object holds one of its programs. Its
// maps and programs are named "FILE:NAME".
type loadedOther struct {
	Prefix string
	spec   *ebpf.CollectionSpec
	coll   *ebpf.Collection
}

// LoadOthers loads the other objects a map-init file named; l closes them.
func (l *Loaded) LoadOthers(others []Other) error {
	for _, o := range others {
		lo, err := o.Chosen.Load()
		if err != nil {
			return err
		}
		l.others = append(l.others, &loadedOther{Prefix: o.Prefix, spec: lo.Spec, coll: lo.coll})
	}
	return nil
}

// Maps are the maps of the measured object and of the others, by name.
func (l *Loaded) Maps() map[string]*ebpf.Map {
	if len(l.others) == 0 {
		return l.coll.Maps
	}
	all := map[string]*ebpf.Map{}
	for name, m := range l.coll.Maps {
		all[name] = m
	}
	for _, o := range l.others {
		for name, m := range o.coll.Maps {
			all[o.Prefix+name] = m
		}
	}
	return all
}

// mapSpec is the spec of a map of maps(), for its BTF.
func (l *Loaded) mapSpec(name string) *ebpf.MapSpec {
	for _, o := range l.others {
		if own, ok := strings.CutPrefix(name, o.Prefix); ok {
			return o.spec.Maps[own]
		}
	}
	return l.Spec.Maps[name]
}

// program is a program of the measured object or of the others.
func (l *Loaded) program(name string) *ebpf.Program {
	for _, o := range l.others {
		if own, ok := strings.CutPrefix(name, o.Prefix); ok {
			return o.coll.Programs[own]
		}
	}
	return l.coll.Programs[name]
}

// firstMapError makes a failed load's message the same every time.
// cilium/ebpf creates maps in no set order, so with two bad maps either
// could be named: the first in name order that the kernel refuses is.
// Maps of programs and maps are created empty. err is kept if every map
// can be created alone.
func firstMapError(spec *ebpf.CollectionSpec, err error) error {
	if _, verifier := errors.AsType[*ebpf.VerifierError](err); verifier {
		return err // maps are created before programs: they were fine
	}
	for _, name := range sortedKeys(spec.Maps) {
		ms := spec.Maps[name].Copy()
		if ms.Type == ebpf.ProgramArray || isMapOfMaps(ms.Type) {
			ms.Contents = nil
		}
		m, mapErr := ebpf.NewMap(ms)
		if mapErr != nil {
			return fmt.Errorf("map %s: %w", name, mapErr)
		}
		m.Close()
	}
	return err
}
