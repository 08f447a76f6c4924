package mapinit

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/cilium/ebpf"
)

// Update is one resolved entry, or a range of keys holding one value, or
// a value a queue or stack takes several times, or a block of plain
// entries of one map, resolved together.
type Update struct {
	MapName string
	Type    ebpf.MapType
	// File and Line are where the entry is (a block's first); Src says
	// Line is the entry's number in another file.
	File string
	Line int
	Src  *Source
	// KeyBytes is nil for queues, stacks and bloom filters; a range's
	// first key.
	KeyBytes []byte
	// ValueBytes is the entry's value (a block's first).
	ValueBytes []byte
	// PerCPU is a per-CPU map's value, one per possible CPU.
	PerCPU [][]byte
	// Program is the program a program array's entry holds; Inner the
	// map a map of maps' entry holds.
	Program, Inner string
	// Count is how many keys from First up hold the value (a range), or
	// how many times a queue or stack takes it (repeat); 0 is one. The
	// value is encoded once however many entries it fills.
	Count uint64
	First uint64
	// BigEndianKey: a range's keys are in network byte order (a __be32
	// key), else the host's.
	BigEndianKey bool
	// Block holds the keys and values of a run of plain entries of the
	// map, back to back: a million entries take their bytes and a line
	// number each, not an Update each.
	Block *Block
}

// Block is consecutive plain entries of one map (AddToBlock).
type Block struct {
	Keys, Values []byte
	Lines        []int32
}

// Entries is how many entries the update puts.
func (u Update) Entries() uint64 {
	if u.Block != nil {
		return uint64(len(u.Block.Lines))
	}
	return max(u.Count, 1)
}

// PutKey writes the update's i-th key into dst, of the key's size.
func (u Update) PutKey(dst []byte, i uint64) {
	if u.Block != nil {
		copy(dst, u.Block.Keys[int(i)*len(dst):])
		return
	}
	if u.Count <= 1 || u.KeyBytes == nil {
		copy(dst, u.KeyBytes)
		return
	}
	var order binary.ByteOrder = binary.NativeEndian
	if u.BigEndianKey {
		order = binary.BigEndian
	}
	PutKeyNumber(dst, order, u.First+i)
}

// ValueAt is the update's i-th value.
func (u Update) ValueAt(i uint64) []byte {
	if u.Block == nil {
		return u.ValueBytes
	}
	n := uint64(len(u.ValueBytes))
	return u.Block.Values[i*n : (i+1)*n]
}

// WhereAt is the place of the update's i-th entry.
func (u Update) WhereAt(i uint64) string {
	line := u.Line
	if u.Block != nil {
		line = int(u.Block.Lines[i])
	}
	if u.Src != nil {
		return fmt.Sprintf("%s: entry %d", u.Src.File, line)
	}
	return fmt.Sprintf("%s:%d", u.File, line)
}

// AddToBlock adds u, resolved from one entry, to the block last, where it
// continues one, and says whether it did: a plain entry (a key and one
// value) of the same map and source.
func AddToBlock(last *Update, u Update) bool {
	plain := func(u Update) bool {
		return u.KeyBytes != nil && u.Count <= 1 && u.PerCPU == nil && u.Program == "" && u.Inner == "" && u.Line <= math.MaxInt32
	}
	if !plain(u) || last.MapName != u.MapName || last.Src != u.Src || last.File != u.File ||
		!plain(*last) && last.Block == nil || len(last.KeyBytes) != len(u.KeyBytes) || len(last.ValueBytes) != len(u.ValueBytes) {
		return false
	}
	if last.Block == nil {
		last.Block = &Block{Keys: slices.Clone(last.KeyBytes), Values: slices.Clone(last.ValueBytes), Lines: []int32{int32(last.Line)}}
	}
	b := last.Block
	b.Keys, b.Values, b.Lines = append(b.Keys, u.KeyBytes...), append(b.Values, u.ValueBytes...), append(b.Lines, int32(u.Line))
	return true
}

// PutKeyNumber writes v into dst, an integer key of 1, 2, 4 or 8 bytes.
func PutKeyNumber(dst []byte, order binary.ByteOrder, v uint64) {
	switch len(dst) {
	case 1:
		dst[0] = byte(v)
	case 2:
		order.PutUint16(dst, uint16(v))
	case 4:
		order.PutUint32(dst, uint32(v))
	case 8:
		order.PutUint64(dst, v)
	}
}

// Map is the name of the map the update fills.
func (u Update) Map() string { return u.MapName }

// MapType is the type of the map the update fills.
func (u Update) MapType() ebpf.MapType { return u.Type }

// Where is the entry's place in the map-init file, FILE:LINE (a block's
// first entry's), or FILE: entry N in a file of entries.
func (u Update) Where() string { return u.WhereAt(0) }

// Key is the entry's key as the map takes it, a range's or a block's
// first; nil for queues, stacks and bloom filters.
func (u Update) Key() []byte { return u.KeyBytes }

// Value is the entry's value as the map takes it (a block's first); nil
// for a per-CPU map's entry, a program array's and a map of maps'.
func (u Update) Value() []byte { return u.ValueBytes }
