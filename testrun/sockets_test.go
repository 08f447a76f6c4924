package testrun

import (
	"context"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
)

// xsk.o, an AF_XDP program: its XSKMAP, which user space cannot read
// back, is left out of the checking run's comparison with a note, and
// the run completes, the per-CPU counter's change shown.
func TestSocketMapNotCompared(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases, err := packets.Select([]string{packets.TCPSyn, packets.ARP})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: kerneltest.ReadTestObject[Object](t, "xsk.o")}}, Cases: cases,
		CPU: -1, Samples: MinSamples, Repeat: 100})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(res.Environment.Notes, "\n")
	if want := "the checking run's changes to these maps are not shown: sockets (XSKMap, whose sockets user space cannot read)"; !strings.Contains(notes, want) {
		t.Errorf("notes %q lack %q", notes, want)
	}
	for _, c := range res.Programs[0].Cases {
		if c.Action != "XDP_PASS" || !strings.HasPrefix(effectStrings(c), "map queue_packets: [0] set ") || len(c.Samples) == 0 {
			t.Errorf("%s: %s, effects %q, %d samples; want XDP_PASS, queue 0 counted, and samples", c.Case.Name, c.Action, effectStrings(c), len(c.Samples))
		}
	}
}
