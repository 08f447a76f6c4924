package packets

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
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
	cases, err := Select(append(Classes(), High, NonIPv4, Short))
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
				if c.Expect != "" || BundledExpect(c) != "XDP_ABORTED" {
					t.Fatalf("short frame expects %q, the bundled builds %s", c.Expect, BundledExpect(c))
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

// The Fibonacci test comes first, for every address, as in the story: an
// address FizzBuzz has a word for is Fibonacci when its last octet is one.
func TestFibonacciFirst(t *testing.T) {
	fib := map[uint32]bool{}
	for a, b := uint32(0), uint32(1); a < 256; a, b = b, a+b {
		fib[a] = true
	}
	words := 0
	for octet := range 256 {
		addr := classAddress(byte(octet))
		n := HostOrder(addr)
		want := None
		switch {
		case fib[n%256]:
			want = Fibonacci
			if n%3 == 0 || n%5 == 0 {
				words++
			}
		case n%15 == 0:
			want = FizzBuzz
		case n%3 == 0:
			want = Fizz
		case n%5 == 0:
			want = Buzz
		}
		if got := Classify(addr); got != want {
			t.Errorf("%s: %s, want %s (%s)", addr, got, want, Reason(addr))
		}
	}
	if words == 0 {
		t.Fatal("no Fibonacci octet in 192.0.2.0/24 that FizzBuzz also has a word for: the order is untested")
	}
}

// The high endpoint: 192.0.2.255, no Fibonacci number, class none.
func TestHighEndpoint(t *testing.T) {
	cases, err := Select([]string{High})
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	if c.Source != netip.MustParseAddr("192.0.2.255") || Classify(c.Source) != None || BundledExpect(c) != "XDP_PASS" || len(c.Frame) != 60 {
		t.Errorf("high endpoint: %+v, class %s", c, Classify(c.Source))
	}
	if slices.Contains(Classes(), High) || !slices.Contains(Names(), High) {
		t.Error("the high endpoint is to be selectable, not a default class")
	}
	if why := Reason(c.Source); !strings.Contains(why, "last octet 255 is no Fibonacci number") {
		t.Errorf("reason %q", why)
	}
}
