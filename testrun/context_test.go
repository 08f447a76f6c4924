package testrun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// loadTest loads one program of a bpf/testdata object for the test.
func loadTest(t *testing.T, obj, program string) *object.Loaded {
	t.Helper()
	l, err := object.Load(object.Object(kerneltest.ReadTestObject[Object](t, obj)), program)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// withContext is a case of the protocol mix with the context ctx.
func withContext(t *testing.T, name, ctx string) packets.Case {
	t.Helper()
	cases, err := packets.Select([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	c.Expect = ""
	if ctx != "" {
		if c.Context, err = packets.ParseContext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// runWith runs a case once, as the checking run does.
func runWith(t *testing.T, l *object.Loaded, c packets.Case) (uint32, []object.ContextChange, error) {
	t.Helper()
	ctx, err := object.ContextIn(l.Info.Type, c)
	if err != nil {
		return 0, nil, err
	}
	ret, _, out, err := l.RunOnce(c.Frame, ctx)
	return ret, object.ContextChanges(l.Info.Type, ctx, out), err
}

// otherDevice is a network interface other than the loopback, whose
// index (above 1) tc's ifindex takes as a real device.
func otherDevice(t *testing.T) net.Interface {
	t.Helper()
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range ifaces {
		if i.Index > 1 {
			return i
		}
	}
	t.Skip("no network interface but the loopback")
	return net.Interface{}
}

// unusedIndex is an interface index no device has.
func unusedIndex(t *testing.T) int {
	t.Helper()
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	highest := 0
	for _, i := range ifaces {
		highest = max(highest, i.Index)
	}
	return highest + 1000
}

// Every context field xdpmicro offers reaches the program as given: the
// test programs return the field they are asked for.
func TestContextReachesThePrograms(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	dev := otherDevice(t)
	frame := withContext(t, packets.TCPSyn, "").Frame
	for _, tc := range []struct {
		program, ctx string
		want         uint32
	}{
		{"tc_field", "cb0=1,mark=0x2a", 42},
		{"tc_field", "cb0=2,priority=3", 3},
		{"tc_field", "cb0=3,ingress_ifindex=7", 7},
		{"tc_field", "cb0=4", 1}, // the loopback device, by default
		{"tc_field", fmt.Sprintf("cb0=4,ifindex=%d", dev.Index), uint32(dev.Index)},
		{"tc_field", "cb0=5,cb[4]=9", 9},
		{"tc_field", "cb0=6,tstamp=77", 77},
		{"tc_field", fmt.Sprintf("cb0=7,wire_len=%d", len(frame)+10), uint32(len(frame) + 10)},
		{"tc_field", "cb0=8,gso_segs=5", 5},
		{"tc_field", "cb0=9,gso_size=1400", 1400},
		{"tc_field", "cb0=10,hwtstamp=33", 33},
		{"socket_field", "cb0=1,mark=0x2a", 42},
		{"socket_field", "cb0=2,priority=3", 3},
		{"socket_field", fmt.Sprintf("cb0=4,ifindex=%s", dev.Name), uint32(dev.Index)},
		{"socket_field", "cb0=5,cb4=9", 9},
		{"xdp_ingress", "ingress_ifindex=lo", 100},
		{"xdp_ingress", fmt.Sprintf("ingress_ifindex=%d,rx_queue_index=0", dev.Index), uint32(dev.Index) * 100},
		{"xdp_ingress", "", 100},    // the loopback device's queue 0, by default
		{"tc_mark", "mark=0x2a", 2}, // TC_ACT_SHOT
		{"tc_mark", "mark=0x2b", 0},
	} {
		t.Run(tc.program+" "+tc.ctx, func(t *testing.T) {
			l := loadTest(t, "ctx.o", tc.program)
			ret, changes, err := runWith(t, l, withContext(t, packets.TCPSyn, tc.ctx))
			if err != nil {
				t.Fatal(err)
			}
			if ret != tc.want || changes != nil {
				t.Errorf("returned %d, changes %v; want %d, none", ret, changes, tc.want)
			}
		})
	}
}

// What xdpmicro refuses of a context before running is what the kernel
// refuses, no more: each check's limit is run past the checks, just
// inside and just outside.
func TestContextChecksAreTheKernels(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	frame := withContext(t, packets.TCPSyn, "").Frame
	queues, err := object.RxQueues("lo")
	if err != nil {
		t.Skip("no receive queues of lo in sysfs:", err)
	}
	unused := unusedIndex(t)
	for _, tc := range []struct {
		program, ctx string
		errno        error // nil: accepted
	}{
		{"xdp_ingress", fmt.Sprintf("ingress_ifindex=1,rx_queue_index=%d", queues-1), nil},
		{"xdp_ingress", fmt.Sprintf("ingress_ifindex=1,rx_queue_index=%d", queues), unix.EINVAL},
		{"xdp_ingress", "rx_queue_index=1", unix.EINVAL},
		{"xdp_ingress", fmt.Sprintf("ingress_ifindex=%d", unused), unix.ENODEV},
		{"tc_field", fmt.Sprintf("ifindex=%d", unused), unix.ENODEV},
		{"tc_field", fmt.Sprintf("ingress_ifindex=%d", unused), nil}, // only copied
		{"tc_field", fmt.Sprintf("wire_len=%d", len(frame)), nil},
		{"tc_field", fmt.Sprintf("wire_len=%d", len(frame)-1), unix.EINVAL},
		{"tc_field", "wire_len=65536", nil},
		{"tc_field", "wire_len=65537", unix.EINVAL},
		{"socket_field", fmt.Sprintf("wire_len=%d", len(frame)-14), nil},
		{"socket_field", fmt.Sprintf("wire_len=%d", len(frame)-15), unix.EINVAL},
		{"tc_field", "gso_segs=65535", nil},
		{"tc_field", "gso_segs=65536", unix.EINVAL},
	} {
		t.Run(tc.program+" "+tc.ctx, func(t *testing.T) {
			l := loadTest(t, "ctx.o", tc.program)
			c := withContext(t, packets.TCPSyn, tc.ctx)
			raw, err := object.EncodeContext(l.Info.Type, c)
			if err != nil {
				t.Fatal(err)
			}
			_, _, kernelErr := testRun(l.Prog.FD(), c.Frame, raw, 1)
			if !errors.Is(kernelErr, tc.errno) || (tc.errno == nil) != (kernelErr == nil) {
				t.Errorf("the kernel: %v, want %v", kernelErr, tc.errno)
			}
			_, checkErr := object.ContextIn(l.Info.Type, c)
			if (checkErr == nil) != (kernelErr == nil) || checkErr != nil && !errors.Is(checkErr, ErrConfig) {
				t.Errorf("xdpmicro's checks: %v; the kernel: %v", checkErr, kernelErr)
			}
		})
	}
	// Fields outside the list are refused by the kernel: __sk_buff's len
	// and tstamp_type, xdp_md's egress_ifindex.
	for _, tc := range []struct {
		program string
		offset  int
	}{{"tc_field", 0}, {"tc_field", 180}, {"socket_field", 0}, {"xdp_ingress", 20}} {
		l := loadTest(t, "ctx.o", tc.program)
		raw, err := object.EncodeContext(l.Info.Type, withContext(t, packets.TCPSyn, "ingress_ifindex=0"))
		if err != nil {
			t.Fatal(err)
		}
		raw[tc.offset] = 1
		if _, _, err := testRun(l.Prog.FD(), frame, raw, 1); !errors.Is(err, unix.EINVAL) {
			t.Errorf("%s: a context with byte %d set: %v, want EINVAL", tc.program, tc.offset, err)
		}
	}
}

// A context goes with every timed call, not only the checking run: a
// marked case of tc_mark returns TC_ACT_SHOT in every sample, sampled many
// runs a call or one, and XDP's ingress device holds with anchors. A
// program that changes its context is shown doing so, and sampled one run
// a call, each on a fresh context.
func TestContextInEverySample(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	ctxObject := kerneltest.ReadTestObject[Object](t, "ctx.o")
	// Another device than lo, the default, if there is one.
	ingress, ingressRet := "lo", uint32(100)
	if ifaces, err := net.Interfaces(); err == nil && len(ifaces) > 1 && ifaces[1].Index > 1 {
		ingress, ingressRet = ifaces[1].Name, uint32(ifaces[1].Index)*100
	}
	for _, tc := range []struct {
		program, ctx string
		single       bool
		want         uint32
		changes      string
	}{
		{"tc_mark", "mark=0x2a", false, 2, ""},
		{"tc_mark", "mark=0x2a", true, 2, ""},
		{"xdp_ingress", "ingress_ifindex=" + ingress, false, ingressRet, ""},
		{"tc_set_mark", "mark=7", false, 0, "[mark 0x7 -> 0x2a]"},
	} {
		t.Run(fmt.Sprintf("%s %s single=%v", tc.program, tc.ctx, tc.single), func(t *testing.T) {
			res, err := Run(context.Background(), Config{
				Sampling: SamplingFlat,
				Programs: []Program{{Object: ctxObject, Program: tc.program}},
				Cases:    []packets.Case{withContext(t, packets.UDPDNS, tc.ctx), withContext(t, packets.TCPSyn, "")},
				CPU:      -1, Samples: MinSamples, Repeat: 100, SingleRun: tc.single,
			})
			if err != nil {
				t.Fatal(err)
			}
			c := res.Programs[0].Cases[0]
			if c.Return != tc.want || c.OtherReturns != 0 || len(c.Samples) != MinSamples {
				t.Errorf("returned %d, %d samples ended otherwise (%d); want %d every time", c.Return, c.OtherReturns, c.OtherReturn, tc.want)
			}
			var words []results.ContextChange // as the table words them
			for _, ch := range c.ContextChanges {
				words = append(words, results.ContextChange(ch))
			}
			if got := fmt.Sprint(words); tc.changes != "" && got != tc.changes || c.Single != (tc.single || tc.changes != "") {
				t.Errorf("context changes %s, single %v", got, c.Single)
			}
			// The case without a context runs without one.
			if plain := res.Programs[0].Cases[1]; plain.ContextChanges != nil || tc.program == "tc_mark" && plain.Return != 0 {
				t.Errorf("the case without context: %+v", plain)
			}
		})
	}
}

// A context the program type cannot take is bad input, told before
// anything is loaded or any privilege is needed.
func TestContextRefusedBeforeLoading(t *testing.T) {
	obj := kerneltest.ReadTestObject[Object](t, "ctx.o")
	for _, tc := range []struct{ program, ctx, want string }{
		{"xdp_ingress", "mark=1", "context field mark: the test run of an XDP program takes only ingress_ifindex, rx_queue_index"},
		{"tc_mark", "rx_queue_index=1", "context field rx_queue_index: the test run of a SchedCLS program takes only mark, priority,"},
		{"tc_mark", "mark=0x100000000", "context field mark=0x100000000: wider than its 32 bits"},
		{"xdp_ingress", "rx_queue_index=2", "rx_queue_index=2 needs ingress_ifindex"},
		{"tc_mark", fmt.Sprintf("ifindex=%d", unusedIndex(t)), "no network interface has that index here"},
	} {
		_, err := Run(context.Background(), Config{
			Sampling: SamplingFlat,
			Programs: []Program{{Object: obj, Program: tc.program}},
			Cases:    []packets.Case{withContext(t, packets.TCPSyn, tc.ctx)},
			CPU:      -1, Samples: MinSamples,
		})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "case tcp-syn: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s --ctx %s: %v, want ErrConfig saying %q", tc.program, tc.ctx, err, tc.want)
		}
	}
}

// The kernel hands a program the frames the cases describe: a parser that
// returns a code per protocol (bpf/testdata/proto.c) finds in each what
// its name says, through VLAN tags and encapsulations.
func TestFramesReachTheParser(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	l := loadTest(t, "proto.o", "")
	check := func(cases []packets.Case, want map[string]uint32) {
		t.Helper()
		if len(cases) != len(want) {
			t.Fatalf("%d cases, want %d", len(cases), len(want))
		}
		for _, c := range cases {
			ret, _, _, err := l.RunOnce(c.Frame, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if w, ok := want[c.Name]; !ok || ret != w {
				t.Errorf("%s (%s): the parser returned %d, want %d", c.Name, c.Summary, ret, w)
			}
		}
	}
	check(packets.DefaultMix(), map[string]uint32{
		packets.TCPSyn: 12, packets.UDPDNS: 13, packets.ICMPEcho: 14, packets.IPv6TCPSyn: 15, packets.VLANUDP: 113, packets.ARP: 11,
	})
	fromFile, err := packets.ParseFile("t.yaml", []byte(`cases:
  - {name: arp, arp: {sender_ip: 192.0.2.10, target_ip: 192.0.2.1}}
  - {name: qinq, eth: {vlan: [100, 200]}, ipv4: {src: 192.0.2.1, dst: 198.51.100.1}, udp: {src: 1, dst: 53}}
  - {name: ping6, ipv6: {src: "2001:db8::1", dst: "2001:db8::2"}, icmp: {type: echo-request}}
  - {name: ipip, encap: {type: ipip, src: 10.0.0.1, dst: 10.0.0.2}, ipv4: {src: 192.0.2.1, dst: 198.51.100.1}, tcp: {src: 1, dst: 80}}
  - {name: ip6ip, encap: {type: ipip, src: 10.0.0.1, dst: 10.0.0.2}, ipv6: {src: "2001:db8::1", dst: "2001:db8::2"}, tcp: {src: 1, dst: 80}}
  - {name: ipip6-tagged, eth: {vlan: 7}, encap: {type: ipip, src: "2001:db8::a", dst: "2001:db8::b"}, ipv4: {src: 192.0.2.1, dst: 198.51.100.1}, udp: {src: 1, dst: 2}}
  - {name: gue, encap: {type: gue, src: 10.0.0.1, dst: 10.0.0.2}, ipv6: {src: "2001:db8::1", dst: "2001:db8::2"}, tcp: {src: 1, dst: 80}}
  - {name: gue6, encap: {type: gue, src: "2001:db8::a", dst: "2001:db8::b"}, ipv4: {src: 192.0.2.1, dst: 198.51.100.1}, icmp: {type: echo-request}}
  - {name: vxlan, encap: {type: vxlan, src: 10.0.0.1, dst: 10.0.0.2, vni: 42}, ipv4: {src: 192.0.2.1, dst: 198.51.100.1}, udp: {src: 1, dst: 53}}
  - {name: lldp, eth: {type: 0x88cc}, payload: {size: 46}}
`))
	if err != nil {
		t.Fatal(err)
	}
	check(fromFile, map[string]uint32{
		"arp": 11, "qinq": 213, "ping6": 17, "ipip": 3012, "ip6ip": 3015, "ipip6-tagged": 3113,
		"gue": 1015, "gue6": 1014, "vxlan": 2013, "lldp": 19,
	})
	captured, err := packets.ReadPcap("../packets/testdata/any-sll2.pcap", 0)
	if err != nil {
		t.Fatal(err)
	}
	check(captured, map[string]uint32{
		"1:udp 127.0.0.1>127.0.0.1": 13, "2:icmp 127.0.0.1>127.0.0.1": 14, "3:udp6 ::1>::1": 16,
		"4:icmp6 ::1>::1": 17, "5:tcp6 ::1>::1": 15, "6:tcp6 ::1>::1": 15,
	})
}
