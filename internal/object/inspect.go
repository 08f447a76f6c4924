package object

import (
	"fmt"
	"strings"
	"unicode/utf8"

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

// maxZeroFormatted is the largest .bss variable whose zero value is
// formatted by its type: a larger one is said to be zero, not allocated
// (crafted BTF may claim gigabytes).
const maxZeroFormatted = 64 << 10

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
			if vs.Size() > maxZeroFormatted {
				info.Value = fmt.Sprintf("zero (%d bytes)", vs.Size())
				infos = append(infos, info)
				continue
			}
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
			return CType(t) + " {" + writeC(func(w *cWriter) { w.members(tt.Members, 0) }) + "}"
		}
	case *btf.Union:
		if tt.Name != "" {
			return CType(t) + " {" + writeC(func(w *cWriter) { w.members(tt.Members, 0) }) + "}"
		}
	}
	return CType(t)
}

// Limits of a C declaration: crafted BTF may nest anonymous structs of
// a thousand members in others, or name them with megabytes.
const (
	maxCTypeDepth = 8
	maxCType      = 1024 // characters, then "…"
	maxCTypeSteps = 2000 // types written
)

// CType writes a BTF type as C would declare it, naming its members for
// anonymous structs and unions; at most about maxCType characters.
func CType(t btf.Type) string {
	return writeC(func(w *cWriter) { w.cType(t, 0) })
}

// cWriter writes C declarations, and stops at a limit.
type cWriter struct {
	strings.Builder
	steps int
}

func writeC(write func(*cWriter)) string {
	var w cWriter
	write(&w)
	if w.full() {
		s := w.String()
		n := min(len(s), maxCType)
		for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n] + "…"
	}
	return w.String()
}

func (w *cWriter) full() bool { return w.Len() > maxCType || w.steps > maxCTypeSteps }

func (w *cWriter) cType(t btf.Type, depth int) {
	w.steps++
	if w.full() {
		return
	}
	if depth > maxCTypeDepth {
		w.WriteString("…")
		return
	}
	switch t := t.(type) {
	case nil, *btf.Void:
		w.WriteString("void")
	case *btf.Int:
		w.WriteString(t.Name)
	case *btf.Float:
		w.WriteString(t.Name)
	case *btf.Typedef:
		w.WriteString(t.Name)
	case *btf.Enum:
		w.named("enum", t.Name, func() { w.enumValues(t) })
	case *btf.Struct:
		w.named("struct", t.Name, func() { w.members(t.Members, depth) })
	case *btf.Union:
		w.named("union", t.Name, func() { w.members(t.Members, depth) })
	case *btf.Array:
		w.cType(t.Type, depth+1)
		fmt.Fprintf(w, "[%d]", t.Nelems)
	case *btf.Pointer:
		w.cType(t.Target, depth+1)
		w.WriteString(" *")
	case *btf.Const:
		w.WriteString("const ")
		w.cType(t.Type, depth+1)
	case *btf.Volatile:
		w.WriteString("volatile ")
		w.cType(t.Type, depth+1)
	case *btf.Datasec:
		w.WriteString("section " + t.Name)
	default:
		fmt.Fprintf(w, "%v", t)
	}
}

func (w *cWriter) named(kind, name string, body func()) {
	w.WriteString(kind + " ")
	if name != "" {
		w.WriteString(name)
		return
	}
	w.WriteString("{")
	body()
	w.WriteString("}")
}

func (w *cWriter) members(ms []btf.Member, depth int) {
	for i, m := range ms {
		if w.full() {
			return
		}
		if i > 0 {
			w.WriteString("; ")
		}
		w.declaration(m.Type, m.Name, depth+1)
		if m.BitfieldSize != 0 {
			fmt.Fprintf(w, ":%d", m.BitfieldSize)
		}
	}
}

// declaration is a member's C declaration: arrays' sizes follow the name.
func (w *cWriter) declaration(t btf.Type, name string, depth int) {
	var dims string
	for range maxCTypeDepth {
		a, ok := t.(*btf.Array)
		if !ok {
			break
		}
		dims += fmt.Sprintf("[%d]", a.Nelems)
		t = a.Type
	}
	w.cType(t, depth)
	if name+dims != "" {
		w.WriteString(" " + name + dims)
	}
}

func (w *cWriter) enumValues(e *btf.Enum) {
	for i, v := range e.Values {
		if w.full() {
			return
		}
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString(v.Name)
	}
}
