package testrun

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/report"
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
	spec, _, _, err := readTestObject(t, "maps.o").choose("", loadSettings{})
	if err != nil {
		t.Fatal(err)
	}
	init, err := ParseMapInit("init.yaml", []byte(configInit))
	if err != nil {
		t.Fatal(err)
	}
	updates, _, err := init.resolve(spec, nil, loadSettings{})
	if err != nil {
		t.Fatal(err)
	}
	// struct config {u16 port; u8 enabled; u8 pad; u32 limit}, little-endian.
	want := []byte{53, 0, 1, 0, 59, 0, 0, 0}
	if len(updates) != 1 || string(updates[0].value) != string(want) || len(updates[0].key) != 4 {
		t.Fatalf("updates %+v, want value %v", updates, want)
	}
	if got := formatValue(spec.Maps["config"].Value, updates[0].value); got != "{port: 53, enabled: 1, pad: 0, limit: 59}" {
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
		if _, _, err := init.resolve(spec, nil, loadSettings{}); !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", doc, err, msg)
		}
	}
}

// The checking run reports what each case changed in the maps.
func TestEffects(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.Fizz, packets.None})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Config{Programs: []Program{{Object: bundled(t, "v4")}},
		Cases: cases, CPU: -1, Samples: MinSamples, Repeat: 10})
	if err != nil {
		t.Fatal(err)
	}
	fizz, none := res.Programs[0].Cases[0].Effects, res.Programs[0].Cases[1].Effects
	if len(fizz) != 1 || report.Effect(fizz[0]).String() != "map verdicts: pushed FIZZ" || len(none) != 0 {
		t.Errorf("fizz: %v, none: %v; want one FIZZ pushed for fizz and nothing for none", fizz, none)
	}

	init, err := ParseMapInit("init.yaml", []byte(configInit))
	if err != nil {
		t.Fatal(err)
	}
	own := cases[:1]
	for _, withInit := range []bool{false, true} {
		cfg := Config{Programs: []Program{{Object: readTestObject(t, "maps.o")}},
			Cases: own, CPU: -1, Samples: MinSamples, Repeat: 10}
		if withInit {
			cfg.MapInit = init
		}
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		c := res.Programs[0].Cases[0]
		var effects []string
		for _, e := range c.Effects {
			effects = append(effects, report.Effect(e).String())
		}
		got := strings.Join(effects, "; ")
		want, action := "map .bss: [0] set {packets: 1}", "XDP_PASS"
		if withInit { // 60-byte frame over a 59-byte limit
			want, action = "map .bss: [0] set {packets: 1}; map lengths: [60] set 1", "XDP_DROP"
		}
		if got != want || c.Action != action {
			t.Errorf("map-init %v: %s, effects %q; want %s, %q", withInit, c.Action, got, action, want)
		}
	}
}
