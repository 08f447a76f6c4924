package worst

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// dictionary holds values a program suggests for its packets' fields:
// what its conditional jumps compare against, or the keys in its maps.
// A random 16-bit port matches a program's one port once in 65536 tries;
// the program's own constants find it at once.
type dictionary struct {
	// values are integers for fields of 1, 2 and 4 bytes, as the field
	// holds them read in network order.
	values [3][]uint64
	// strings are byte strings to write anywhere in a frame.
	strings [][]byte
	seen    map[string]bool
}

func newDictionary() *dictionary { return &dictionary{seen: map[string]bool{}} }

// widthIndex is the index in values of a width of 1, 2 or 4 bytes.
func widthIndex(width int) int { return bits.TrailingZeros(uint(width)) }

func (d *dictionary) addValue(width int, v uint64) {
	v &= 1<<(8*width) - 1
	key := fmt.Sprintf("%d:%d", width, v)
	if !d.seen[key] {
		d.seen[key] = true
		d.values[widthIndex(width)] = append(d.values[widthIndex(width)], v)
	}
}

func (d *dictionary) addString(b []byte) {
	key := "s:" + string(b)
	if len(b) > 0 && !d.seen[key] {
		d.seen[key] = true
		d.strings = append(d.strings, slices.Clone(b))
	}
}

func (d *dictionary) empty() bool {
	return len(d.values[0]) == 0 && len(d.values[1]) == 0 && len(d.values[2]) == 0 && len(d.strings) == 0
}

// size is the number of entries, for the report.
func (d *dictionary) size() int {
	return len(d.values[0]) + len(d.values[1]) + len(d.values[2]) + len(d.strings)
}

// addConstant adds c for every field width it fits, in both byte orders:
// a program compares a field with a constant after converting it to host
// order (bpf_ntohs), or the raw field with the constant converted
// (bpf_htons). Bounds (c > 1023) add their neighbours too.
func (d *dictionary) addConstant(c int64, bound bool) {
	for _, width := range []int{1, 2, 4} {
		limit := int64(1) << (8 * width)
		if c >= limit || c < -limit/2 {
			continue
		}
		v := uint64(c) & uint64(limit-1)
		vals := []uint64{v}
		if bound {
			vals = append(vals, v+1, v-1)
		}
		for _, x := range vals {
			d.addValue(width, x)
			d.addValue(width, swap(x, width))
		}
	}
	if c > 0xff || c < -0x80 {
		var be, le [8]byte
		binary.BigEndian.PutUint64(be[:], uint64(c))
		binary.LittleEndian.PutUint64(le[:], uint64(c))
		n := 2
		for n < 8 && (c >= int64(1)<<(8*n) || c < -(int64(1)<<(8*n-1))) {
			n *= 2
		}
		d.addString(be[8-n:])
		d.addString(le[:n])
	}
}

// swap reverses the byte order of a value of width bytes.
func swap(v uint64, width int) uint64 {
	switch width {
	case 2:
		return uint64(bits.ReverseBytes16(uint16(v)))
	case 4:
		return uint64(bits.ReverseBytes32(uint32(v)))
	}
	return v
}

// constantsOf is the dictionary of the constants a program's instructions
// hold: those its conditional jumps compare against, and those it moves,
// masks with or loads as 64-bit immediates (a constant compared by
// register is first moved into one).
func constantsOf(insns asm.Instructions) *dictionary {
	d := newDictionary()
	for _, ins := range insns {
		op := ins.OpCode
		switch {
		case op.Class().IsJump() && op.Source() == asm.ImmSource:
			switch op.JumpOp() {
			case asm.JEq, asm.JNE, asm.JSet:
				d.addConstant(ins.Constant, false)
			case asm.JGT, asm.JGE, asm.JLT, asm.JLE, asm.JSGT, asm.JSGE, asm.JSLT, asm.JSLE:
				d.addConstant(ins.Constant, true)
			}
		case op.Class().IsALU() && op.Source() == asm.ImmSource && (op.ALUOp() == asm.Mov || op.ALUOp() == asm.And):
			d.addConstant(ins.Constant, false)
		case op.IsDWordLoad() && ins.Reference() == "" && !ins.IsLoadFromMap():
			d.addConstant(ins.Constant, false)
		}
	}
	return d
}

// keyMaps are the map types whose keys a program looks packets' fields
// up by; an array's keys are only indexes.
var keyMaps = []ebpf.MapType{ebpf.Hash, ebpf.LRUHash, ebpf.PerCPUHash, ebpf.LRUCPUHash, ebpf.LPMTrie, ebpf.HashOfMaps}

// maxKeys bounds the keys taken from one map: a map of a million
// addresses would crowd out every other value.
const maxKeys = 1024

// keysOf is the dictionary of the keys in maps, in name order: each key
// whole, and every aligned 2-, 4- and 16-byte window of it (the fields of
// a flow's key). An LPM trie's key loses its prefix length.
func keysOf(maps map[string]*ebpf.Map) (*dictionary, error) {
	d := newDictionary()
	names := make([]string, 0, len(maps))
	for name := range maps {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		m := maps[name]
		if !slices.Contains(keyMaps, m.Type()) {
			continue
		}
		key := make([]byte, m.KeySize())
		next := make([]byte, m.KeySize())
		var prev any // nil: the first key
		for range maxKeys {
			err := m.NextKey(prev, next)
			if errors.Is(err, ebpf.ErrKeyNotExist) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("read the keys of map %s: %w", name, err)
			}
			copy(key, next)
			prev = key
			k := key
			if m.Type() == ebpf.LPMTrie && len(k) > 4 {
				k = k[4:]
			}
			d.addKey(k)
		}
	}
	return d, nil
}

func (d *dictionary) addKey(k []byte) {
	d.addString(k)
	for _, width := range []int{2, 4} {
		for off := 0; off+width <= len(k); off += width {
			v := uint64(binary.BigEndian.Uint16(k[off:]))
			if width == 4 {
				v = uint64(binary.BigEndian.Uint32(k[off:]))
			}
			d.addValue(width, v)
		}
	}
	for off := 0; off+16 <= len(k) && len(k) > 16; off += 4 {
		d.addString(k[off : off+16])
	}
	if len(k) <= 4 {
		for _, b := range k {
			d.addValue(1, uint64(b))
		}
	}
}
