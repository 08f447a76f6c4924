package worst

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
)

// mutator changes packets: a field of a layer at a time, through the
// shape, or a few bytes of the frame, for what the layers cannot say
// (a length that lies, a header cut short). Its values come from the
// program's dictionaries when the guidance allows, else from the values
// that break parsers most often (AFL's "interesting" values), small steps
// and chance.
type mutator struct {
	rng   *rand.Rand
	dicts []*dictionary // those the guidance allows, none empty
}

// interesting are values of 1, 2 and 4 bytes at the edges of what
// parsers expect.
var interesting = [3][]uint64{
	{0, 1, 2, 4, 8, 16, 32, 64, 100, 127, 128, 254, 255},
	{0, 1, 128, 255, 256, 512, 1000, 1024, 1500, 4096, 32767, 32768, 65534, 65535},
	{0, 1, 255, 256, 65535, 65536, 1 << 24, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff},
}

func (m *mutator) n(k int) int { return m.rng.IntN(k) }

// fromDict is a value of width bytes from one of the dictionaries.
func (m *mutator) fromDict(width int) (uint64, bool) {
	if len(m.dicts) == 0 {
		return 0, false
	}
	vals := m.dicts[m.n(len(m.dicts))].values[widthIndex(width)]
	if len(vals) == 0 {
		return 0, false
	}
	return vals[m.n(len(vals))], true
}

// dictString is a byte string from one of the dictionaries, of length
// size if size > 0.
func (m *mutator) dictString(size int) ([]byte, bool) {
	if len(m.dicts) == 0 {
		return nil, false
	}
	strs := m.dicts[m.n(len(m.dicts))].strings
	if size == 0 && len(strs) > 0 {
		return strs[m.n(len(strs))], true
	}
	// A few tries: most strings are of other lengths.
	for range 4 {
		if len(strs) == 0 {
			break
		}
		if s := strs[m.n(len(strs))]; len(s) == size {
			return s, true
		}
	}
	return nil, false
}

// value is a new value for a field of width 1, 2 or 4 bytes that holds
// old.
func (m *mutator) value(old uint64, width int) uint64 {
	mask := uint64(1)<<(8*width) - 1
	switch r := m.n(16); {
	case r < 6:
		if v, ok := m.fromDict(width); ok {
			return v
		}
	case r < 9:
		list := interesting[widthIndex(width)]
		return list[m.n(len(list))] & mask
	case r < 13:
		d := uint64(1 + m.n(16))
		if m.n(2) == 0 {
			d = -d
		}
		if width > 1 && m.n(4) == 0 { // the other byte order's arithmetic
			return swap((swap(old, width)+d)&mask, width)
		}
		return (old + d) & mask
	case r < 14:
		return old ^ 1<<m.n(8*width)
	}
	return m.rng.Uint64() & mask
}

func (m *mutator) set8(p *uint8)   { *p = uint8(m.value(uint64(*p), 1)) }
func (m *mutator) set16(p *uint16) { *p = uint16(m.value(uint64(*p), 2)) }
func (m *mutator) set32(p *uint32) { *p = uint32(m.value(uint64(*p), 4)) }

// bytes are n bytes: zeros, one byte repeated, or chance.
func (m *mutator) bytes(n int) []byte {
	b := make([]byte, n)
	switch m.n(3) {
	case 0:
	case 1:
		c := byte(m.value(0, 1))
		for i := range b {
			b[i] = c
		}
	default:
		for i := range b {
			b[i] = byte(m.rng.Uint32())
		}
	}
	return b
}

var specialAddr4 = [][4]byte{{0, 0, 0, 0}, {255, 255, 255, 255}, {127, 0, 0, 1}, {10, 0, 0, 1}, {224, 0, 0, 1}, {169, 254, 0, 1}, {192, 0, 2, 1}}

func (m *mutator) addr4(a *[4]byte) {
	switch m.n(4) {
	case 0:
		binary.BigEndian.PutUint32(a[:], uint32(m.value(uint64(binary.BigEndian.Uint32(a[:])), 4)))
	case 1:
		m.set8(&a[m.n(4)])
	case 2:
		if v, ok := m.fromDict(4); ok {
			binary.BigEndian.PutUint32(a[:], uint32(v))
			return
		}
		*a = specialAddr4[m.n(len(specialAddr4))]
	default:
		*a = specialAddr4[m.n(len(specialAddr4))]
	}
}

var specialAddr16 = [][16]byte{
	{},
	{15: 1},
	{0: 0xff, 1: 0x02, 15: 1},
	{0: 0xfe, 1: 0x80, 15: 1},
	{0: 0x20, 1: 0x01, 2: 0x0d, 3: 0xb8, 15: 1},
	{10: 0xff, 11: 0xff, 12: 192, 13: 0, 14: 2, 15: 1},
}

func (m *mutator) addr16(a *[16]byte) {
	switch m.n(5) {
	case 0:
		if s, ok := m.dictString(16); ok {
			copy(a[:], s)
			return
		}
		*a = specialAddr16[m.n(len(specialAddr16))]
	case 1:
		binary.BigEndian.PutUint32(a[12:], uint32(m.value(uint64(binary.BigEndian.Uint32(a[12:])), 4)))
	case 2:
		m.set8(&a[m.n(16)])
	case 3:
		binary.BigEndian.PutUint16(a[:], uint16(m.value(uint64(binary.BigEndian.Uint16(a[:])), 2)))
	default:
		*a = specialAddr16[m.n(len(specialAddr16))]
	}
}

var specialMACs = [][6]byte{
	{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {0x01, 0x00, 0x5e, 0, 0, 1}, {0x33, 0x33, 0, 0, 0, 1},
	{}, {0x02, 0, 0, 0, 0, 1}, {0x02, 0, 0, 0, 0, 2}, {0x01, 0x80, 0xc2, 0, 0, 0x0e},
}

func (m *mutator) mac(a *[6]byte) {
	switch m.n(3) {
	case 0:
		if s, ok := m.dictString(6); ok {
			copy(a[:], s)
			return
		}
		*a = specialMACs[m.n(len(specialMACs))]
	case 1:
		m.set8(&a[m.n(6)])
	default:
		*a = specialMACs[m.n(len(specialMACs))]
	}
}

// option lists: add, drop or change one, keeping the list within room
// bytes (40 for IPv4's and TCP's).
func (m *mutator) options(opts []option, kinds []uint8, room int) []option {
	switch r := m.n(4); {
	case r == 0 && len(opts) > 0:
		i := m.n(len(opts))
		return slices.Delete(opts, i, i+1)
	case r == 1 && len(opts) > 0:
		o := &opts[m.n(len(opts))]
		if len(o.data) > 0 && m.n(2) == 0 {
			m.set8(&o.data[m.n(len(o.data))])
		} else {
			m.set8(&o.kind)
		}
		return opts
	}
	kind := kinds[m.n(len(kinds))]
	if v, ok := m.fromDict(1); ok && m.n(3) == 0 {
		kind = uint8(v)
	}
	o := option{kind: kind}
	if kind > 1 {
		o.data = m.bytes(m.n(9))
	}
	used := 0
	for _, x := range append(opts, o) {
		used += 1
		if x.kind > 1 {
			used += 1 + len(x.data)
		}
	}
	if used > room {
		return opts
	}
	return slices.Insert(opts, m.n(len(opts)+1), o)
}

// patch is a raw change to a frame, applied after it is built: bytes set
// or XORed at an offset (past the end, the frame grows), or the frame cut.
type patch struct {
	kind patchKind
	at   int
	data []byte
}

type patchKind uint8

const (
	patchSet patchKind = iota
	patchXor
	patchCut
)

// apply changes frame, which it may return grown or cut.
func (p patch) apply(frame []byte) []byte {
	switch p.kind {
	case patchCut:
		if p.at >= 14 && p.at < len(frame) {
			return frame[:p.at]
		}
		return frame
	}
	if end := p.at + len(p.data); end > len(frame) {
		if end > maxFrame {
			return frame
		}
		frame = append(frame, make([]byte, end-len(frame))...)
	}
	for i, b := range p.data {
		if p.kind == patchXor {
			frame[p.at+i] ^= b
		} else {
			frame[p.at+i] = b
		}
	}
	return frame
}

// patch is a raw change for a frame of length bytes, mostly in its
// headers.
func (m *mutator) patch(length int) patch {
	at := m.n(max(length, 1))
	if m.n(2) == 0 {
		at = m.n(min(max(length, 1), 64))
	}
	switch m.n(8) {
	case 0, 1:
		return patch{kind: patchXor, at: at, data: []byte{1 << m.n(8)}}
	case 2:
		return patch{kind: patchSet, at: at, data: []byte{byte(m.value(0, 1))}}
	case 3:
		width := 2 << m.n(2)
		b := make([]byte, width)
		v := m.value(0, width)
		if width == 2 {
			binary.BigEndian.PutUint16(b, uint16(v))
		} else {
			binary.BigEndian.PutUint32(b, uint32(v))
		}
		if m.n(2) == 0 {
			slices.Reverse(b)
		}
		return patch{kind: patchSet, at: at, data: b}
	case 4, 5:
		if s, ok := m.dictString(0); ok {
			return patch{kind: patchSet, at: at, data: s}
		}
		return patch{kind: patchXor, at: at, data: []byte{0xff}}
	case 6:
		return patch{kind: patchCut, at: 14 + m.n(max(length-14, 1))}
	}
	return patch{kind: patchSet, at: length, data: m.bytes(1 + m.n(16))}
}
