package xdpmicro_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"maps"
	"net"
	"slices"
	"time"

	"github.com/cilium/ebpf"
	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/report"
)

// Measure a bundled build's source-address classes: each case's action
// and instruction count are exact, the same on every machine.
func ExampleMeasure() {
	rep, err := xdpmicro.Measure(context.Background(), xdpmicro.Build("v4"), &xdpmicro.Options{Budget: time.Second})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range rep.Programs[0].Results {
		fmt.Printf("%-9s %s %d insns, %s\n", c.Name, c.Action, c.Instructions, timed(c.Stats != nil && c.Net != nil))
	}
	// Output:
	// fizz      XDP_PASS 50 insns, timed, net of the floor
	// buzz      XDP_PASS 55 insns, timed, net of the floor
	// fizzbuzz  XDP_PASS 44 insns, timed, net of the floor
	// fibonacci XDP_PASS 33 insns, timed, net of the floor
	// none      XDP_PASS 47 insns, timed, net of the floor
}

func timed(ok bool) string {
	if ok {
		return "timed, net of the floor"
	}
	return "not timed"
}

// Compare two builds, interleaved: the instruction counts of before and
// after are exact; the report's Comparison holds each case's change in
// time and its verdict.
func ExampleCompare() {
	rep, err := xdpmicro.Compare(context.Background(), xdpmicro.Build("v3"), xdpmicro.Build("v4"), &xdpmicro.Options{Budget: 2 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	before, after := rep.Programs[0].Results, rep.Programs[1].Results
	for i, c := range rep.Comparison.Cases {
		fmt.Printf("%-9s %3d -> %d insns, %d%% less\n", c.Name, before[i].Instructions, after[i].Instructions,
			100-100*after[i].Instructions/before[i].Instructions)
	}
	// Output:
	// fizz      100 -> 50 insns, 50% less
	// buzz      118 -> 55 insns, 54% less
	// fizzbuzz  131 -> 44 insns, 67% less
	// fibonacci 185 -> 33 insns, 83% less
	// none      122 -> 47 insns, 62% less
}

// A program as bpf2go's generated code returns it, with a packet built
// with gopacket: the case's expected action is checked before it is
// timed, and a wrong one fails the run.
func ExampleSpec() {
	spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(bpf.Builds()[3].Object)) // bpf2go: loadX()
	if err != nil {
		log.Fatal(err)
	}
	frame := udpFrame(net.IP{10, 0, 0, 21}) // 21: a Fibonacci number
	c := xdpmicro.Frame("from-10.0.0.21", frame)
	c.Expect = "XDP_PASS"
	rep, err := xdpmicro.Measure(context.Background(), xdpmicro.Spec(spec, "fizzbuzz"),
		&xdpmicro.Options{Cases: []packets.Case{c}, Budget: time.Second})
	if err != nil {
		log.Fatal(err)
	}
	got := rep.Programs[0].Results[0]
	fmt.Println(got.Name, got.Action, got.Instructions, "insns")
	for _, e := range got.Effects {
		fmt.Println(e.Map, e.Change, e.Value)
	}
	// Output:
	// from-10.0.0.21 XDP_PASS 37 insns
	// verdicts pushed FIBONACCI
}

// Write a report as Bencher's BMF, as the command's --format bmf does:
// a benchmark per case, its latency in ns with the interval's bounds,
// and its instruction count, which is exact.
func ExampleMeasure_bmf() {
	rep, err := xdpmicro.Measure(context.Background(), xdpmicro.Build("v4"), &xdpmicro.Options{Budget: time.Second})
	if err != nil {
		log.Fatal(err)
	}
	var bmf bytes.Buffer
	if err := report.Write(&bmf, rep, report.BMF, report.View{}); err != nil {
		log.Fatal(err)
	}
	type metric struct {
		Value float64  `json:"value"`
		Lower *float64 `json:"lower_value"`
		Upper *float64 `json:"upper_value"`
	}
	var benchmarks map[string]map[string]metric
	if err := json.Unmarshal(bmf.Bytes(), &benchmarks); err != nil {
		log.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(benchmarks)) {
		if verified, ok := benchmarks[name]["verified-instructions"]; ok {
			// The program's own benchmark: what loading it cost the
			// verifier (how many, the kernel's verifier decides).
			fmt.Printf("%-18s insns processed by the verifier counted: %v\n", name, verified.Value > 0)
			continue
		}
		latency, insns := benchmarks[name]["latency"], benchmarks[name]["instructions"]
		bounded := latency.Lower != nil && latency.Upper != nil && *latency.Lower <= latency.Value && latency.Value <= *latency.Upper
		fmt.Printf("%-18s %v insns, latency within its bounds: %v\n", name, insns.Value, bounded)
	}
	// Output:
	// fizzbuzz           insns processed by the verifier counted: true
	// fizzbuzz/buzz      55 insns, latency within its bounds: true
	// fizzbuzz/fibonacci 33 insns, latency within its bounds: true
	// fizzbuzz/fizz      50 insns, latency within its bounds: true
	// fizzbuzz/fizzbuzz  44 insns, latency within its bounds: true
	// fizzbuzz/none      47 insns, latency within its bounds: true
}

// udpFrame is an Ethernet IPv4 UDP frame from src, with valid lengths and
// checksums.
func udpFrame(src net.IP) []byte {
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2},
		EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: src, DstIP: net.IP{10, 0, 0, 1}}
	udp := &layers.UDP{SrcPort: 40000, DstPort: 9}
	_ = udp.SetNetworkLayerForChecksum(ip)
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		eth, ip, udp, gopacket.Payload(make([]byte, 18))); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}
