package packets

import (
	"errors"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

func TestClassesMatchTheirNames(t *testing.T) {
	for _, c := range Default() {
		if got := Classify(c.Source); got != c.Name {
			t.Errorf("case %s: source %s classifies as %s", c.Name, c.Source, got)
		}
	}
}

func TestFibonacciClassTakesTheLongestLoop(t *testing.T) {
	cases, err := Select([]string{Fibonacci})
	if err != nil {
		t.Fatal(err)
	}
	if got := HostOrder(cases[0].Source) % 256; got != 233 {
		t.Fatalf("fibonacci source ends in %d, want 233", got)
	}
}

// Frames must decode cleanly with valid checksums: a program that checks
// them must see a real packet, not a synthetic one.
func TestFramesAreValid(t *testing.T) {
	cases, err := Select(Names())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			pkt := gopacket.NewPacket(c.Frame, layers.LayerTypeEthernet, gopacket.Default)
			if c.Name == Short {
				if len(c.Frame) != shortLength {
					t.Fatalf("short frame is %d bytes, want %d", len(c.Frame), shortLength)
				}
				if c.Expect != "XDP_ABORTED" {
					t.Fatalf("short frame expects %s", c.Expect)
				}
				return
			}
			if fail := pkt.ErrorLayer(); fail != nil {
				t.Fatalf("decode: %v", fail.Error())
			}
			if len(c.Frame) != 60 && c.Name != NonIPv4 {
				t.Errorf("frame is %d bytes, want 60", len(c.Frame))
			}
			udp, ok := pkt.Layer(layers.LayerTypeUDP).(*layers.UDP)
			if !ok {
				t.Fatal("no UDP layer")
			}
			if ip4, ok := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ok {
				if ip4.SrcIP.String() != c.Source.String() {
					t.Errorf("source %s, want %s", ip4.SrcIP, c.Source)
				}
				if sum := onesComplement(c.Frame[14:34]); sum != 0xffff {
					t.Errorf("IPv4 header checksum invalid (sum %#x)", sum)
				}
				if udp.Checksum == 0 {
					t.Error("UDP checksum not computed")
				}
			} else if c.Name != NonIPv4 {
				t.Fatal("no IPv4 layer")
			}
		})
	}
}

func onesComplement(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(b[i])<<8 | uint32(b[i+1])
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return uint16(sum)
}

func TestSelect(t *testing.T) {
	if got := len(Default()); got != 5 {
		t.Fatalf("default has %d cases, want 5", got)
	}
	cases, err := Select([]string{" Short", "fizz"})
	if err != nil {
		t.Fatal(err)
	}
	if cases[0].Name != Short || cases[1].Name != Fizz {
		t.Fatalf("order not kept: %s, %s", cases[0].Name, cases[1].Name)
	}
	for _, bad := range [][]string{{"nope"}, {}, {"fizz", "fizz"}} {
		if _, err := Select(bad); err == nil {
			t.Errorf("Select(%q) succeeded", bad)
		}
	}
	if _, err := Select([]string{"nope"}); !errors.Is(err, ErrUnknownCase) {
		t.Errorf("unknown name: %v, want ErrUnknownCase", err)
	}
}
