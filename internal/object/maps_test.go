package object

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

const configInit = `maps:
  config:
    - key: 0
      value: {port: 53, enabled: 1, limit: 59}
`

func TestParseMapInitErrors(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{"nope: 1", "init.yaml:1:"},
		{"maps:\n  config: 3", "init.yaml:2: maps.config: want a list"},
		{"maps:\n  config:\n    - {key: 0, valu: 1}", `init.yaml:3: maps.config[0]: unknown field "valu"`},
		{"maps:\n  config:\n    - {key_hex: zz, value: 1}", `init.yaml:3: maps.config[0].key_hex: "zz" is not hex`},
		{"maps:\n  config:\n    - {key: 0}", "init.yaml:3: maps.config[0]: no value"},
		{"maps: [", "init.yaml:"},
	} {
		_, err := ParseMapInit("init.yaml", []byte(tt.doc))
		if !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want ErrMapInit with %q", tt.doc, err, tt.want)
		}
	}
}

// Entries are checked against the object's maps and their BTF before
// anything is loaded.
func TestResolveMapInit(t *testing.T) {
	spec, _, _, err := kerneltest.ReadTestObject[Object](t, "maps.o").choose("", Settings{})
	if err != nil {
		t.Fatal(err)
	}
	init, err := ParseMapInit("init.yaml", []byte(configInit))
	if err != nil {
		t.Fatal(err)
	}
	updates, _, err := init.Resolve(spec, nil, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	// struct config {u16 port; u8 enabled; u8 pad; u32 limit}, little-endian.
	want := []byte{53, 0, 1, 0, 59, 0, 0, 0}
	if len(updates) != 1 || string(updates[0].ValueBytes) != string(want) || len(updates[0].KeyBytes) != 4 {
		t.Fatalf("updates %+v, want value %v", updates, want)
	}
	if got := btfvalue.Format(spec.Maps["config"].Value, updates[0].ValueBytes); got != "{port: 53, enabled: 1, pad: 0, limit: 59}" {
		t.Errorf("formatted %q", got)
	}
	for doc, msg := range map[string]string{
		"maps:\n  nosuch:\n    - {key: 0, value: 1}":               `no map "nosuch" (maps: .bss, config, lengths)`,
		"maps:\n  config:\n    - {key: 0, value: {port: 70000}}":   "not an unsigned 16-bit number",
		"maps:\n  config:\n    - {key: 0, value: {colour: 1}}":     `struct config has no member "colour" (members: port, enabled, pad, limit)`,
		"maps:\n  config:\n    - {key_hex: '00', value_hex: '00'}": "key of 1 bytes, the map's are 4",
		"maps:\n  lengths:\n    - {value: 1}":                      "map lengths: no key",
	} {
		init, err := ParseMapInit("init.yaml", []byte(doc))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if _, _, err := init.Resolve(spec, nil, Settings{}); !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", doc, err, msg)
		}
	}
}

// A run of entries goes in one batch; one the kernel refuses is put again
// entry by entry, and the refusal names its entry as a single one would.
func TestApplyBatches(t *testing.T) {
	kerneltest.RequireBPF(t)
	obj := kerneltest.ReadTestObject[Object](t, "maps.o")
	entries := func(n int) []Update {
		var doc strings.Builder
		doc.WriteString("maps:\n  lengths:\n")
		for i := range n {
			fmt.Fprintf(&doc, "    - {key: %d, value: %d}\n", i, 1000+i)
		}
		init, err := ParseMapInit("init.yaml", []byte(doc.String()))
		if err != nil {
			t.Fatal(err)
		}
		spec, _, _, err := obj.choose("", Settings{})
		if err != nil {
			t.Fatal(err)
		}
		updates, _, err := init.Resolve(spec, nil, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		return updates
	}
	l, err := Load(obj, "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lengths := l.Maps()["lengths"]
	// One batch, not the entries one by one that Apply falls back to.
	if err := putBatch(context.Background(), lengths, entries(minBatch)); err != nil {
		t.Fatalf("a batch of %d: %v", minBatch, err)
	}
	if err := l.Apply(entries(minBatch)); err != nil {
		t.Fatal(err)
	}
	for i := range uint32(minBatch) {
		var v uint64
		if err := lengths.Lookup(i, &v); err != nil || v != 1000+uint64(i) {
			t.Fatalf("key %d: %d, %v; want %d", i, v, err, 1000+i)
		}
	}
	// lengths holds 64 entries: the 65th is refused.
	err = l.Apply(entries(minBatch + 1))
	if want := "map lengths, key 64: the map is full (max_entries 64; E2BIG)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("one entry too many: %v, want %q", err, want)
	}
}

// A --map-init file or a --set value of many aliases is refused before
// yaml.v3 builds its nodes: 40 MB of aliases in a case file made 2.1 GB
// of them.
func TestYAMLNodesRefused(t *testing.T) {
	doc := []byte("maps: &a [x]\nmore: [" + strings.Repeat("*a, ", MaxMapInitNodes) + "*a]\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ParseMapInit("aliases.yaml", doc)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrMapInit) || !strings.Contains(fmt.Sprint(err), "YAML nodes") {
		t.Errorf("map-init: %v, want the file refused for its nodes", err)
	}
	if used := after.TotalAlloc - before.TotalAlloc; used > 1<<20 {
		t.Errorf("%d MB allocated to refuse a %d MB file", used>>20, len(doc)>>20)
	}
	set := "v=&a [x, " + strings.Repeat("*a, ", maxSetNodes) + "*a]"
	if _, err := NewSettings(LoadOptions{Set: []string{set}}, nil); !errors.Is(err, ErrConfig) || !strings.Contains(fmt.Sprint(err), "YAML nodes") {
		t.Errorf("--set: %v, want the value refused for its nodes", err)
	}
}

// resolveDoc parses a map-init document and resolves it against a test
// object, sized by the document's max_entries as a run sizes it.
func resolveDoc(t *testing.T, object, program string, opts LoadOptions, doc string) ([]Update, Chosen, error) {
	t.Helper()
	init, err := ParseMapInit("init.yaml", []byte(doc))
	if err != nil {
		return nil, Chosen{}, err
	}
	s, err := NewSettings(opts, init)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Choose(kerneltest.ReadTestObject[Object](t, object), program, s)
	if err != nil {
		t.Fatal(err)
	}
	updates, _, err := init.Resolve(c.Spec, c.Programs, s)
	return updates, c, err
}

// A range is keys: {from, to}, inclusive, or {from, count}; a bad one is
// refused with its line, as bad input.
func TestParseKeyRange(t *testing.T) {
	for _, doc := range []string{
		"maps:\n  lengths:\n    - {keys: {from: 3, to: 6}, value: 1}",
		"maps:\n  lengths:\n    - {keys: {from: 3, count: 4}, value: 1}",
		"maps:\n  lengths:\n    - {keys: {count: 4, from: 0x3}, value: 1}",
	} {
		init, err := ParseMapInit("init.yaml", []byte(doc))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		var e mapEntry
		_ = init.maps[0].Each(func(first mapEntry) error { e = first; return errors.New("the first is enough") })
		if !e.HasRange || e.From != 3 || e.To != 6 {
			t.Errorf("%q: range %v %d..%d, want 3..6", doc, e.HasRange, e.From, e.To)
		}
	}
	for _, tt := range []struct{ entry, want string }{
		{"{keys: 5, value: 1}", "init.yaml:3: maps.lengths[0].keys: want {from: N, to: M} or {from: N, count: C}"},
		{"{keys: {from: 0}, value: 1}", "init.yaml:3: maps.lengths[0].keys: want {from: N, to: M}"},
		{"{keys: {to: 4}, value: 1}", "init.yaml:3: maps.lengths[0].keys: want {from: N, to: M}"},
		{"{keys: {from: 0, to: 3, count: 4}, value: 1}", "init.yaml:3: maps.lengths[0].keys: want {from: N, to: M}"},
		{"{keys: {from: 5, to: 4}, value: 1}", "init.yaml:3: maps.lengths[0].keys: to 4 is below from 5"},
		{"{keys: {from: 0, count: 0}, value: 1}", "init.yaml:3: maps.lengths[0].keys: count 0"},
		{"{keys: {from: -1, to: 3}, value: 1}", `init.yaml:3: maps.lengths[0].keys.from: "-1" is not a number`},
		{"{keys: {from: 0, to: [1]}, value: 1}", "init.yaml:3: maps.lengths[0].keys.to: want a number from 0 to 18446744073709551615"},
		{"{keys: {from: 0, to: 4, step: 2}, value: 1}", `init.yaml:3: maps.lengths[0].keys: unknown field "step"`},
		{"{keys: {from: 18446744073709551615, count: 2}, value: 1}", "2 keys from 18446744073709551615 pass the largest key"},
		{"{key: 0, keys: {from: 0, to: 1}, value: 1}", "init.yaml:3: maps.lengths[0]: give a key (key, key_hex, or keys: {from, to}) and a value each once"},
		{"{key_hex: '00000000', keys: {from: 0, to: 1}, value: 1}", "give a key (key, key_hex, or keys: {from, to})"},
		{"{keys: {from: 0, to: 1}}", "init.yaml:3: maps.lengths[0]: no value"},
		{"{key: 0, value: 1, repeat: 2}", "init.yaml:3: maps.lengths[0]: repeat pushes a queue's or stack's value, which has no key"},
		{"{value: 1, repeat: 0}", `init.yaml:3: maps.lengths[0].repeat: "0" is not a count from 1`},
		{"{value: 1, repeat: many}", `init.yaml:3: maps.lengths[0].repeat: "many" is not a count from 1`},
	} {
		doc := "maps:\n  lengths:\n    - " + tt.entry
		_, err := ParseMapInit("init.yaml", []byte(doc))
		if !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line of ErrMapInit with %q", tt.entry, err, tt.want)
		}
	}
}

// A range resolves to one update of its first key, its count and its
// value encoded once, checked against the map's key type and size.
func TestResolveKeyRange(t *testing.T) {
	updates, _, err := resolveDoc(t, "maps.o", "", LoadOptions{}, "maps:\n  lengths:\n    - {keys: {from: 0, to: 63}, value: 7}\n    - {keys: {from: 1000, count: 64}, value: 8}\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(updates) != 2 {
		t.Fatalf("%d updates, want 2", len(updates))
	}
	for i, want := range []struct{ first, count, value uint64 }{{0, 64, 7}, {1000, 64, 8}} {
		u := updates[i]
		key, _ := btfvalue.Uint(u.KeyBytes, 4)
		value, _ := btfvalue.Uint(u.ValueBytes, 8)
		if key != want.first || u.Count != want.count || value != want.value || u.Where() != fmt.Sprintf("init.yaml:%d", 3+i) {
			t.Errorf("update %d: key %d, count %d, value %d at %s; want %+v", i, key, u.Count, value, u.Where(), want)
		}
	}
	last := make([]byte, 4)
	updates[1].PutKey(last, 63)
	if k, _ := btfvalue.Uint(last, 4); k != 1063 {
		t.Errorf("the range's last key %d, want 1063", k)
	}

	// The file's max_entries sizes the map before its range is checked.
	updates, _, err = resolveDoc(t, "maps.o", "", LoadOptions{}, "max_entries:\n  config: 65537\nmaps:\n  config:\n    - {keys: {from: 0, to: 65536}, value: {port: 1}}\n")
	if err != nil || len(updates) != 1 || updates[0].Entries() != 65537 {
		t.Fatalf("a ring of 65537: %v, %+v", err, updates)
	}

	for _, tt := range []struct {
		object, program string
		opts            LoadOptions
		doc, want       string
	}{
		{"maps.o", "", LoadOptions{}, "maps:\n  lengths:\n    - {keys: {from: 0, to: 64}, value: 1}", "init.yaml:3: map lengths: keys 0 to 64 are 65, more than its max_entries 64"},
		{"maps.o", "", LoadOptions{}, "max_entries:\n  config: 65537\nmaps:\n  config:\n    - {keys: {from: 1, to: 65537}, value: {port: 1}}", "init.yaml:5: map config: keys 1 to 65537 go past its 65537 entries (indexes 0 to 65536)"},
		{"maps.o", "", LoadOptions{}, "maps:\n  config:\n    - {keys: {from: 0, count: 2}, value: {port: 1}}", "init.yaml:3: map config: keys 0 to 1 are 2, more than its max_entries 1"},
		{"maps.o", "", LoadOptions{}, "maps:\n  lengths:\n    - {keys: {from: 4294967295, count: 2}, value: 1}", "init.yaml:3: map lengths: key 4294967296 does not fit its keys of 4 bytes"},
		{"maps.o", "", LoadOptions{}, "maps:\n  lengths:\n    - {value: 1, repeat: 2}", "init.yaml:3: map lengths is a Hash: repeat is for queues and stacks"},
		{"maps.o", "", LoadOptions{}, "maps:\n  lengths:\n    - {keys: {from: 0, to: 1}, value: 1.5}", "init.yaml:3: map lengths value:"},
		{"maps.o", "", LoadOptions{KernelMemory: "1T"}, "max_entries:\n  lengths: 4294967295\nmaps:\n  lengths:\n    - {keys: {from: 0, count: 16777216}, value: 1}\n    - {key: 16777216, value: 1}",
			"init.yaml:6: more than 16777216 entries in all"},
		{"sections.o", "balance", LoadOptions{Type: "socket_filter"}, "maps:\n  queues:\n    - {keys: {from: 0, to: 3}, value: 1}", "init.yaml:3: map queues: keys: {from, to} counts integer keys; the map's key is struct rule"},
		{"tailcall.o", "entry", LoadOptions{}, "maps:\n  outer:\n    - {keys: {from: 0, to: 0}, value: inner}", ""},
		{"tailcall.o", "entry", LoadOptions{}, "max_entries:\n  outer: 2\nmaps:\n  outer:\n    - {keys: {from: 0, to: 1}, value: inner}", "init.yaml:5: map outer: a range of keys cannot each have a new inner map"},
		{"tailcall.o", "entry", LoadOptions{}, "maps:\n  chosen:\n    - {keys: {from: 0, to: 1}, value: drop}", ""},
	} {
		_, _, err := resolveDoc(t, tt.object, tt.program, tt.opts, tt.doc)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.doc, err)
			}
			continue
		}
		if !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want ErrMapInit with %q", tt.doc, err, tt.want)
		}
	}
}

// A range's keys count in its key type's byte order: the host's, or the
// network's for a __be16 key, as a single key of that type is written;
// without BTF, keys of 1, 2, 4 or 8 bytes in the host's.
func TestResolveKeyRangeByteOrder(t *testing.T) {
	u32 := &btf.Int{Name: "__u32", Size: 4}
	be16 := &btf.Typedef{Name: "__be16", Type: &btf.Int{Name: "__u16", Size: 2}}
	colour := &btf.Enum{Name: "colour", Size: 4, Values: []btf.EnumValue{{Name: "RED", Value: 0}}}
	spec := &ebpf.CollectionSpec{Maps: map[string]*ebpf.MapSpec{
		"ports":    {Name: "ports", Type: ebpf.Hash, KeySize: 2, Key: be16, ValueSize: 4, Value: u32, MaxEntries: 16},
		"colours":  {Name: "colours", Type: ebpf.Hash, KeySize: 4, Key: colour, ValueSize: 4, Value: u32, MaxEntries: 16},
		"plain":    {Name: "plain", Type: ebpf.Hash, KeySize: 8, ValueSize: 4, MaxEntries: 16},
		"odd":      {Name: "odd", Type: ebpf.Hash, KeySize: 3, ValueSize: 4, MaxEntries: 16},
		"prefixes": {Name: "prefixes", Type: ebpf.LPMTrie, KeySize: 8, ValueSize: 4, MaxEntries: 16},
	}, Programs: map[string]*ebpf.ProgramSpec{}}
	resolve := func(doc string) ([]Update, error) {
		init, err := ParseMapInit("init.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		updates, _, err := init.Resolve(spec, nil, Settings{})
		return updates, err
	}
	for _, tt := range []struct {
		doc  string
		last []byte // the range's last key
	}{
		{"maps:\n  ports:\n    - {keys: {from: 80, to: 90}, value: 1}", []byte{0, 90}},
		{"maps:\n  colours:\n    - {keys: {from: 0, to: 2}, value: 1}", binary.NativeEndian.AppendUint32(nil, 2)},
		{"maps:\n  plain:\n    - {keys: {from: 0x100000000, count: 3}, value_hex: '01000000'}", binary.NativeEndian.AppendUint64(nil, 0x100000002)},
	} {
		updates, err := resolve(tt.doc)
		if err != nil {
			t.Fatalf("%q: %v", tt.doc, err)
		}
		u := updates[0]
		last := make([]byte, len(u.KeyBytes))
		u.PutKey(last, u.Entries()-1)
		if !bytes.Equal(last, tt.last) {
			t.Errorf("%q: last key %x, want %x", tt.doc, last, tt.last)
		}
	}
	if _, err := resolve("maps:\n  odd:\n    - {keys: {from: 0, to: 2}, value_hex: '01000000'}"); !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), "init.yaml:3: map odd: keys: {from, to} counts integer keys of 1, 2, 4 or 8 bytes; the map's are of 3") {
		t.Errorf("a 3-byte key: %v", err)
	}
	if _, err := resolve("maps:\n  prefixes:\n    - {keys: {from: 0, to: 2}, value_hex: '01000000'}"); !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), "init.yaml:3: map prefixes is an LPM trie") {
		t.Errorf("an LPM trie: %v", err)
	}
	if _, err := resolve("maps:\n  ports:\n    - {keys: {from: 65535, count: 2}, value: 1}"); !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), "key 65536 does not fit its keys of 2 bytes") {
		t.Errorf("past a 2-byte key: %v", err)
	}
}

// fill resolves doc against object, loads it and puts its entries: by
// Apply, or each map's run in batches as Apply does, failing where Apply
// would fall back to one entry a call. The caller reads the maps.
func fill(t *testing.T, object, doc string, apply bool) *Loaded {
	t.Helper()
	updates, c, err := resolveDoc(t, object, "", LoadOptions{}, doc)
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	if apply {
		if err := l.Apply(updates); err != nil {
			t.Fatal(err)
		}
		return l
	}
	for len(updates) > 0 {
		n := batchable(updates)
		if n == 0 || entriesOf(updates[:n]) < minBatch {
			t.Fatalf("%s: not a batch", updates[0].Where())
		}
		if err := putBatch(context.Background(), l.Maps()[updates[0].MapName], updates[:n]); err != nil {
			t.Fatalf("%s: %v", updates[0].Where(), err)
		}
		updates = updates[n:]
	}
	return l
}

// A ring of 65537 positions in two ranges, a position given again after
// them, and a hash filled by a range over an entry before it: the kernel
// holds every entry, the later of two for a key; so in batches of a few
// entries that cut across the ranges.
func TestApplyRanges(t *testing.T) {
	kerneltest.RequireBPF(t)
	const doc = `max_entries:
  config: 65537
  lengths: 65537
maps:
  config:
    - {keys: {from: 0, to: 32767}, value: {port: 1, limit: 10}}
    - {keys: {from: 32768, count: 32769}, value: {port: 2, limit: 20}}
    - {key: 100, value: {port: 3}}
  lengths:
    - {key: 5, value: 1}
    - {keys: {from: 0, to: 65536}, value: 9}
    - {key: 7, value: 70}
`
	for _, tt := range []struct {
		batch int
		apply bool
	}{{batchBytes, true}, {batchBytes, false}, {1000, false}} {
		t.Run(fmt.Sprintf("batches of %d bytes, Apply %v", tt.batch, tt.apply), func(t *testing.T) {
			defer func(old int) { batchBytes = old }(batchBytes)
			batchBytes = tt.batch
			l := fill(t, "maps.o", doc, tt.apply)
			config, lengths := l.Maps()["config"], l.Maps()["lengths"]
			type configValue struct {
				Port    uint16
				Enabled uint8
				Pad     uint8
				Limit   uint32
			}
			for i := range uint32(65537) {
				var v configValue
				want := configValue{Port: 1, Limit: 10}
				switch {
				case i == 100:
					want = configValue{Port: 3}
				case i >= 32768:
					want = configValue{Port: 2, Limit: 20}
				}
				if err := config.Lookup(i, &v); err != nil || v != want {
					t.Fatalf("config[%d]: %+v, %v; want %+v", i, v, err, want)
				}
			}
			var key uint32
			var value uint64
			n := 0
			for it := lengths.Iterate(); it.Next(&key, &value); n++ {
				want := uint64(9)
				if key == 7 {
					want = 70
				}
				if key > 65536 || value != want {
					t.Fatalf("lengths[%d] = %d, want %d", key, value, want)
				}
			}
			if n != 65537 {
				t.Errorf("lengths holds %d entries, want 65537", n)
			}
		})
	}
}

// A per-CPU array of 65536 filled by one range goes in batches, a value
// for each CPU.
func TestApplyPerCPURange(t *testing.T) {
	kerneltest.RequireBPF(t)
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		t.Fatal(err)
	}
	value := "[1, 2]" // the rest of the CPUs 0
	if cpus == 1 {
		value = "[1]"
	}
	updates, c, err := resolveDoc(t, "ports.o", "", LoadOptions{}, "maps:\n  ports:\n    - {keys: {from: 0, to: 65535}, value: "+value+"}\n")
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ports := l.Maps()["ports"]
	if err := putBatch(context.Background(), ports, updates); err != nil {
		t.Fatalf("one batch: %v", err)
	}
	for i := range uint32(65536) {
		var v []uint64
		if err := ports.Lookup(i, &v); err != nil || len(v) != cpus || v[0] != 1 || cpus > 1 && v[1] != 2 || cpus > 2 && v[2] != 0 {
			t.Fatalf("ports[%d]: %v, %v; want [1 2 0 …]", i, v, err)
		}
	}
}

// Ranges the kernel cannot hold together are refused entry by entry, the
// refusal naming the range's line and its key; exit 1, not bad input.
func TestApplyRangeRefused(t *testing.T) {
	kerneltest.RequireBPF(t)
	updates, c, err := resolveDoc(t, "maps.o", "", LoadOptions{}, "maps:\n  lengths:\n    - {keys: {from: 0, to: 63}, value: 1}\n    - {keys: {from: 100, to: 163}, value: 2}\n")
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	err = l.Apply(updates)
	if want := "init.yaml:4: map lengths, key 100: the map is full (max_entries 64; E2BIG)"; err == nil || errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), want) {
		t.Errorf("128 keys in 64: %v, want %q, not bad input", err, want)
	}
}

// repeat pushes a queue's value that many times, in order with the
// entries around it; more than the queue holds is bad input.
func TestApplyRepeat(t *testing.T) {
	kerneltest.RequireBPF(t)
	b, err := bpf.Lookup("v2")
	if err != nil {
		t.Fatal(err)
	}
	obj := Object{Name: "v2", ELF: b.Object}
	resolve := func(doc string) ([]Update, error) {
		init, err := ParseMapInit("init.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		spec, _, _, err := obj.choose("", Settings{})
		if err != nil {
			t.Fatal(err)
		}
		updates, _, err := init.Resolve(spec, nil, Settings{})
		return updates, err
	}
	updates, err := resolve("maps:\n  verdicts:\n    - {value: FIZZ, repeat: 3}\n    - value: BUZZ\n")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(obj, "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Apply(updates); err != nil {
		t.Fatal(err)
	}
	var got []uint32
	for v := uint32(0); l.Maps()["verdicts"].LookupAndDelete(nil, &v) == nil; {
		got = append(got, v)
	}
	if fmt.Sprint(got) != "[1 1 1 2]" {
		t.Errorf("the queue holds %v, want FIZZ×3, BUZZ: [1 1 1 2]", got)
	}
	if _, err := resolve("maps:\n  verdicts:\n    - {value: FIZZ, repeat: 1025}\n"); !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), "init.yaml:3: map verdicts: repeat 1025 is more than the 1024 values it holds") {
		t.Errorf("repeat past the queue: %v", err)
	}
	if _, err := resolve("maps:\n  verdicts:\n    - {keys: {from: 0, to: 1}, value: FIZZ}\n"); !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), "init.yaml:3: map verdicts is a Queue: give values only") {
		t.Errorf("a range in a queue: %v", err)
	}
}
