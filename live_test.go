package xdpmicro_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/livenet"
)

// liveOptions measures prog with live frames beside its test run, briefly.
func liveOptions(t *testing.T, prog xdpmicro.Program) xdpmicro.Options {
	t.Helper()
	programs, err := xdpmicro.Targets(prog)
	if err != nil {
		t.Fatal(err)
	}
	o := xdpmicro.Options{Programs: programs, Cases: xdpmicro.Mix(), Live: true, Budget: 2 * time.Second, Placements: 2}
	return o
}

// Live frames carry the action out: the check confirms where the frames
// went (or the run fails), and carrying out XDP_PASS (an skb for the
// stack) or XDP_TX (a frame out of the veth) costs more than returning it.
func TestLive(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	if err := livenet.Supported(); err != nil {
		t.Skipf("no live frames here: %v", err)
	}
	for _, tc := range []struct {
		prog   xdpmicro.Program
		action string
	}{
		{xdpmicro.Find("v4", ""), "XDP_PASS"},
		{xdpmicro.File("bpf/testdata/tailcall.o", "transmit"), "XDP_TX"},
	} {
		rep, err := xdpmicro.Run(context.Background(), liveOptions(t, tc.prog), nil)
		if err != nil {
			t.Fatal(err)
		}
		c := rep.Comparison
		if c == nil || c.Live == nil || c.Live.Batch != 64 {
			t.Fatalf("%s: the report does not say it ran live frames in batches of 64: %+v", tc.action, c)
		}
		for _, cc := range c.Cases {
			if cc.Action != tc.action || cc.Live == nil {
				t.Errorf("%s, %s: action %q, live %v", tc.action, cc.Name, cc.Action, cc.Live)
			}
			if cc.Difference.Lower <= 0 {
				t.Errorf("%s, %s: carrying the action out cost %+.1f [%+.1f %+.1f] ns: nothing", tc.action, cc.Name,
					cc.Difference.Point, cc.Difference.Lower, cc.Difference.Upper)
			}
		}
	}
}

// What live frames cannot run is refused before anything is measured.
func TestLiveRefused(t *testing.T) {
	ctx := context.Background()
	o := liveOptions(t, xdpmicro.Find("v4", ""))
	o.LiveBatch = 1000
	if _, err := xdpmicro.Run(ctx, o, nil); !errors.Is(err, xdpmicro.ErrBadInput) || !strings.Contains(err.Error(), "1 to 256") {
		t.Errorf("a batch of 1000: %v, want bad input naming the kernel's 256", err)
	}
	kerneltest.RequireBPF(t)
	if err := livenet.Supported(); err != nil {
		t.Skipf("no live frames here: %v", err)
	}
	// rewrite.o swaps the frame's addresses in place: live frames' pages
	// come back with the program's output in them.
	o = liveOptions(t, xdpmicro.File("bpf/testdata/rewrite.o", "swap_macs"))
	if _, err := xdpmicro.Run(ctx, o, nil); !errors.Is(err, xdpmicro.ErrBadInput) || !strings.Contains(err.Error(), "recycle") {
		t.Errorf("a program that rewrites its frame: %v, want it refused, saying why", err)
	}
}
