package testrun

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf"

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
	res, err := Run(context.Background(), Config{Programs: []Program{{Object: readTestObject(t, "xsk.o")}}, Cases: cases,
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

// A map that user space fails to read for want of support (a type not
// known to be unreadable) is noted and left out, not a failed run: here
// an XSKMAP, read as if it were any map.
func TestUnreadableMapNoted(t *testing.T) {
	kerneltest.RequireBPF(t)
	m, err := ebpf.NewMap(&ebpf.MapSpec{Name: "sockets", Type: ebpf.XSKMap, KeySize: 4, ValueSize: 4, MaxEntries: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = snapshotOne(m)
	if err == nil {
		t.Fatal("an XSKMAP was read from user space")
	}
	l := &loaded{spec: &ebpf.CollectionSpec{}}
	if !l.unreadable("sockets", err) {
		t.Fatalf("%v: not taken for a map user space cannot read", err)
	}
	if note := l.unwatchedNote(); !strings.Contains(note, "sockets (user space could not read it: ") || !strings.Contains(note, "operation not supported") {
		t.Errorf("note %q; want sockets, unread, with the kernel's reason", note)
	}
	if l.unreadable("other", os.ErrClosed) {
		t.Error("any error taken for a map user space cannot read")
	}
}
