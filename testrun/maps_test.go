package testrun

import (
	"context"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// The checking run reports what each case changed in the maps.
func TestEffects(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.Fizz, packets.None})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: bundled(t, "v4")}},
		Cases: cases, CPU: -1, Samples: MinSamples, Repeat: 10})
	if err != nil {
		t.Fatal(err)
	}
	fizz, none := res.Programs[0].Cases[0].Effects, res.Programs[0].Cases[1].Effects
	if len(fizz) != 1 || results.Effect(fizz[0]).String() != "map verdicts: pushed FIZZ" || len(none) != 0 {
		t.Errorf("fizz: %v, none: %v; want one FIZZ pushed for fizz and nothing for none", fizz, none)
	}

	init, err := ParseMapInit("init.yaml", []byte(configInit))
	if err != nil {
		t.Fatal(err)
	}
	own := cases[:1]
	for _, withInit := range []bool{false, true} {
		cfg := Config{Sampling: SamplingFlat, Programs: []Program{{Object: kerneltest.ReadTestObject[Object](t, "maps.o")}},
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
			effects = append(effects, results.Effect(e).String())
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
