package btfvalue

import (
	"encoding/binary"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// A value a program wrote with CAP_PERFMON may hold kernel addresses: for
// a user who could not read them they read <kernel address>, as numbers,
// as the fields that overlap them, and within hex; other numbers, -1
// among them, stay as they are.
func TestFormatHidingKernelAddresses(t *testing.T) {
	word := func(vs ...uint64) []byte {
		b := make([]byte, 8*len(vs))
		for i, v := range vs {
			binary.NativeEndian.PutUint64(b[8*i:], v)
		}
		return b
	}
	const heap = 0xffff8881_2345_6780
	u32 := &btf.Int{Name: "__u32", Size: 4}
	u64 := &btf.Int{Name: "__u64", Size: 8}
	s64 := &btf.Int{Name: "__s64", Size: 8, Encoding: btf.Signed}
	halves := &btf.Struct{Name: "halves", Size: 16, Members: []btf.Member{
		{Name: "lo", Type: u32}, {Name: "hi", Type: u32, Offset: 32}, {Name: "n", Type: u64, Offset: 64}}}
	char := &btf.Int{Name: "char", Size: 1, Encoding: btf.Char}
	for _, tt := range []struct {
		name string
		t    btf.Type
		b    []byte
		want string
	}{
		{"a pointer in a __u64", u64, word(heap), KernelAddress},
		{"kernel text, x86-64", u64, word(0xffff_ffff_8100_0000), KernelAddress},
		{"a pointer across two __u32", halves, word(heap, 7), "{lo: <kernel address>, hi: <kernel address>, n: 7}"},
		{"a pointer in a char array", &btf.Array{Type: char, Nelems: 24}, word(1, heap, 2),
			"0x0100000000000000" + KernelAddress + "0200000000000000"},
		{"without BTF", nil, word(heap, heap, 3), "0x" + KernelAddress + "0300000000000000"},
		{"-1 is no address", s64, word(1<<64 - 1), "-1"},
		{"-4096 is no address", s64, word(1<<64 - 4096), "-4096"},
		{"a user-space address is shown", u64, word(0x7fff_1234_5000), "140733498806272"},
	} {
		if got := FormatHidingKernelAddresses(tt.t, tt.b); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := Format(u64, word(heap)); got != "18446612686956750720" {
		t.Errorf("Format hides nothing: %q", got)
	}
}
