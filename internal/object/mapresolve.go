package object

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
	"github.com/xdpmicro/xdpmicro/internal/mapinit"
	"gopkg.in/yaml.v3"
)

// innerKeyword asks for a new map of a map of maps' inner type.
const innerKeyword = "inner"

// target is an object whose maps a map-init file fills: the measured one,
// or another whose program a program array holds (a tail call into
// another object, as katran's xdp_root into its balancer). The other's
// maps and programs are named "FILE:NAME", FILE its base name.
type target struct {
	spec     *ebpf.CollectionSpec
	programs map[string]*ebpf.ProgramSpec // before any was dropped
	prefix   string                       // "" for the measured object
	path     string                       // the other object's file
	notes    []string
	info     ProgramInfo
}

// Other is an object loaded beside the measured one.
type Other struct {
	Prefix string // how its notes are introduced
	Chosen Chosen
}

// MaxMapInitEntries bounds the entries a map-init file fills, ranges and
// repeats counted by the entries they fill. Memory does not need it (a
// range's value is encoded once, its keys made a batch at a time), time
// does: a load fills about 3 million entries a second in batches (katran's
// ring of 65537 in 19 ms), and a run loads the program many times.
const MaxMapInitEntries = 1 << 24

// Resolve turns the entries into bytes, checking them against the maps of
// the object they will be put into. programs are the object's programs
// before any was dropped (nil: spec's own): those a program array names
// are added to spec to be loaded, as are new inner maps. A program array's
// entry may name a program of another object file, which is then loaded
// beside this one: it is returned, and its maps are filled by name too.
func (mi *MapInit) Resolve(spec *ebpf.CollectionSpec, programs map[string]*ebpf.ProgramSpec, s Settings) ([]Update, []Other, error) {
	if programs == nil {
		programs = spec.Programs
	}
	targets := []*target{{spec: spec, programs: programs}}
	// The other objects first, so that their maps can be found by name.
	for _, me := range mi.maps {
		ms := spec.Maps[me.Name]
		if ms == nil || ms.Type != ebpf.ProgramArray {
			continue
		}
		if err := me.Each(func(e mapEntry) error {
			if e.Value == nil || e.Value.Kind != yaml.MappingNode {
				return nil
			}
			_, err := mi.otherObject(e, &targets, s)
			return err
		}); err != nil {
			return nil, nil, err
		}
	}
	var updates []Update
	var total uint64
	// Maps of maps before the rest: a new inner map can then be filled by
	// name, wherever the file lists it (before its outer map, it is not
	// there yet in the first pass).
	for _, pass := range []bool{true, false} {
		for _, me := range mi.maps {
			t, name, err := mi.find(targets, me)
			if err != nil && pass {
				continue // the second pass finds it, or says it is missing
			}
			if err != nil {
				return nil, nil, err
			}
			ms := t.spec.Maps[name]
			if isMapOfMaps(ms.Type) != pass {
				continue
			}
			if strings.HasPrefix(name, ".rodata") {
				return nil, nil, mi.fail(me.Line, "map %s holds constants, frozen when the program is loaded: set them by name under variables:", me.Name)
			}
			if err := me.Each(func(e mapEntry) error {
				u, err := mi.resolveEntry(t, targets, name, ms, e)
				if err != nil {
					return err
				}
				if total += u.Entries(); total > MaxMapInitEntries {
					return mi.failEntry(e, "more than %d entries in all, ranges and repeats counted by the entries they fill: each load would spend seconds filling maps", MaxMapInitEntries)
				}
				// Plain entries of one map in a row make one block.
				if len(updates) == 0 || !mapinit.AddToBlock(&updates[len(updates)-1], u) {
					updates = append(updates, u)
				}
				return nil
			}); err != nil {
				return nil, nil, err
			}
		}
	}
	var others []Other
	for _, t := range targets[1:] {
		c := Chosen{Object: Object{Name: t.path}, Info: t.info, Spec: t.spec, Programs: t.programs, Notes: t.notes}
		others = append(others, Other{Prefix: t.prefix, Chosen: c})
	}
	return updates, others, nil
}

// find is the object holding the map an entry list names, and the map's
// name there: the measured object's maps first, then the others' by their
// own name (if only one has it) or as FILE:NAME.
func (mi *MapInit) find(targets []*target, me mapinit.Map) (*target, string, error) {
	if targets[0].spec.Maps[me.Name] != nil {
		return targets[0], me.Name, nil
	}
	var found []*target
	var name string
	for _, t := range targets[1:] {
		n := strings.TrimPrefix(me.Name, t.prefix)
		if t.spec.Maps[n] != nil {
			found, name = append(found, t), n
		}
	}
	switch len(found) {
	case 1:
		return found[0], name, nil
	case 0:
		maps := sortedKeys(targets[0].spec.Maps)
		for _, t := range targets[1:] {
			for _, n := range sortedKeys(t.spec.Maps) {
				maps = append(maps, t.prefix+n)
			}
		}
		return nil, "", mi.fail(me.Line, "the object has no map %q (maps: %s)", me.Name, strings.Join(maps, ", "))
	}
	return nil, "", mi.fail(me.Line, "map %q is in more than one object: name it FILE:NAME", me.Name)
}

// otherObject reads the object a program array's entry names, {object:
// FILE, program: NAME}, FILE relative to the map-init file, once.
func (mi *MapInit) otherObject(e mapEntry, targets *[]*target, s Settings) (*target, error) {
	var file, program string
	for i := 0; i+1 < len(e.Value.Content); i += 2 {
		switch k, v := e.Value.Content[i], e.Value.Content[i+1]; k.Value {
		case "object":
			file = v.Value
		case "program":
			program = v.Value
		default:
			return nil, mi.fail(k.Line, "unknown field %q: a program of another object is {object: FILE, program: NAME}", k.Value)
		}
	}
	if file == "" || program == "" {
		return nil, mi.failEntry(e, "a program of another object is {object: FILE, program: NAME}")
	}
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(mi.file), file)
	}
	prefix := filepath.Base(path) + ":"
	for _, t := range (*targets)[1:] {
		if t.path == path {
			return t, nil
		}
		if t.prefix == prefix {
			return nil, mi.failEntry(e, "two objects named %s", filepath.Base(path))
		}
	}
	obj, err := ReadObject(path)
	if err != nil {
		return nil, mi.failEntry(e, "%v", err)
	}
	spec, info, all, err := obj.choose(program, s)
	if err != nil {
		return nil, mi.failEntry(e, "%v", err)
	}
	// Unpinned, sized and attached as the measured object; --set is for
	// that one.
	notes, err := (&Settings{programType: s.programType, plainXDP: s.plainXDP}).prepare(spec, path)
	if err != nil {
		return nil, mi.failEntry(e, "%v", err)
	}
	t := &target{spec: spec, programs: all, prefix: prefix, path: path, notes: notes, info: info}
	*targets = append(*targets, t)
	return t, nil
}

func (mi *MapInit) fail(line int, format string, args ...any) error {
	return fmt.Errorf("%w: %s:%d: %s", ErrMapInit, mi.file, line, fmt.Sprintf(format, args...))
}

// failEntry refuses an entry, where it is: its line in the map-init
// file, or its number in another file of entries.
func (mi *MapInit) failEntry(e mapEntry, format string, args ...any) error {
	if e.Src != nil {
		return fmt.Errorf("%w: %s: entry %d: %s", ErrMapInit, e.Src.File, e.Line, fmt.Sprintf(format, args...))
	}
	return mi.fail(e.Line, format, args...)
}

func (mi *MapInit) resolveEntry(t *target, targets []*target, name string, ms *ebpf.MapSpec, e mapEntry) (Update, error) {
	u := Update{MapName: t.prefix + name, Type: ms.Type, File: mi.file, Line: e.Line, Src: e.Src}
	name = t.prefix + name // as the user reads it in messages
	keyless := ms.Type == ebpf.Queue || ms.Type == ebpf.Stack || ms.Type == ebpf.BloomFilter
	var err error
	switch {
	case keyless && (e.Key != nil || e.HasKeyHex || e.HasRange):
		return u, mi.failEntry(e, "map %s is a %s: give values only", name, ms.Type)
	case e.Repeat != 0 && ms.Type != ebpf.Queue && ms.Type != ebpf.Stack:
		return u, mi.failEntry(e, "map %s is a %s: repeat is for queues and stacks; a range of keys is keys: {from: N, to: M}", name, ms.Type)
	case e.Repeat > uint64(ms.MaxEntries):
		return u, mi.failEntry(e, "map %s: repeat %d is more than the %d values it holds (max_entries)", name, e.Repeat, ms.MaxEntries)
	case keyless:
		u.Count = max(e.Repeat, 1)
	case e.HasRange:
		if err := mi.resolveKeyRange(name, ms, e, &u); err != nil {
			return u, err
		}
	case e.HasKeyHex:
		u.KeyBytes = e.KeyHex
	case e.Key == nil:
		return u, mi.failEntry(e, "map %s: no key", name)
	default:
		var ok bool
		if u.KeyBytes, ok = mapinit.EncodeNumber(ms.Key, int(ms.KeySize), e.Key); ok {
			break
		}
		if u.KeyBytes, err = btfvalue.EncodeSized(ms.Key, int(ms.KeySize), e.Key, "key_hex"); err != nil {
			return u, mi.failEntry(e, "map %s key: %v", name, err)
		}
	}
	if !keyless && uint32(len(u.KeyBytes)) != ms.KeySize {
		return u, mi.failEntry(e, "map %s: key of %d bytes, the map's are %d", name, len(u.KeyBytes), ms.KeySize)
	}
	if isArray(ms.Type) {
		if i, ok := btfvalue.Uint(u.KeyBytes, 4); ok && i >= uint64(ms.MaxEntries) {
			return u, mi.failEntry(e, "map %s: index %d is beyond its %d entries", name, i, ms.MaxEntries)
		}
	}

	switch {
	case ms.Type == ebpf.ProgramArray && e.Value != nil:
		return u, mi.resolveProgram(t, targets, name, e, &u)
	case isMapOfMaps(ms.Type) && e.Value != nil:
		return u, mi.resolveInner(t, name, ms, e, &u)
	case ms.Type == ebpf.ProgramArray || isMapOfMaps(ms.Type):
		return u, mi.failEntry(e, "map %s is a %s: give its value by name, not in hex", name, ms.Type)
	case isPerCPU(ms.Type):
		u.PerCPU, err = mi.perCPUValues(name, ms, e)
		return u, err
	case len(e.ValueHex) > 1:
		return u, mi.failEntry(e, "map %s is not per-CPU: give one value_hex", name)
	case e.ValueHex != nil:
		u.ValueBytes = e.ValueHex[0]
	default:
		var ok bool
		if u.ValueBytes, ok = mapinit.EncodeNumber(ms.Value, int(ms.ValueSize), e.Value); ok {
			break
		}
		if u.ValueBytes, err = btfvalue.EncodeSized(ms.Value, int(ms.ValueSize), e.Value, "value_hex"); err != nil {
			return u, mi.failEntry(e, "map %s value: %v", name, err)
		}
	}
	if uint32(len(u.ValueBytes)) != ms.ValueSize {
		return u, mi.failEntry(e, "map %s: value of %d bytes, the map's are %d", name, len(u.ValueBytes), ms.ValueSize)
	}
	return u, nil
}

// resolveProgram checks a program array's entry and has its program
// loaded: a program of the same object, by name, or of another, {object:
// FILE, program: NAME}.
func (mi *MapInit) resolveProgram(t *target, targets []*target, name string, e mapEntry, u *Update) error {
	if e.Value.Kind == yaml.MappingNode {
		var file, program string
		for i := 0; i+1 < len(e.Value.Content); i += 2 {
			if e.Value.Content[i].Value == "program" {
				program = e.Value.Content[i+1].Value
			} else {
				file = e.Value.Content[i+1].Value
			}
		}
		i := slices.IndexFunc(targets[1:], func(o *target) bool {
			return o.path == file || o.path == filepath.Join(filepath.Dir(mi.file), file)
		})
		if i < 0 || t != targets[0] {
			return mi.failEntry(e, "map %s: only the measured object's program arrays take programs of other objects", name)
		}
		u.Program = targets[1+i].prefix + program
		return nil
	}
	prog := t.programs[e.Value.Value]
	switch {
	case e.Value.Kind != yaml.ScalarNode:
		return mi.failEntry(e, "map %s is a program array: its value is a program's name, or {object: FILE, program: NAME}", name)
	case prog == nil:
		return mi.failEntry(e, "map %s: the object has no program %q (programs: %s)", name, e.Value.Value, strings.Join(sortedKeys(t.programs), ", "))
	case prog.Type == ebpf.UnspecifiedProgram:
		return mi.failEntry(e, "map %s: program %s is in section %q, which names no type: give the program type", name, e.Value.Value, prog.SectionName)
	}
	t.spec.Programs[e.Value.Value] = prog
	u.Program = t.prefix + e.Value.Value
	return nil
}

func (mi *MapInit) resolveInner(t *target, name string, ms *ebpf.MapSpec, e mapEntry, u *Update) error {
	value := e.Value.Value
	if e.Value.Kind != yaml.ScalarNode {
		return mi.failEntry(e, "map %s is a map of maps: its value is a map's name, or %q for a new map of its inner type", name, innerKeyword)
	}
	if value == innerKeyword && u.Entries() > 1 {
		// A new inner map is named by its key (lru_mapping/0).
		return mi.failEntry(e, "map %s: a range of keys cannot each have a new inner map: give each key its own entry", name)
	}
	own := strings.TrimPrefix(value, t.prefix)
	if t.spec.Maps[own] != nil && t.prefix+own != name {
		u.Inner = t.prefix + own
		return nil
	}
	if value != innerKeyword {
		return mi.failEntry(e, "map %s: the object has no map %q to put in it (maps: %s; or %q for a new map of its inner type)",
			name, value, strings.Join(sortedKeys(t.spec.Maps), ", "), innerKeyword)
	}
	if ms.InnerMap == nil {
		return mi.failEntry(e, "map %s declares no inner map type", name)
	}
	own = fmt.Sprintf("%s/%s", strings.TrimPrefix(name, t.prefix), formatKey(ms.Type, ms.Key, u.KeyBytes))
	if t.spec.Maps[own] == nil {
		inner := ms.InnerMap.Copy()
		inner.Name = own
		t.spec.Maps[own] = inner
	}
	u.Inner = t.prefix + own
	return nil
}

// resolveKeyRange gives a range's update its first key and its count,
// checking that the map's keys are integers that hold the range and that
// the map holds as many entries. Keys count in the key type's byte order:
// the host's, or the network's for a __be16, __be32 or __be64 key.
func (mi *MapInit) resolveKeyRange(name string, ms *ebpf.MapSpec, e mapEntry, u *Update) error {
	size := ms.KeySize
	if ms.Type == ebpf.LPMTrie {
		return mi.failEntry(e, "map %s is an LPM trie: its keys are prefixes, not numbers to count: give each its own entry", name)
	}
	if !btfvalue.IsVoid(ms.Key) {
		switch btf.UnderlyingType(ms.Key).(type) {
		case *btf.Int, *btf.Enum:
		default:
			return mi.failEntry(e, "map %s: keys: {from, to} counts integer keys; the map's key is %s: give each key its own entry", name, typeKind(ms.Key))
		}
	}
	if size != 1 && size != 2 && size != 4 && size != 8 {
		return mi.failEntry(e, "map %s: keys: {from, to} counts integer keys of 1, 2, 4 or 8 bytes; the map's are of %d", name, size)
	}
	if !btfvalue.IsVoid(ms.Key) {
		// The encoding of 1 says the byte order the type's numbers take.
		one, err := btfvalue.EncodeSized(ms.Key, int(size), &yaml.Node{Kind: yaml.ScalarNode, Value: "1", Line: e.Line}, "key_hex")
		if err != nil {
			return mi.failEntry(e, "map %s key: %v", name, err)
		}
		host, network := make([]byte, size), make([]byte, size)
		mapinit.PutKeyNumber(host, binary.NativeEndian, 1)
		mapinit.PutKeyNumber(network, binary.BigEndian, 1)
		switch {
		case bytes.Equal(one, host):
		case bytes.Equal(one, network):
			u.BigEndianKey = true
		default:
			return mi.failEntry(e, "map %s: keys: {from, to} counts integer keys; the map's key %v does not take 1 as the number 1: give each key its own entry", name, ms.Key)
		}
	}
	if bits := 8 * size; bits < 64 && e.To >= 1<<bits {
		return mi.failEntry(e, "map %s: key %d does not fit its keys of %d bytes", name, e.To, size)
	}
	if e.To-e.From >= uint64(ms.MaxEntries) {
		return mi.failEntry(e, "map %s: keys %d to %d are %d, more than its max_entries %d", name, e.From, e.To, e.To-e.From+1, ms.MaxEntries)
	}
	if isArray(ms.Type) && e.To >= uint64(ms.MaxEntries) {
		return mi.failEntry(e, "map %s: keys %d to %d go past its %d entries (indexes 0 to %d)", name, e.From, e.To, ms.MaxEntries, ms.MaxEntries-1)
	}
	u.First, u.Count = e.From, e.To-e.From+1
	u.KeyBytes = make([]byte, size)
	u.PutKey(u.KeyBytes, 0)
	return nil
}

// typeKind names what kind of type t is, for a message.
func typeKind(t btf.Type) string {
	switch t := btf.UnderlyingType(t).(type) {
	case *btf.Struct:
		return "struct " + t.Name
	case *btf.Union:
		return "union " + t.Name
	case *btf.Array:
		return "an array"
	case *btf.Pointer:
		return "a pointer"
	}
	return fmt.Sprintf("%v", t)
}
