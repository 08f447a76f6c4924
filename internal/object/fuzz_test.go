package object

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue/btfcraft"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
)

// FuzzParseMapInit: any --map-init file gives an error that is bad input
// (exit 2) or entries that resolve against a real object without
// panicking, each value the size of its map's.
func FuzzParseMapInit(f *testing.F) {
	f.Add([]byte(configInit))
	f.Add([]byte("maps:\n  lengths:\n    - {key_hex: '3c000000', value_hex: '0100000000000000'}\n"))
	f.Add([]byte("maps:\n  config:\n    - {key: 0, value: {port: [1, 2]}}\n"))
	for _, seed := range []string{
		"maps:\n  lengths:\n    - {keys: {from: 0, to: 63}, value: 1}\n    - {key: 5, value: 2}\n",
		"maps:\n  lengths:\n    - {keys: {from: 0, count: 65}, value_hex: '0100000000000000'}\n",
		"maps:\n  lengths:\n    - {keys: {from: 18446744073709551615, count: 2}, value: 1}\n",
		"maps:\n  lengths:\n    - {keys: {from: 4294967290, to: 4294967296}, value: 1}\n",
		"maps:\n  config:\n    - {keys: {from: 0, to: 0}, value: {port: 1}}\n    - {keys: {from: 1, count: 1}, value: {port: 2}}\n",
		"maps:\n  lengths:\n    - {keys: {from: 9, to: 3}, value: 1}\n",
		"maps:\n  lengths:\n    - {keys: {from: 0, to: 3, count: 4}, value: 1}\n",
		"maps:\n  lengths:\n    - {value: 1, repeat: 3}\n",
		"maps:\n  lengths:\n    - {key: 1, keys: {from: 0, to: 1}, value: 1}\n",
		// Entries a line each (mapinit_lines.go), and JSON (jsonscan.go).
		"maps:\n  lengths:\n    - {key: 1, value: 2}\n    - {key_hex: \"02000000\", value: 0x3}\n  config:\n  - key: 0\n    value_hex: \"35000100dc050000\"\n",
		"maps:\n  lengths:\r\n    - {key: 1, value: 2} # c\n\n    - {key: 2,\n       value: 3}\n",
		`{"max_entries": {"lengths": 4}, "maps": {"lengths": [{"key": 1, "value": 2}, {"keys": {"from": 2, "count": 2}, "value": "0x7"}],` +
			` "config": [{"key": 0, "value": {"port": 53, "enabled": true}}]}, "variables": {"action": "XDP_TX"}}`,
		`{"maps": {"lengths": [{"key": 1, "value": 2}` + "\n" + `,{"key": "a\u0041", "value": 1e3}]}}`,
	} {
		f.Add([]byte(seed))
	}
	spec, _, _, err := kerneltest.ReadTestObject[Object](f, "maps.o").choose("", Settings{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		init, err := ParseMapInit("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("error %q is not bad input: it would exit 1", err)
			}
			return
		}
		updates, _, err := init.Resolve(spec, nil, Settings{})
		if err != nil {
			// An entry that does not fit its map is the file's fault too.
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("resolving: error %q is not bad input: it would exit 1", err)
			}
			return
		}
		var total uint64
		for _, u := range updates {
			ms := spec.Maps[u.MapName]
			if uint32(len(u.ValueBytes)) != ms.ValueSize {
				t.Fatalf("map %s: resolved a value of %d bytes, the map's are %d", u.MapName, len(u.ValueBytes), ms.ValueSize)
			}
			// A range fits its map: no more keys than it holds, an
			// array's below its size, each of the key's size.
			n := u.Entries()
			if u.Block != nil {
				// A block's entries are each a key and a value of the
				// map's sizes, an array's index below its size.
				key := make([]byte, ms.KeySize)
				for i := range n {
					u.PutKey(key, i)
					if idx, _ := btfvalue.Uint(key, 4); len(u.Block.Keys) != int(n)*len(key) || uint32(len(u.ValueAt(i))) != ms.ValueSize || isArray(ms.Type) && idx >= uint64(ms.MaxEntries) {
						t.Fatalf("map %s: block entry %d of %d: key %x, value %x", u.MapName, i, n, key, u.ValueAt(i))
					}
				}
			} else if n > uint64(ms.MaxEntries) || isArray(ms.Type) && u.First+n > uint64(ms.MaxEntries) || u.KeyBytes != nil && uint32(len(u.KeyBytes)) != ms.KeySize {
				t.Fatalf("map %s: %d entries from key %d (%x) in a map of %d", u.MapName, n, u.First, u.KeyBytes, ms.MaxEntries)
			}
			total += n
		}
		if total > MaxMapInitEntries {
			t.Fatalf("%d entries in all", total)
		}
	})
}

// fuzzObjects are nested.o as compiled, and its BTF crafted to hold
// itself through an anonymous member and to place a member past its
// struct's end, for --set to meet.
func fuzzObjects(f *testing.F) []Object {
	data, err := os.ReadFile("../../bpf/testdata/nested.o")
	if err != nil {
		f.Fatal(err)
	}
	objects := []Object{{Name: "nested.o", ELF: data}}
	for _, edit := range []func(b *btfcraft.BTF) error{btfcraft.OuterHoldsItself, btfcraft.InnerMemberPastEnd} {
		crafted := bytes.Clone(data)
		b, err := btfcraft.Open(crafted)
		if err != nil {
			f.Fatal(err)
		}
		if err := edit(b); err != nil {
			f.Fatal(err)
		}
		objects = append(objects, Object{Name: "crafted.o", ELF: crafted})
	}
	return objects
}

// FuzzSet: any --set NAME=VALUE, against an object and crafted versions
// of it, gives a program ready to load or an error that is bad input
// (exit 2), never a panic: --set panicked on a member past its struct's
// end.
func FuzzSet(f *testing.F) {
	for _, seed := range []string{"nested={in: {a: 1}, b: 2}", "nested={zz: 1}", "nested={in: {in: {b: 1}}}", "nested=3", "nested={b: htons(80)}", "=1", "nested"} {
		f.Add(seed, uint8(0))
		f.Add(seed, uint8(1))
		f.Add(seed, uint8(2))
	}
	objects := fuzzObjects(f)
	f.Fuzz(func(t *testing.T, set string, which uint8) {
		s, err := NewSettings(LoadOptions{Set: []string{set}}, nil)
		if err == nil {
			_, err = Choose(objects[int(which)%len(objects)], "", s)
		}
		if err != nil && !errors.Is(err, badinput.Err) {
			t.Fatalf("--set %q: error %q is not bad input: it would exit 1", set, err)
		}
	})
}

// FuzzMaxEntries: any --max-entries NAME=N gives the map N entries, or
// an error that is bad input.
func FuzzMaxEntries(f *testing.F) {
	for _, seed := range []string{"lengths=128", "lengths=0x10", "lengths=0", "lengths=-1", "lengths=4294967296", "nope=4", "=4", "lengths", ".data=2"} {
		f.Add(seed)
	}
	obj := kerneltest.ReadTestObject[Object](f, "maps.o")
	f.Fuzz(func(t *testing.T, size string) {
		s, err := NewSettings(LoadOptions{MaxEntries: []string{size}}, nil)
		if err != nil {
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("--max-entries %q: error %q is not bad input", size, err)
			}
			return
		}
		c, err := Choose(obj, "", s)
		if err != nil {
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("--max-entries %q: error %q is not bad input", size, err)
			}
			return
		}
		name, value, _ := strings.Cut(size, "=")
		n, _ := strconv.ParseUint(value, 0, 32)
		if got := c.Spec.Maps[name].MaxEntries; uint64(got) != n {
			t.Fatalf("--max-entries %q: map %s has %d entries", size, name, got)
		}
	})
}

// FuzzContext: any --ctx, for each program type that takes a context,
// gives the context's bytes, of the kernel struct's size, or an error
// that is bad input.
func FuzzContext(f *testing.F) {
	for _, seed := range []string{"mark=0x2a", "ingress_ifindex=lo,rx_queue_index=0", "cb[0]=7,cb4=1", "mark=1,mark=2", "wire_len=70000", "gso_segs=65536", "tstamp=0xffffffffffffffff", "nope=1", "mark", ",", "ifindex=eth9"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := packets.ParseContext(s)
		if err != nil {
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("--ctx %q: error %q is not bad input", s, err)
			}
			return
		}
		frame := make([]byte, 64)
		for _, pt := range []ebpf.ProgramType{ebpf.XDP, ebpf.SchedCLS, ebpf.SocketFilter} {
			buf, err := ContextIn(pt, packets.Case{Name: "fuzz", Frame: frame, Context: c})
			if err != nil {
				if !errors.Is(err, badinput.Err) {
					t.Fatalf("--ctx %q for %s: error %q is not bad input", s, pt, err)
				}
				continue
			}
			want := skbContext.size
			if pt == ebpf.XDP {
				want = xdpContext.size
			}
			if len(c) > 0 && len(buf) != want {
				t.Fatalf("--ctx %q for %s: %d bytes, want %d", s, pt, len(buf), want)
			}
		}
	})
}

// FuzzLineRuns: any map-init file gives, with entries a line each read
// past yaml.v3 (mapinit_lines.go), the very entries and error yaml.v3
// alone gives.
func FuzzLineRuns(f *testing.F) {
	for _, seed := range []string{
		"maps:\n  ring:\n    - {key: 0, value: 7}\n    - {key: 1, value: 0x10}\n",
		"maps:\n  ring:\n  - key: 0\n    value: 7\n\n  # c\n  - key: 2\n    value: 9\n  flows:\n  - {key: 5, value: -3}\n",
		"maps:\n  vips:\n    - {key: {addr: 198.51.100.1, port: htons(80), proto: 6}, value: 1}\n  ports:\n    - {key: htons(443), value: 1}\n",
		"maps:\n  names:\n    - {key: 1, value: \"eth0\"}\n  addrs:\n    - {key: 1, value: 10.0.0.2}\n",
		"maps:\n  ring:\n    - {keys: {from: 0, to: 9}, value: 1}\n    - {key: 3, value: 2}\n    - {key: 4,\n       value: 3}\n",
		"variables:\n  x: |\n    - {key: 0, value: 1}\nmaps:\n  ring:\n    - {key: 7, value: 1}\n",
		"maps:\n  ring:\r\n    - {key: 0, value: 1}\r\n    - {key_hex: \"01000000\", value_hex: \"02000000\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		lines, yamlOnly, linesErr, yamlErr := resolveBoth(t, string(doc))
		if fmt.Sprint(linesErr) != fmt.Sprint(yamlErr) || strings.Join(lines, "\n") != strings.Join(yamlOnly, "\n") {
			t.Fatalf("read a line each: %q, %v\nby yaml.v3:       %q, %v", lines, linesErr, yamlOnly, yamlErr)
		}
	})
}
