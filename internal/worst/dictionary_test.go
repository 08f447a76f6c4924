package worst

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cilium/ebpf/asm"
)

// A port compared as the packet holds it (bpf_htons(7777), 0x611e) gives
// the field's value, 7777, and the other way round; a bound gives its
// neighbours; a constant too wide for a field is no value of it.
func TestConstantsOf(t *testing.T) {
	d := constantsOf(asm.Instructions{
		asm.JEq.Imm(asm.R1, 0x611e, "x"),
		asm.JGT.Imm(asm.R2, 12, "x"),
		asm.Mov.Imm(asm.R3, 0x12345),
		asm.Add.Imm(asm.R4, 99), // neither compared, moved nor masked
		asm.Return().WithSymbol("x"),
	})
	for _, tc := range []struct {
		width int
		want  []uint64
	}{
		{2, []uint64{0x611e, 7777, 12, 13, 11}},
		{1, []uint64{12, 13, 11}},
		{4, []uint64{0x611e, 0x1e610000, 0x12345, 0x45230100}},
	} {
		for _, v := range tc.want {
			if !slices.Contains(d.values[widthIndex(tc.width)], v) {
				t.Errorf("width %d: %#x missing from %#x", tc.width, v, d.values[widthIndex(tc.width)])
			}
		}
	}
	for _, w := range []int{1, 2, 4} {
		if slices.Contains(d.values[widthIndex(w)], 99) {
			t.Errorf("width %d holds 99, which is only added", w)
		}
	}
	if slices.Contains(d.values[0], 0x1e) {
		t.Error("0x611e is no value of a one-byte field")
	}
	if !slices.ContainsFunc(d.strings, func(b []byte) bool { return bytes.Equal(b, []byte{0x61, 0x1e}) }) {
		t.Errorf("0x611e missing from the byte strings %x", d.strings)
	}
}

// A map's key gives its fields: the whole key, its 2- and 4-byte
// windows, a 16-byte window of a longer key.
func TestAddKey(t *testing.T) {
	d := newDictionary()
	key := []byte{0xcb, 0x00, 0x71, 0x4d, 0x1e, 0x61, 0x00, 0x06}
	d.addKey(key)
	if !slices.Contains(d.values[2], 0xcb00714d) || !slices.Contains(d.values[1], 0x1e61) {
		t.Errorf("the key's address and port missing: %#x %#x", d.values[2], d.values[1])
	}
	if !slices.ContainsFunc(d.strings, func(b []byte) bool { return bytes.Equal(b, key) }) {
		t.Error("the whole key missing")
	}
	d.addKey(make([]byte, 20))
	if !slices.ContainsFunc(d.strings, func(b []byte) bool { return len(b) == 16 }) {
		t.Error("no 16-byte window of a 20-byte key")
	}
}

// A blind mutator, with no dictionary, never takes a value from one; a
// guided one often does.
func TestValuesFromTheDictionary(t *testing.T) {
	d := newDictionary()
	d.addValue(2, 7777)
	count := func(m *mutator) int {
		n := 0
		for range 1000 {
			if m.value(80, 2) == 7777 {
				n++
			}
		}
		return n
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if n := count(&mutator{rng: rng}); n > 1 {
		t.Errorf("blind: 7777 drawn %d times in 1000", n)
	}
	if n := count(&mutator{rng: rng, dicts: []*dictionary{d}}); n < 200 {
		t.Errorf("guided: 7777 drawn %d times in 1000, want about 375", n)
	}
}

func TestBucket(t *testing.T) {
	for n, want := range map[uint64]uint8{1: 1, 2: 2, 3: 4, 4: 8, 7: 8, 8: 16, 15: 16, 16: 32, 31: 32, 32: 64, 127: 64, 128: 128, 1 << 20: 128} {
		if got := bucket(n); got != want {
			t.Errorf("bucket(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestPatches(t *testing.T) {
	frame := make([]byte, 20)
	frame = patch{kind: patchSet, at: 18, data: []byte{1, 2, 3, 4}}.apply(frame)
	frame = patch{kind: patchXor, at: 0, data: []byte{0xff}}.apply(frame)
	if len(frame) != 22 || frame[21] != 4 || frame[0] != 0xff {
		t.Errorf("set past the end and xor: %x", frame)
	}
	if got := (patch{kind: patchCut, at: 16}).apply(frame); len(got) != 16 {
		t.Errorf("cut to 16: %d bytes", len(got))
	}
	if got := (patch{kind: patchCut, at: 10}).apply(frame); len(got) != 22 {
		t.Errorf("a cut inside the Ethernet header is no cut: %d bytes", len(got))
	}
	if got := (patch{kind: patchSet, at: maxFrame, data: []byte{1}}).apply(frame); len(got) != 22 {
		t.Errorf("grown past the largest frame: %d bytes", len(got))
	}
}

// Paths are told apart by every count, and are the same for the same
// counts.
func TestPathHash(t *testing.T) {
	a, b := []uint64{1, 13, 0, 1}, []uint64{1, 12, 0, 1}
	if pathHash(a) == pathHash(b) || pathHash(a) != pathHash(slices.Clone(a)) {
		t.Errorf("hashes %x %x", pathHash(a), pathHash(b))
	}
}
