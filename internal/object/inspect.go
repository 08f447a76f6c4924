package object

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
)

// MapInfo describes a map of an object, for a user writing a --map-init
// file.
type MapInfo struct {
	Name       string
	Type       string
	Key        string // the key's C type, or its size without BTF
	Value      string // likewise
	KeySize    uint32
	ValueSize  uint32
	MaxEntries uint32 // 0: sized by the loader
	// Notes: pinned by name, per-CPU, static entries, the inner map.
	Notes []string
}

// VariableInfo describes a global variable, for --set.
type VariableInfo struct {
	Name    string
	Section string
	Type    string
	Size    uint32
	Value   string // the initial value
	// Constant: in .rodata, set before loading only.
	Constant bool
}

// Maps lists the maps of the object, sorted by name.
func (o Object) Maps() ([]MapInfo, error) {
	spec, err := o.spec()
	if err != nil {
		return nil, err
	}
	var infos []MapInfo
	for _, name := range sortedKeys(spec.Maps) {
		ms := spec.Maps[name]
		info := MapInfo{
			Name: name, Type: ms.Type.String(), MaxEntries: ms.MaxEntries,
			Key: typeOrSize(ms.Key, ms.KeySize), Value: typeOrSize(ms.Value, ms.ValueSize),
			KeySize: ms.KeySize, ValueSize: ms.ValueSize,
		}
		if ms.Pinning != ebpf.PinNone {
			info.Notes = append(info.Notes, "pinned by name")
		}
		if isPerCPU(ms.Type) {
			info.Notes = append(info.Notes, "per-CPU")
		}
		if ms.MaxEntries == 0 && needsSize(ms.Type) {
			info.Notes = append(info.Notes, "no max_entries")
		}
		if ms.InnerMap != nil {
			in := ms.InnerMap
			info.Notes = append(info.Notes, fmt.Sprintf("inner: %s of %s -> %s, %d entries",
				in.Type, typeOrSize(in.Key, in.KeySize), typeOrSize(in.Value, in.ValueSize), in.MaxEntries))
		}
		var static []string
		for _, kv := range ms.Contents {
			if s, ok := kv.Value.(string); ok {
				static = append(static, fmt.Sprintf("%v: %s", kv.Key, s))
			}
		}
		if len(static) > 0 {
			info.Notes = append(info.Notes, "holds "+strings.Join(static, ", "))
		}
		infos = append(infos, info)
	}
	return infos, nil
}

// Variables lists the global variables of .rodata, .data and .bss, sorted
// by name.
func (o Object) Variables() ([]VariableInfo, error) {
	spec, err := o.spec()
	if err != nil {
		return nil, err
	}
	var infos []VariableInfo
	for _, name := range sortedKeys(spec.Variables) {
		vs := spec.Variables[name]
		if !isDataSection(vs.SectionName) {
			continue
		}
		info := VariableInfo{Name: name, Section: vs.SectionName, Size: vs.Size(), Constant: vs.Constant()}
		var t btf.Type
		if vs.Type != nil {
			t = vs.Type.Type
			info.Type = CType(t)
		}
		value := vs.Value
		if value == nil { // .bss
			value = make([]byte, vs.Size())
		}
		info.Value = btfvalue.Format(t, value)
		infos = append(infos, info)
	}
	return infos, nil
}

// typeOrSize is a key's or value's C type, a struct's or union's with
// its members, or its size without BTF.
func typeOrSize(t btf.Type, size uint32) string {
	switch tt := t.(type) {
	case nil, *btf.Void:
		return fmt.Sprintf("%d bytes", size)
	case *btf.Struct:
		if tt.Name != "" {
			return CType(t) + " {" + members(tt.Members, 0) + "}"
		}
	case *btf.Union:
		if tt.Name != "" {
			return CType(t) + " {" + members(tt.Members, 0) + "}"
		}
	}
	return CType(t)
}

// CType writes a BTF type as C would declare it, naming its members for
// anonymous structs and unions.
func CType(t btf.Type) string { return cType(t, 0) }

func cType(t btf.Type, depth int) string {
	if depth > 8 {
		return "…"
	}
	switch t := t.(type) {
	case nil, *btf.Void:
		return "void"
	case *btf.Int:
		return t.Name
	case *btf.Float:
		return t.Name
	case *btf.Typedef:
		return t.Name
	case *btf.Enum:
		return named("enum", t.Name, func() string { return enumValues(t) })
	case *btf.Struct:
		return named("struct", t.Name, func() string { return members(t.Members, depth) })
	case *btf.Union:
		return named("union", t.Name, func() string { return members(t.Members, depth) })
	case *btf.Array:
		return fmt.Sprintf("%s[%d]", cType(t.Type, depth+1), t.Nelems)
	case *btf.Pointer:
		return cType(t.Target, depth+1) + " *"
	case *btf.Const:
		return "const " + cType(t.Type, depth+1)
	case *btf.Volatile:
		return "volatile " + cType(t.Type, depth+1)
	case *btf.Datasec:
		return "section " + t.Name
	}
	return fmt.Sprintf("%v", t)
}

func named(kind, name string, body func() string) string {
	if name != "" {
		return kind + " " + name
	}
	return kind + " {" + body() + "}"
}

func members(ms []btf.Member, depth int) string {
	var parts []string
	for _, m := range ms {
		part := declaration(m.Type, m.Name, depth+1)
		if m.BitfieldSize != 0 {
			part += fmt.Sprintf(":%d", m.BitfieldSize)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}

// declaration is a member's C declaration: arrays' sizes follow the name.
func declaration(t btf.Type, name string, depth int) string {
	if a, ok := t.(*btf.Array); ok {
		return declaration(a.Type, fmt.Sprintf("%s[%d]", name, a.Nelems), depth)
	}
	if name == "" {
		return cType(t, depth)
	}
	return cType(t, depth) + " " + name
}

func enumValues(e *btf.Enum) string {
	var names []string
	for _, v := range e.Values {
		names = append(names, v.Name)
	}
	return strings.Join(slices.Clip(names), ", ")
}
