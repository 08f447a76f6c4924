package packets

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// reserialized decodes a frame and serializes its layers again with
// lengths and checksums computed: a frame that comes back unchanged had
// them right.
func reserialized(t *testing.T, frame []byte) []byte {
	t.Helper()
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	var stack []gopacket.SerializableLayer
	for i, l := range pkt.Layers() {
		if eth, ok := l.(*layers.Ethernet); ok && i > 0 {
			// Inside VXLAN: no padding to 60 bytes.
			stack = append(stack, &InnerEthernet{Src: eth.SrcMAC, Dst: eth.DstMAC, EtherType: eth.EthernetType})
			continue
		}
		s, ok := l.(gopacket.SerializableLayer)
		if !ok {
			t.Fatalf("layer %s cannot be serialized", l.LayerType())
		}
		stack = append(stack, s)
	}
	out, err := buildFrame(stack...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layerTypes lists the layers gopacket decodes a frame into.
func layerTypes(frame []byte, first gopacket.LayerType) []gopacket.LayerType {
	var types []gopacket.LayerType
	for _, l := range gopacket.NewPacket(frame, first, gopacket.Default).Layers() {
		types = append(types, l.LayerType())
	}
	return types
}

// Each case of the protocol mix decodes to the layers its name promises,
// with valid lengths and checksums.
func TestMixFrames(t *testing.T) {
	want := map[string][]gopacket.LayerType{
		TCPSyn:     {layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeTCP},
		UDPDNS:     {layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, layers.LayerTypeDNS},
		ICMPEcho:   {layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeICMPv4, gopacket.LayerTypePayload},
		IPv6TCPSyn: {layers.LayerTypeEthernet, layers.LayerTypeIPv6, layers.LayerTypeTCP},
		VLANUDP:    {layers.LayerTypeEthernet, layers.LayerTypeDot1Q, layers.LayerTypeIPv4, layers.LayerTypeUDP, layers.LayerTypeDNS},
		ARP:        {layers.LayerTypeEthernet, layers.LayerTypeARP, gopacket.LayerTypePayload}, // the padding to 60 bytes
	}
	cases := DefaultMix()
	if len(cases) != len(want) {
		t.Fatalf("%d cases in the mix, want %d", len(cases), len(want))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if got := layerTypes(c.Frame, layers.LayerTypeEthernet); !slices.Equal(got, want[c.Name]) {
				t.Fatalf("layers %v, want %v", got, want[c.Name])
			}
			if again := reserialized(t, c.Frame); !bytes.Equal(again, c.Frame) {
				t.Errorf("lengths or checksums wrong:\n got %x\nwant %x", c.Frame, again)
			}
			if len(c.Frame) < 60 || c.Summary == "" || c.Expect != "" || BundledExpect(c) != "XDP_PASS" {
				t.Errorf("%d bytes, summary %q, expect %q, the bundled builds %s", len(c.Frame), c.Summary, c.Expect, BundledExpect(c))
			}
			if c.Name != ARP && !c.Source.IsValid() {
				t.Error("no source address")
			}
		})
	}
	pkt := gopacket.NewPacket(cases[0].Frame, layers.LayerTypeEthernet, gopacket.Default)
	syn := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP)
	if !syn.SYN || syn.ACK || syn.DstPort != 80 || len(syn.Options) != 5 {
		t.Errorf("the SYN: %+v", syn)
	}
	dns := gopacket.NewPacket(cases[1].Frame, layers.LayerTypeEthernet, gopacket.Default).Layer(layers.LayerTypeDNS).(*layers.DNS)
	if len(dns.Questions) != 1 || string(dns.Questions[0].Name) != "example.com" || dns.QR {
		t.Errorf("the DNS query: %+v", dns)
	}
}

// Groups select the classes or the mix, and count as their cases for
// duplicates.
func TestSelectGroups(t *testing.T) {
	cases, err := Select([]string{"Mix", GroupClasses})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
	}
	if want := append(Mix(), Classes()...); !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if _, err := Select([]string{GroupMix, ARP}); err == nil {
		t.Error("arp given twice, through the mix and by name, was accepted")
	}
}
