package btfvalue

import (
	"testing"

	"github.com/cilium/ebpf/btf"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue/btfcraft"
	"gopkg.in/yaml.v3"
)

// hostileSeeds are type graphs btfcraft.Hostile builds: a struct holding
// itself, an anonymous member of its own struct, a union forking into
// itself through a typedef, a member past its struct's end, a thousand
// anonymous members, a bitfield at a wrapping offset, a section whose
// variable wraps, a 2^32-element array.
var hostileSeeds = [][]byte{
	{1, 2, 8, 2, 0, 1, 0, 0, 0, 0},                         // struct s { s a; }
	{2, 2, 0, 2, 2, 0, 0, 0, 0, 1, 1, 1, 32, 0},            // struct s { s; int b; }
	{2, 3, 5, 4, 2, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0},          // union u { t; t; }, typedef u t
	{2, 2, 0, 4, 0, 1, 1, 1, 128, 0},                       // struct { int a at byte 16 of 8 }
	{2, 2, 0, 4, 0, 250, 0, 0, 0, 0},                       // a thousand anonymous members
	{2, 2, 0, 4, 0, 1, 1, 1, 255, 248, 255, 255, 255, 236}, // a bitfield at offset 2^32-8
	{2, 7, 0, 8, 4, 1, 1, 1, 255, 240, 255, 255, 255, 255, 32, 0, 0, 0},
	{2, 4, 0, 255, 0, 0, 0, 1, 1, 0}, // int[2^32], the bytes running out
}

// checkFormat: whatever the types, Format ends, and its output is bounded.
func checkFormat(t *testing.T, typ btf.Type, value []byte) {
	s := Format(typ, value)
	if len(s) > maxFormatted+200 {
		t.Fatalf("%d characters, over the %d a value may take", len(s), maxFormatted)
	}
}

// FuzzFormat: Format on hostile types and any bytes gives a bounded
// string, never a panic, a stack overflow or a hang.
func FuzzFormat(f *testing.F) {
	for _, seed := range hostileSeeds {
		f.Add(seed, []byte{1, 0, 0, 0, 2, 0, 0, 0})
	}
	f.Fuzz(func(t *testing.T, types, value []byte) {
		checkFormat(t, btfcraft.Hostile(types), value)
	})
}

// FuzzEncode: Encode of any YAML as hostile types gives bytes of the
// type's size, or an error, never a panic; what it gives formats back.
func FuzzEncode(f *testing.F) {
	docs := []string{"{a: 1, b: 2}", "{a: {a: {a: {b: 1}}}}", "[1, 2, 3]", "{c: 10.0.0.1}", "htons(80)", "{a: {c: 1}, b: [1, 2]}", "x"}
	for i, seed := range hostileSeeds {
		f.Add(seed, docs[i%len(docs)])
	}
	f.Fuzz(func(t *testing.T, types []byte, doc string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(doc), &n) != nil || len(n.Content) != 1 {
			return
		}
		typ := btfcraft.Hostile(types)
		b, err := Encode(typ, n.Content[0])
		if err != nil {
			return
		}
		if size, err := btf.Sizeof(typ); err != nil || size != len(b) {
			t.Fatalf("%d bytes for a type of %d (%v)", len(b), size, err)
		}
		checkFormat(t, typ, b)
	})
}

// FuzzFindMember: looking a member up by name in hostile types ends, and
// finds one of that name; memberNames is bounded.
func FuzzFindMember(f *testing.F) {
	for _, seed := range hostileSeeds {
		f.Add(seed, "b")
	}
	f.Fuzz(func(t *testing.T, types []byte, name string) {
		typ := btfcraft.Hostile(types)
		var members []btf.Member
		switch s := btf.UnderlyingType(typ).(type) {
		case *btf.Struct:
			members = s.Members
		case *btf.Union:
			members = s.Members
		default:
			return
		}
		if m, _ := findMember(btf.UnderlyingType(typ), members, name); m != nil && m.Name != name {
			t.Fatalf("looked for %q, found %q", name, m.Name)
		}
		if names := memberNames(btf.UnderlyingType(typ), members); len(names) > maxMemberNames+1 {
			t.Fatalf("%d member names listed", len(names))
		}
	})
}
