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
	"github.com/xdpmicro/xdpmicro/testrun"
)

// liveOptions measures prog with live frames beside its test run, briefly.
func liveOptions(t *testing.T, prog xdpmicro.Program) xdpmicro.Options {
	t.Helper()
	programs := []xdpmicro.Program{prog}
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
		// Into the pair's AF_XDP socket, which the xskmap is given.
		{xdpmicro.File("bpf/testdata/xsk.o", "to_socket"), "XDP_REDIRECT"},
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
	o = liveOptions(t, xdpmicro.File("bpf/testdata/xsk.o", "to_socket"))
	o.Repeat = livenet.SocketFrames + 1
	if _, err := xdpmicro.Run(ctx, o, nil); !errors.Is(err, xdpmicro.ErrBadInput) || !strings.Contains(err.Error(), "AF_XDP socket must fit its rings") {
		t.Errorf("more frames a call than the socket's rings hold: %v, want bad input saying so", err)
	}
	o = liveOptions(t, xdpmicro.Find("v4", ""))
	o.SingleRun = true
	if _, err := xdpmicro.Run(ctx, o, nil); !errors.Is(err, xdpmicro.ErrBadInput) || !strings.Contains(err.Error(), "one a call") {
		t.Errorf("live frames one run a call: %v, want bad input saying they come in batches", err)
	}
}

// Live frames show an action that changes from run to run, which one
// checking run cannot: every_other sends a queue's frames to its socket
// and the stack by turns, so a batch of either case splits between them,
// and the run fails rather than time a mix under one action.
func TestLiveMixedActionsFail(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	if err := livenet.Supported(); err != nil {
		t.Skipf("no live frames here: %v", err)
	}
	for _, class := range []string{"udp-dns", "udp-dns,tcp-syn"} {
		o := liveOptions(t, xdpmicro.File("bpf/testdata/alternate.o", ""))
		cases, err := xdpmicro.Classes(strings.Split(class, ",")...)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cases {
			cases[i].Expect = "" // the classes expect the bundled program's XDP_PASS
		}
		o.Cases = cases
		_, err = xdpmicro.Run(context.Background(), o, nil)
		if !errors.Is(err, testrun.ErrLiveMismatch) || !strings.Contains(err.Error(), "the stack 32 and the AF_XDP socket 32") {
			t.Errorf("--class %s: %v, want the frames found split 32 and 32", class, err)
		}
	}
}

// A program that rewrites its frame runs live through the restorer, which
// writes the frame back before every run (the kernel recycles live pages
// with the program's output in them): flip_proto turns IPv4 frames into
// IPv6 ones and sends them with XDP_TX, and passes any other, so every
// batch of an IPv4 case that reached it unrestored would go to the stack,
// and the check, over recycled pages, would fail the run.
func TestLiveRestored(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	if err := livenet.Supported(); err != nil {
		t.Skipf("no live frames here: %v", err)
	}
	rep, err := xdpmicro.Run(context.Background(), liveOptions(t, xdpmicro.File("bpf/testdata/rewrite.o", "flip_proto")), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tcp-syn": "XDP_TX", "udp-dns": "XDP_TX", "icmp-echo": "XDP_TX", "ipv6-tcp-syn": "XDP_PASS", "vlan-udp": "XDP_PASS", "arp": "XDP_PASS"}
	if rep.Comparison == nil || len(rep.Comparison.Cases) != len(want) {
		t.Fatalf("comparison %+v: want the six cases of the mix", rep.Comparison)
	}
	for _, cc := range rep.Comparison.Cases {
		if cc.Action != want[cc.Name] || cc.Live == nil {
			t.Errorf("%s: action %q, live %v: want %s with a live estimate", cc.Name, cc.Action, cc.Live, want[cc.Name])
		}
	}
}
