package packets

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

func allBuiltIn(t *testing.T) []Case {
	t.Helper()
	cases, err := Select(Names())
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestPcapRoundTrip(t *testing.T) {
	cases := allBuiltIn(t)
	var buf bytes.Buffer
	if err := WritePcap(&buf, cases); err != nil {
		t.Fatal(err)
	}
	back, err := ParsePcap("mem.pcap", bytes.NewReader(buf.Bytes()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(cases) {
		t.Fatalf("%d cases back, want %d", len(back), len(cases))
	}
	for i, c := range back {
		if !bytes.Equal(c.Frame, cases[i].Frame) {
			t.Errorf("case %d: frame changed", i)
		}
	}
	if back[0].Name != "1:udp 192.0.2.4>198.51.100.1" || back[0].Source != cases[0].Source {
		t.Errorf("first case %q from %v", back[0].Name, back[0].Source)
	}
	if !strings.HasPrefix(back[5].Name, "6:udp6 2001:db8::1>") {
		t.Errorf("IPv6 case named %q", back[5].Name)
	}
	var again bytes.Buffer
	if err := WritePcap(&again, cases); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Error("the same cases gave a different capture")
	}
}

func TestPcapDedupeLimitAndShortFrames(t *testing.T) {
	cases := allBuiltIn(t)
	frames := [][]byte{cases[0].Frame, cases[0].Frame, make([]byte, 10), cases[1].Frame, cases[2].Frame}
	var ng bytes.Buffer
	w, err := pcapgo.NewNgWriter(&ng, layers.LinkTypeEthernet)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(0, 0), CaptureLength: len(f), Length: len(f), InterfaceIndex: 0}
		if err := w.WritePacket(ci, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got, err := ParsePcap("mem.pcapng", bytes.NewReader(ng.Bytes()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !strings.HasPrefix(got[1].Name, "4:") {
		t.Fatalf("got %d cases (%v); want 3, the duplicate and the 10-byte frame skipped", len(got), got)
	}
	limited, err := ParsePcap("mem.pcapng", bytes.NewReader(ng.Bytes()), 2)
	if err != nil || len(limited) != 2 {
		t.Fatalf("limit 2: %d cases, %v", len(limited), err)
	}
}

func TestPcapRejects(t *testing.T) {
	var raw bytes.Buffer
	w := pcapgo.NewWriter(&raw)
	if err := w.WriteFileHeader(65535, layers.LinkTypeRaw); err != nil {
		t.Fatal(err)
	}
	var onlyShort bytes.Buffer
	w = pcapgo.NewWriter(&onlyShort)
	_ = w.WriteFileHeader(65535, layers.LinkTypeEthernet)
	_ = w.WritePacket(gopacket.CaptureInfo{CaptureLength: 4, Length: 4}, []byte{1, 2, 3, 4})
	for name, data := range map[string][]byte{
		"empty":       nil,
		"garbage":     []byte("this is not a capture at all"),
		"raw IP":      raw.Bytes(),
		"only short":  onlyShort.Bytes(),
		"cut in half": raw.Bytes()[:10],
	} {
		if _, err := ParsePcap(name, bytes.NewReader(data), 0); !errors.Is(err, ErrPcap) {
			t.Errorf("%s: %v, want ErrPcap", name, err)
		}
	}
	if _, err := ReadPcap("no/such.pcap", 0); !errors.Is(err, ErrPcap) {
		t.Errorf("missing file: %v", err)
	}
}

func TestPad(t *testing.T) {
	cases := allBuiltIn(t)
	for _, c := range []Case{cases[0], cases[5]} { // UDP over IPv4 and IPv6
		for _, size := range []int{96, 512, 1500} {
			p, err := Pad(c, size)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Frame) != size || p.Name != c.Name+"@"+itoa(size) {
				t.Fatalf("%s: %d bytes, named %s", c.Name, len(p.Frame), p.Name)
			}
			pkt := gopacket.NewPacket(p.Frame, layers.LayerTypeEthernet, gopacket.Default)
			udp, ok := pkt.Layer(layers.LayerTypeUDP).(*layers.UDP)
			if !ok || pkt.ErrorLayer() != nil || int(udp.Length) != size-14-ipHeader(pkt) {
				t.Fatalf("%s@%d does not decode as a longer UDP packet", c.Name, size)
			}
			if ip4, ok := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ok {
				if onesComplement(p.Frame[14:34]) != 0xffff || int(ip4.Length) != size-14 {
					t.Errorf("%s@%d: IPv4 header wrong", c.Name, size)
				}
			}
			// Re-serializing with checksums computed must give the same bytes.
			re, ok := growPayload(p.Frame, size)
			if !ok || !bytes.Equal(re, p.Frame) {
				t.Errorf("%s@%d: checksums not what gopacket computes", c.Name, size)
			}
		}
	}
	short, err := Pad(cases[6], 64) // cut IPv4 header: a trailer of zeros
	if err != nil || len(short.Frame) != 64 || !bytes.Equal(short.Frame[:24], cases[6].Frame) {
		t.Errorf("short frame: %v, %d bytes", err, len(short.Frame))
	}
	for _, size := range []int{10, 59, 9019} {
		if _, err := Pad(cases[0], size); !errors.Is(err, ErrSize) {
			t.Errorf("size %d: %v, want ErrSize", size, err)
		}
	}
}

func ipHeader(pkt gopacket.Packet) int {
	if pkt.Layer(layers.LayerTypeIPv6) != nil {
		return 40
	}
	return 20
}

func itoa(n int) string {
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
