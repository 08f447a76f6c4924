package btfvalue

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// Crafted BTF reaches Format from `programs`, which needs no privileges,
// and Encode from --set and --map-init: types that hold themselves, nest
// without end, or place members past their ends must give hex or an
// error, bounded, never a stack overflow or a slice out of range (issue
// 46, item 6).
func TestHostileTypes(t *testing.T) {
	u32 := &btf.Int{Name: "__u32", Size: 4}

	// struct outer { struct outer in; __u32 b; }: C cannot say it; BTF can.
	self := &btf.Struct{Name: "outer", Size: 8}
	self.Members = []btf.Member{{Name: "in", Type: self}, {Name: "b", Type: u32, Offset: 32}}
	// The same, the member anonymous: its members are looked for inline.
	anon := &btf.Struct{Name: "outer", Size: 8}
	anon.Members = []btf.Member{{Type: anon}, {Name: "b", Type: u32, Offset: 32}}
	// A union of two of itself through a typedef: two ways down at each
	// level, 2^32 paths to a depth limit without cycle detection.
	fork := &btf.Union{Name: "fork", Size: 4}
	forkDef := &btf.Typedef{Name: "fork_t", Type: fork}
	fork.Members = []btf.Member{{Type: forkDef}, {Type: forkDef}, {Name: "x", Type: u32}}
	// struct inner { __u32 a; } with a at byte 128 of its 4.
	past := &btf.Struct{Name: "inner", Size: 4, Members: []btf.Member{{Name: "a", Type: u32, Offset: 1024}}}
	// A bitfield whose offset wraps 32 bits.
	bits := &btf.Struct{Name: "bits", Size: 4, Members: []btf.Member{{Name: "f", Type: u32, Offset: 0xfffffff8, BitfieldSize: 16}}}
	// A section whose variable's offset and size wrap 32 bits.
	sec := &btf.Datasec{Name: ".data", Size: 8, Vars: []btf.VarSecinfo{{Type: &btf.Var{Name: "v", Type: u32}, Offset: 0xfffffff0, Size: 0x20}}}
	// Wide in wide: three levels of a thousand anonymous members each.
	wide := btf.Type(u32)
	for range 3 {
		ms := make([]btf.Member, 1000)
		for i := range ms {
			ms[i] = btf.Member{Type: wide}
		}
		wide = &btf.Struct{Name: "", Size: 4, Members: ms}
	}

	for _, tt := range []struct {
		name string
		t    btf.Type
		b    []byte
		want string
	}{
		{"a struct holding itself", self, []byte{1, 0, 0, 0, 2, 0, 0, 0}, "{in: 0x0100000002000000, b: 2}"},
		{"an anonymous member holding its struct", anon, []byte{1, 0, 0, 0, 2, 0, 0, 0}, "{0x0100000002000000, b: 2}"},
		{"a union forking into itself", fork, []byte{7, 0, 0, 0}, "{0x07000000 | 0x07000000 | x: 7}"},
		{"a member past its struct's end", past, []byte{1, 0, 0, 0}, "0x01000000"},
		{"a bitfield past its struct's end", bits, []byte{1, 0, 0, 0}, "0x01000000"},
		{"a variable past its section's end", sec, make([]byte, 8), "{}"},
	} {
		if got := Format(tt.t, tt.b); got != tt.want {
			t.Errorf("%s: formatted %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := Format(wide, make([]byte, 4)); len(got) > maxFormatted+100 || !strings.Contains(got, "cut") {
		t.Errorf("wide types in wide types: %d characters, want at most about %d, cut", len(got), maxFormatted)
	}

	for _, tt := range []struct {
		name string
		t    btf.Type
		yaml string
		msg  string
	}{
		{"--set past a member's end, which panicked [128:4]", past, "{a: 1}", `member "a" lies past its end`},
		{"a bitfield past its end", bits, "{f: 1}", `bitfield "f" lies past its end`},
		{"no such member in a struct that holds itself anonymously", anon, "{zz: 1}", `no member "zz" (members: b)`},
		{"a struct holding itself, as deep as YAML goes", self, strings.Repeat("{in: ", 40) + "1" + strings.Repeat("}", 40), "nests deeper than"},
		{"a section's variable past its end", sec, "{v: 1}", "does not fit its section"},
	} {
		if _, err := Encode(tt.t, yamlNode(t, tt.yaml)); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %s gave %v, want %q", tt.name, tt.yaml, err, tt.msg)
		}
	}
	// A type that claims more than any map value can hold is refused
	// before anything of its size is allocated.
	huge := &btf.Array{Type: &btf.Int{Name: "char", Size: 1}, Nelems: 1 << 31}
	if _, err := Encode(huge, yamlNode(t, "abc")); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Errorf("a 2 GiB array: %v, want refused", err)
	}
	if _, err := EncodeSized(&btf.Array{Type: u32, Nelems: 1000}, 4, yamlNode(t, "[1]"), "value_hex"); err == nil || !strings.Contains(err.Error(), "of 4000 bytes, the value of 4") {
		t.Errorf("a type bigger than its map's values: %v, want refused", err)
	}
}

// A global of megabytes shows its start and its size, not its megabytes:
// `programs` printed 8 MiB of .bss as 184 MB of table (issue 46, item 5).
func TestFormatLarge(t *testing.T) {
	char := &btf.Int{Name: "char", Size: 1, Encoding: btf.Char}
	big := make([]byte, 8<<20)
	big[0] = 0xab
	got := Format(&btf.Array{Type: char, Nelems: 8 << 20}, big)
	want := "0xab" + strings.Repeat("00", maxHexBytes-1) + "… (8388480 more bytes)"
	if got != want {
		t.Errorf("8 MiB of char: %q, want %q", got, want)
	}
	u32 := &btf.Int{Name: "__u32", Size: 4}
	got = Format(&btf.Array{Type: u32, Nelems: 2 << 20}, make([]byte, 8<<20))
	if want := "[" + strings.Repeat("0, ", maxElements) + "… (2097024 more)]"; got != want {
		t.Errorf("2M __u32: %q…, want %q…", got[:min(len(got), 80)], want[:80])
	}
	sec := &btf.Datasec{Name: ".bss", Size: 16 << 20}
	for i := range 1000 {
		sec.Vars = append(sec.Vars, btf.VarSecinfo{Type: &btf.Var{Name: "v", Type: &btf.Array{Type: char, Nelems: 16 << 10}}, Offset: uint32(i) * 16 << 10, Size: 16 << 10})
	}
	got = Format(sec, bytes.Repeat([]byte{1}, 16<<20))
	if len(got) > maxFormatted+100 || !strings.HasSuffix(got, "… (cut: 16777216 bytes of value)") {
		t.Errorf("a section of a thousand arrays: %d characters ending %q, want at most about %d, cut", len(got), got[max(0, len(got)-40):], maxFormatted)
	}
}
