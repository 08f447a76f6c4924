package btfcraft

import (
	"encoding/binary"

	"github.com/cilium/ebpf/btf"
)

// Hostile builds a graph of up to 8 BTF types from fuzz bytes and returns
// the first: kinds, sizes, counts, offsets, bitfields and references all
// come from the bytes, so that types hold themselves, nest through
// typedefs and anonymous members, claim more bytes than they have, and
// place members past their ends, as crafted objects do.
func Hostile(data []byte) btf.Type {
	r := &reader{data: data}
	n := 1 + int(r.byte()%8)
	types := make([]btf.Type, n)
	kinds := make([]byte, n)
	for i := range types {
		kinds[i] = r.byte() % 9
		switch kinds[i] {
		case 0:
			types[i] = &btf.Int{Name: "int", Size: r.size(), Encoding: btf.IntEncoding(r.byte() % 8)}
		case 1:
			e := &btf.Enum{Name: "e", Size: r.size(), Signed: r.byte()%2 == 0}
			for range r.byte() % 4 {
				e.Values = append(e.Values, btf.EnumValue{Name: r.name(), Value: uint64(r.byte())})
			}
			types[i] = e
		case 2:
			types[i] = &btf.Struct{Name: "s", Size: r.size()}
		case 3:
			types[i] = &btf.Union{Name: "u", Size: r.size()}
		case 4:
			types[i] = &btf.Array{Nelems: r.count()}
		case 5:
			names := []string{"t", "__be16", "__be32", "__be64"}
			types[i] = &btf.Typedef{Name: names[r.byte()%4]}
		case 6:
			types[i] = &btf.Const{}
		case 7:
			types[i] = &btf.Datasec{Name: ".data", Size: r.size()}
		case 8:
			types[i] = &btf.Pointer{}
		}
	}
	ref := func() btf.Type { return types[int(r.byte())%n] }
	for _, t := range types {
		switch t := t.(type) {
		case *btf.Struct:
			t.Members = r.members(ref)
		case *btf.Union:
			t.Members = r.members(ref)
		case *btf.Array:
			t.Type, t.Index = ref(), &btf.Int{Name: "u32", Size: 4}
		case *btf.Typedef:
			t.Type = ref()
		case *btf.Const:
			t.Type = ref()
		case *btf.Pointer:
			t.Target = ref()
		case *btf.Datasec:
			for range r.byte() % 4 {
				t.Vars = append(t.Vars, btf.VarSecinfo{
					Type: &btf.Var{Name: r.name(), Type: ref()}, Offset: r.offset(), Size: r.size()})
			}
		}
	}
	return types[0]
}

type reader struct {
	data []byte
	at   int
}

func (r *reader) byte() byte {
	if r.at >= len(r.data) {
		return 0
	}
	r.at++
	return r.data[r.at-1]
}

func (r *reader) uint32() uint32 {
	var b [4]byte
	for i := range b {
		b[i] = r.byte()
	}
	return binary.LittleEndian.Uint32(b[:])
}

// size is a type's size: small and plausible mostly, any 32-bit number
// at times.
func (r *reader) size() uint32 {
	switch b := r.byte(); {
	case b < 200:
		return uint32(b % 33)
	case b < 250:
		return uint32(b) * 64
	default:
		return r.uint32()
	}
}

// count is an array's element count, likewise.
func (r *reader) count() uint32 {
	switch b := r.byte(); {
	case b < 240:
		return uint32(b % 20)
	default:
		return r.uint32()
	}
}

// offset is a member's offset in bits, likewise.
func (r *reader) offset() uint32 {
	switch b := r.byte(); {
	case b < 230:
		return uint32(b%32) * 8
	case b < 250:
		return uint32(b)
	default:
		return r.uint32()
	}
}

func (r *reader) name() string {
	return []string{"", "a", "b", "c"}[r.byte()%4]
}

// members are up to 7 members, or now and then a thousand: wide types in
// wide types.
func (r *reader) members(ref func() btf.Type) []btf.Member {
	n := int(r.byte())
	if n < 250 {
		n %= 8
	} else {
		n = 1000
	}
	ms := make([]btf.Member, n)
	for i := range ms {
		ms[i] = btf.Member{Name: r.name(), Type: ref(), Offset: btf.Bits(r.offset())}
		if b := r.byte(); b > 220 {
			ms[i].BitfieldSize = btf.Bits(b - 220)
		}
	}
	return ms
}
