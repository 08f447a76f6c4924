package replay

import (
	"bytes"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// flowFrame is a UDP frame of flow i: its own source address and port.
func flowFrame(t testing.TB, i int) []byte {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP,
		SrcIP: net.IPv4(10, byte(i>>16), byte(i>>8), byte(i)), DstIP: net.IPv4(198, 51, 100, 1)}
	udp := &layers.UDP{SrcPort: layers.UDPPort(10000 + i%50000), DstPort: 53}
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	buf := gopacket.NewSerializeBuffer()
	err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		eth, ip, udp, gopacket.Payload(make([]byte, 18)))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(buf.Bytes())
}

// flowOrder is the flows of packets in a shuffled order (seeded): flows
// flows of perFlow packets each.
func flowOrder(flows, perFlow int, seed uint64) []int {
	order := make([]int, 0, flows*perFlow)
	for f := range flows {
		for range perFlow {
			order = append(order, f)
		}
	}
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

// writeCapture writes a pcap of the frames of flows in order, and
// returns its path.
func writeCapture(t testing.TB, order []int, extra ...[]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "flows.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	frames := map[int][]byte{}
	at := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	write := func(frame []byte) {
		at = at.Add(time.Microsecond)
		ci := gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(frame), Length: len(frame)}
		if err := w.WritePacket(ci, frame); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range order {
		if frames[i] == nil {
			frames[i] = flowFrame(t, i)
		}
		write(frames[i])
	}
	for _, frame := range extra {
		write(frame)
	}
	return path
}

// writeBytes writes data to a file of the test's.
func writeBytes(t testing.TB, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "capture")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
