package object

import (
	"errors"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
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
	spec, _, _, err := readTestObject(t, "maps.o").choose("", Settings{})
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
