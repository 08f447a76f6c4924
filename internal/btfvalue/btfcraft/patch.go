package btfcraft

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
)

// BTF is the .BTF section of an object's bytes, changed in place.
type BTF struct {
	order   binary.ByteOrder
	types   []byte // the type section, a slice of the object's bytes
	strings []byte
	offsets []int // each type's offset in types, by ID; 0 is void
}

// Member is one member of a struct or union, changed in place.
type Member struct {
	order     binary.ByteOrder
	raw       []byte // name_off, type, offset
	bitfields bool   // the struct's kind_flag: offset holds a bitfield's size too
}

const (
	kindInt = iota + 1
	kindPtr
	kindArray
	kindStruct
	kindUnion
	kindEnum
	kindFwd
	kindTypedef
	kindVolatile
	kindConst
	kindRestrict
	kindFunc
	kindFuncProto
	kindVar
	kindDatasec
	kindFloat
	kindDeclTag
	kindTypeTag
	kindEnum64
)

// Open finds the .BTF section of obj, an ELF object's bytes.
func Open(obj []byte) (*BTF, error) {
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil, err
	}
	sec := f.Section(".BTF")
	if sec == nil {
		return nil, errors.New("no .BTF section")
	}
	if sec.Offset+sec.Size > uint64(len(obj)) || sec.Size < 24 {
		return nil, errors.New(".BTF out of the file")
	}
	raw := obj[sec.Offset : sec.Offset+sec.Size]
	var order binary.ByteOrder = binary.LittleEndian
	if binary.BigEndian.Uint16(raw) == 0xeb9f {
		order = binary.BigEndian
	} else if order.Uint16(raw) != 0xeb9f {
		return nil, errors.New("no BTF magic")
	}
	hdrLen, typeOff, typeLen := order.Uint32(raw[4:]), order.Uint32(raw[8:]), order.Uint32(raw[12:])
	strOff, strLen := order.Uint32(raw[16:]), order.Uint32(raw[20:])
	if uint64(hdrLen)+uint64(typeOff)+uint64(typeLen) > uint64(len(raw)) || uint64(hdrLen)+uint64(strOff)+uint64(strLen) > uint64(len(raw)) {
		return nil, errors.New("BTF sections out of .BTF")
	}
	b := &BTF{
		order:   order,
		types:   raw[hdrLen+typeOff : hdrLen+typeOff+typeLen],
		strings: raw[hdrLen+strOff : hdrLen+strOff+strLen],
		offsets: []int{0},
	}
	for off := 0; off < len(b.types); {
		if off+12 > len(b.types) {
			return nil, errors.New("truncated type")
		}
		b.offsets = append(b.offsets, off)
		info := order.Uint32(b.types[off+4:])
		vlen, kind := int(info&0xffff), int(info>>24&0x1f)
		off += 12
		switch kind {
		case kindInt, kindVar, kindDeclTag:
			off += 4
		case kindArray:
			off += 12
		case kindStruct, kindUnion, kindDatasec, kindEnum64:
			off += 12 * vlen
		case kindEnum, kindFuncProto:
			off += 8 * vlen
		case kindPtr, kindFwd, kindTypedef, kindVolatile, kindConst, kindRestrict, kindFunc, kindFloat, kindTypeTag:
		default:
			return nil, fmt.Errorf("type %d: unknown kind %d", len(b.offsets)-1, kind)
		}
	}
	return b, nil
}

func (b *BTF) name(off uint32) string {
	if int(off) >= len(b.strings) {
		return ""
	}
	s := b.strings[off:]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return string(s)
}

// TypeID is the ID of the first type of that name and kind struct,
// union, typedef or int.
func (b *BTF) TypeID(name string) (uint32, error) {
	for id, off := range b.offsets[1:] {
		if b.name(b.order.Uint32(b.types[off:])) == name {
			return uint32(id + 1), nil
		}
	}
	return 0, fmt.Errorf("no type %q", name)
}

// Member finds a member of the struct or union of that name.
func (b *BTF) Member(typeName, member string) (*Member, error) {
	id, err := b.TypeID(typeName)
	if err != nil {
		return nil, err
	}
	off := b.offsets[id]
	info := b.order.Uint32(b.types[off+4:])
	if kind := int(info >> 24 & 0x1f); kind != kindStruct && kind != kindUnion {
		return nil, fmt.Errorf("%s is no struct or union", typeName)
	}
	for i := range int(info & 0xffff) {
		raw := b.types[off+12+12*i : off+24+12*i]
		if b.name(b.order.Uint32(raw)) == member {
			return &Member{order: b.order, raw: raw, bitfields: info>>31 != 0}, nil
		}
	}
	return nil, fmt.Errorf("%s has no member %q", typeName, member)
}

// SetType makes the member of the type of that ID.
func (m *Member) SetType(id uint32) { m.order.PutUint32(m.raw[4:], id) }

// SetOffset moves the member to bits from its struct's start.
func (m *Member) SetOffset(bits uint32) {
	if m.bitfields {
		bits = bits&0xffffff | m.order.Uint32(m.raw[8:])&^0xffffff
	}
	m.order.PutUint32(m.raw[8:], bits)
}

// SetAnonymous takes the member's name away, as C's anonymous structs and
// unions have none.
func (m *Member) SetAnonymous() { m.order.PutUint32(m.raw, 0) }

// OuterHoldsItself edits bpf/testdata/nested.o's BTF so that struct
// outer's member "in" is an anonymous outer: a struct that holds itself.
func OuterHoldsItself(b *BTF) error {
	m, err := b.Member("outer", "in")
	if err != nil {
		return err
	}
	id, err := b.TypeID("outer")
	m.SetType(id)
	m.SetAnonymous()
	return err
}

// InnerMemberPastEnd edits bpf/testdata/nested.o's BTF so that struct
// inner's member "a" lies at bit 1024, past the struct's end.
func InnerMemberPastEnd(b *BTF) error {
	m, err := b.Member("inner", "a")
	if err == nil {
		m.SetOffset(1024)
	}
	return err
}
