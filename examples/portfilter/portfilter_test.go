package portfilter_test

import (
	"net"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/examples/portfilter"
	"github.com/xdpmicro/xdpmicro/packets"
)

// cases are the packets the filter meets: blocked and passed ports over
// TCP and UDP, each with the action it must get (xdpmicro checks it
// before timing), and the protocol mix for the paths that find no port.
func cases(b *testing.B) []packets.Case {
	ssh := xdpmicro.Frame("tcp-22-blocked", frame(b, &layers.TCP{SrcPort: 40000, DstPort: 22, SYN: true}))
	ssh.Expect = "XDP_DROP"
	web := xdpmicro.Frame("tcp-443-passed", frame(b, &layers.TCP{SrcPort: 40000, DstPort: 443, SYN: true}))
	web.Expect = "XDP_PASS"
	dns := xdpmicro.Frame("udp-53-blocked", frame(b, &layers.UDP{SrcPort: 40000, DstPort: 53}))
	dns.Expect = "XDP_DROP"
	return append([]packets.Case{ssh, web, dns}, xdpmicro.Mix()...)
}

// BenchmarkFilter measures the filter as bpf2go's code would load it,
// with SSH and DNS blocked: a sub-benchmark per packet.
func BenchmarkFilter(b *testing.B) {
	spec, err := portfilter.Spec(22, 53)
	if err != nil {
		b.Fatal(err)
	}
	xdpmicro.Benchmark(b, xdpmicro.Spec(spec, "xdp_port_filter"), &xdpmicro.Options{Cases: cases(b)})
}

// BenchmarkLoadedFilter measures the program as the project loaded it,
// maps and all. The kernel's copy has no instructions to count: give the
// spec, as above, for insns/op.
func BenchmarkLoadedFilter(b *testing.B) {
	f, err := portfilter.Load(22, 53)
	if err != nil {
		b.Skipf("loading the filter needs root, or CAP_BPF and CAP_NET_ADMIN: %v", err)
	}
	defer f.Close()
	xdpmicro.Benchmark(b, xdpmicro.Loaded(f.Program()), &xdpmicro.Options{Cases: cases(b)})
}

// frame builds an Ethernet IPv4 frame around a TCP or UDP header, with
// valid lengths and checksums.
func frame(b *testing.B, l4 gopacket.SerializableLayer) []byte {
	b.Helper()
	eth := &layers.Ethernet{
		SrcMAC: net.HardwareAddr{0x02, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{0x02, 0, 0, 0, 0, 2},
		EthernetType: layers.EthernetTypeIPv4,
	}
	ip := &layers.IPv4{Version: 4, TTL: 64, SrcIP: net.IP{192, 0, 2, 1}, DstIP: net.IP{198, 51, 100, 1}}
	switch l := l4.(type) {
	case *layers.TCP:
		ip.Protocol = layers.IPProtocolTCP
		_ = l.SetNetworkLayerForChecksum(ip)
	case *layers.UDP:
		ip.Protocol = layers.IPProtocolUDP
		_ = l.SetNetworkLayerForChecksum(ip)
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, eth, ip, l4); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
