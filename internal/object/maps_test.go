package object

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

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
	if len(updates) != 1 || string(updates[0].value) != string(want) || len(updates[0].key) != 4 {
		t.Fatalf("updates %+v, want value %v", updates, want)
	}
	if got := btfvalue.Format(spec.Maps["config"].Value, updates[0].value); got != "{port: 53, enabled: 1, pad: 0, limit: 59}" {
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
	if err := putBatch(lengths, entries(minBatch)); err != nil {
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
