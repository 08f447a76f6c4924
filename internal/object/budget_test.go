package object

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue/btfcraft"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
)

// checkRun runs frame once between a snapshot and the effects, as the
// checking run does.
func checkRun(t *testing.T, l *Loaded) []Effect {
	t.Helper()
	before, err := l.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := packets.Assemble(packets.Selection{Builtin: true, Names: []string{"tcp-syn"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := l.RunOnce(cases[0].Frame, nil); err != nil {
		t.Fatal(err)
	}
	effects, err := l.Effects(before)
	if err != nil {
		t.Fatal(err)
	}
	return effects
}

// Reading maps for effects has a fixed budget (issue 46, item 5): an
// 8 MiB global is read one entry a call and shown cut, where 4,096
// values of 8 MiB were asked for at once (fatal error: runtime: out of
// memory); maps past 64 MiB in all are noted, not read, and an array
// past 16 MiB (too_big), which bump writes, is compared in memory.
func TestEffectsBudget(t *testing.T) {
	kerneltest.RequireBPF(t)
	l, err := Load(kerneltest.ReadTestObject[Object](t, "bigmaps.o"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	shown := map[string]string{}
	for _, e := range checkRun(t, l) {
		shown[e.Map] = e.Value
	}
	for _, name := range []string{".bss", "slab_a", "slab_b", "slab_c", "too_big"} {
		if v := shown[name]; !strings.HasPrefix(v, "{") || !strings.HasSuffix(v, "more bytes)}") || len(v) > 1000 {
			t.Errorf("map %s: effect %.80q…, want its first write, cut", name, v)
		}
	}
	for _, name := range []string{"slab_d"} {
		if v, ok := shown[name]; ok {
			t.Errorf("map %s, past the budget, shows %.80q", name, v)
		}
	}
	note := l.UnwatchedNote()
	for _, want := range []string{
		"slab_d (15.0 MiB of contents, past the 64 MiB that all maps compared may hold)",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q; want %q", note, want)
		}
	}
}

// A run as a user who could not read kernel addresses shows none in the
// map effects; root's shows them (the program stores two with
// CAP_PERFMON).
func TestEffectsHideKernelAddresses(t *testing.T) {
	kerneltest.RequireBPF(t)
	l, err := Load(kerneltest.ReadTestObject[Object](t, "leak.o"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	defer func(saved func() bool) { hideKernelAddresses = saved }(hideKernelAddresses)
	for _, hide := range []bool{false, true} {
		hideKernelAddresses = func() bool { return hide }
		effects := checkRun(t, l)
		if len(effects) == 0 && !hide {
			t.Fatal("no effects: the program stores its map value's address")
		}
		for _, e := range effects {
			if e.Map != "slots" {
				continue
			}
			if got := e.Value == "<kernel address>"; got != hide {
				t.Errorf("hidden %v: [%s] set %s", hide, e.Key, e.Value)
			}
		}
	}
}

// Crafted BTF reaches `programs` through the globals' types (which
// overflowed the stack) and --set through the same (which panicked on a
// member past its struct's end): both give a listing, or an error that
// is bad input.
func TestCraftedVariables(t *testing.T) {
	data, err := os.ReadFile("../../bpf/testdata/nested.o")
	if err != nil {
		t.Fatal(err)
	}
	craft := func(edit func(b *btfcraft.BTF) error) Object {
		obj := append([]byte(nil), data...)
		b, err := btfcraft.Open(obj)
		if err != nil {
			t.Fatal(err)
		}
		if err := edit(b); err != nil {
			t.Fatal(err)
		}
		return Object{Name: "crafted.o", ELF: obj}
	}
	// outer's member "in" made an outer by name; btfcraft.OuterHoldsItself
	// makes it an anonymous one.
	holdsItselfByName := func(b *btfcraft.BTF) error {
		m, err := b.Member("outer", "in")
		if err != nil {
			return err
		}
		id, err := b.TypeID("outer")
		m.SetType(id)
		return err
	}
	for _, tt := range []struct {
		name  string
		obj   Object
		value string
		set   string
		err   string
	}{
		{"a struct holding itself", craft(holdsItselfByName), "{in: 0x0100000002000000, b: 2}", "nested={in: {in: {b: 1}}}", ""},
		{"an anonymous member holding its struct", craft(btfcraft.OuterHoldsItself), "{0x0100000002000000, b: 2}", "nested={zz: 1}", `no member "zz" (members: b)`},
		{"a member past its struct's end", craft(btfcraft.InnerMemberPastEnd), "{in: 0x01000000, b: 2}", "nested={in: {a: 1}}", `member "a" lies past its end`},
	} {
		vars, err := tt.obj.Variables()
		if err != nil || len(vars) != 1 || vars[0].Value != tt.value {
			t.Errorf("%s: variables %+v, %v; want nested = %s", tt.name, vars, err, tt.value)
		}
		s, err := NewSettings(LoadOptions{Set: []string{tt.set}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Choose(tt.obj, "", s)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: --set %s: %v", tt.name, tt.set, err)
		case tt.err != "" && (err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: --set %s: %v, want bad input with %q", tt.name, tt.set, err, tt.err)
		}
	}
}

// A C declaration stays bounded however the types nest: three levels of
// a thousand anonymous members each took 10^9 steps.
func TestCTypeBounded(t *testing.T) {
	inner := btf.Type(&btf.Int{Name: "int", Size: 4})
	for range 3 {
		ms := make([]btf.Member, 1000)
		for i := range ms {
			ms[i] = btf.Member{Name: "m", Type: inner}
		}
		inner = &btf.Struct{Size: 4, Members: ms}
	}
	if got := CType(inner); len(got) > maxCType+10 || !strings.HasSuffix(got, "…") {
		t.Errorf("%d characters ending %q; want at most about %d, cut", len(got), got[max(0, len(got)-20):], maxCType)
	}
	u32 := &btf.Int{Name: "__u32", Size: 4}
	if got, want := CType(&btf.Struct{Members: []btf.Member{{Name: "a", Type: &btf.Array{Type: u32, Nelems: 4}}, {Type: u32}}}), "struct {__u32 a[4]; __u32}"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// A zero-filled section takes no room in a file: a crafted .bss of 4 GiB
// is refused before cilium/ebpf allocates it (8 GB of memory here).
func TestHugeBSSRefused(t *testing.T) {
	data, err := os.ReadFile("../../bpf/testdata/bigmaps.o")
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(".bss")
	if f.Class != elf.ELFCLASS64 || sec == nil {
		t.Fatal("no 64-bit ELF with a .bss")
	}
	// The section header's sh_size: 32 bytes into a 64-bit header.
	index := -1
	for i, s := range f.Sections {
		if s == sec {
			index = i
		}
	}
	shoff := binary.LittleEndian.Uint64(data[0x28:])
	binary.LittleEndian.PutUint64(data[shoff+uint64(index)*64+32:], 4<<30)
	_, err = Object{Name: "huge.o", ELF: data}.Variables()
	if !errors.Is(err, ErrBadObject) || !strings.Contains(err.Error(), "section .bss of 4096 MiB, over the 256 MiB") {
		t.Errorf("a 4 GiB .bss: %v, want refused as a bad object", err)
	}
}
