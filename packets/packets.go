package packets

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/capture"
)

// Case is one packet fed to the program under test.
type Case struct {
	// Name selects the case on the command line, e.g. "fizz".
	Name string `json:"name"`
	// Summary describes the frame in a line, e.g. "udp 192.0.2.4:40000 > 198.51.100.1:9".
	Summary string `json:"summary"`
	// Source is the frame's IP source address; invalid when it has none.
	Source netip.Addr `json:"source"`
	// Frame is the whole Ethernet frame, without FCS.
	Frame []byte `json:"frame"`
	// Expect names the action the program must return for this frame, if
	// anything is expected: a packet file's expect:, --expect, or for the
	// bundled programs BundledExpect. Built-in cases expect nothing.
	Expect string `json:"expect"`
	// Context sets fields of the program's context for this case's runs.
	Context Context `json:"context,omitempty"`
	// State is the map state its runs are timed in (StateSteady or
	// StateFirst); empty for the default, steady.
	State string `json:"state,omitempty"`
	// ExpectOutput, if set, is the frame the program must leave (a packet
	// file's output:); CheckEffects says ExpectEffects are the map
	// effects its checking run must make, no more and no fewer (effects:),
	// each as the run shows it. A mismatch fails the run before timing.
	ExpectOutput  []byte   `json:"expect_output,omitempty"`
	ExpectEffects []string `json:"expect_effects,omitempty"`
	CheckEffects  bool     `json:"check_effects,omitempty"`
}

// The source-address classes of FizzBuzzFibonacci, in the order they are
// reported. The address is taken in host byte order; the Fibonacci test
// comes first, as in the story (see Classify).
const (
	Fizz      = "fizz"      // last octet not a Fibonacci number; divisible by 3, not by 5
	Buzz      = "buzz"      // last octet not a Fibonacci number; divisible by 5, not by 3
	FizzBuzz  = "fizzbuzz"  // last octet not a Fibonacci number; divisible by 15
	Fibonacci = "fibonacci" // address % 256 is a Fibonacci number
	None      = "none"      // none of the above: nothing is pushed
)

// BundledExpect is what the bundled builds, well-behaved Ethernet/IPv4
// parsers, return for a frame: XDP_ABORTED when it ends inside its
// headers, else XDP_PASS, IPv4 or not.
func BundledExpect(c Case) string {
	if headerCut(c.Frame) {
		return "XDP_ABORTED"
	}
	return "XDP_PASS"
}

// Cases outside the default set, selected by name.
const (
	NonIPv4 = "non-ipv4" // an IPv6/UDP frame: the parser passes it untouched
	Short   = "short"    // cut inside the IPv4 header: the parser aborts
	// High is the story's high endpoint, 192.0.2.255: its last octet, 255,
	// is no Fibonacci number and takes v3's loop the most steps (13); the
	// address is in class none.
	High = "high"
)

// highOctet is the high endpoint's last octet.
const highOctet = 255

// Errors of Select.
var (
	ErrUnknownCase   = badinput.New("unknown packet case")
	ErrDuplicateCase = badinput.New("packet case given twice")
)

// All frames come from and go to documentation prefixes (RFC 5737, RFC 3849),
// so that a capture of them can never be mistaken for real traffic.
var (
	classPrefix = netip.MustParseAddr("192.0.2.0")
	destination = netip.MustParseAddr("198.51.100.1")
	sourceMAC   = capture.DefaultSource
	destMAC     = capture.DefaultDestination
)

const (
	sourcePort = 40000
	destPort   = 9 // discard
	// Padding the UDP payload to 18 bytes makes a 60-byte frame, the
	// Ethernet minimum without FCS, as a NIC would hand it to XDP.
	payloadSize = 18
	// Short frames keep 10 of the 20 bytes of the IPv4 header.
	shortLength = 14 + 10
)

// classOctets is the last octet of each class's address within
// 192.0.2.0/24. 233 is the largest Fibonacci number below 256, so the
// fibonacci class takes the longest of the loop's paths that find one; the
// other classes' octets are no Fibonacci numbers. TestClassesMatchTheirNames
// checks each against its definition.
var classOctets = []struct {
	name  string
	octet byte
}{
	{Fizz, 4},
	{Buzz, 6},
	{FizzBuzz, 16},
	{Fibonacci, 233},
	{None, 9},
}

// Classes returns the names of the source-address classes, the default cases.
func Classes() []string {
	names := make([]string, len(classOctets))
	for i, c := range classOctets {
		names[i] = c.name
	}
	return names
}

// Names returns the name of every case that Select accepts.
func Names() []string {
	return append(append(Classes(), High, NonIPv4, Short), Mix()...)
}

// Default returns the cases for every source-address class.
func Default() []Case {
	cases, err := Select(Classes())
	if err != nil {
		panic(err) // the class table is static; a failure here is a bug
	}
	return cases
}

// Select returns the named cases in the given order. Names are trimmed and
// matched case-insensitively; "classes" stands for the source-address
// classes and "mix" for the protocol mix. Duplicates are an error, since a
// case measured twice would be reported twice.
func Select(names []string) ([]Case, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: no case given (known: %s)", ErrUnknownCase, known())
	}
	cases := make([]Case, 0, len(names))
	seen := make(map[string]bool)
	for _, name := range expandGroups(names) {
		if seen[name] {
			return nil, fmt.Errorf("%w: %q", ErrDuplicateCase, name)
		}
		seen[name] = true
		c, err := build(name)
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, nil
}

func build(name string) (Case, error) {
	for _, c := range classOctets {
		if c.name == name {
			return ipv4Case(name, classAddress(c.octet))
		}
	}
	switch name {
	case High:
		return ipv4Case(name, classAddress(highOctet))
	case NonIPv4:
		return ipv6Case(name)
	case Short:
		c, err := ipv4Case(name, classAddress(classOctets[0].octet))
		if err != nil {
			return Case{}, err
		}
		c.Frame = c.Frame[:shortLength]
		c.Source = netip.Addr{} // cut off with the rest of the header
		c.Summary = fmt.Sprintf("ipv4, header cut after %d of 20 bytes", shortLength-14)
		return c, nil
	}
	if c, ok, err := mixCase(name); ok {
		return c, err
	}
	return Case{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownCase, name, known())
}

// known lists what Select accepts, for error messages.
func known() string {
	return strings.Join(Names(), ", ") + "; groups: " + GroupClasses + ", " + GroupMix
}

// expandGroups trims and lower-cases names and replaces each group by
// its cases.
func expandGroups(names []string) []string {
	var out []string
	for _, raw := range names {
		switch name := strings.ToLower(strings.TrimSpace(raw)); name {
		case GroupClasses:
			out = append(out, Classes()...)
		case GroupMix:
			out = append(out, Mix()...)
		default:
			out = append(out, name)
		}
	}
	return out
}

func classAddress(octet byte) netip.Addr {
	a := classPrefix.As4()
	a[3] = octet
	return netip.AddrFrom4(a)
}

// HostOrder returns an IPv4 address as the number a program gets from
// bpf_ntohl(ip->saddr).
func HostOrder(addr netip.Addr) uint32 {
	a := addr.As4()
	return binary.BigEndian.Uint32(a[:])
}

// Classify returns the FizzBuzzFibonacci class of an IPv4 source address,
// as the bundled v3 and v4 builds decide it and the story has it: Fibonacci
// first, if the last octet is a Fibonacci number, for every address; then
// FizzBuzz, Fizz, Buzz.
func Classify(addr netip.Addr) string {
	class, _ := classify(addr)
	return class
}

// Reason says why an IPv4 source address is in its class.
func Reason(addr netip.Addr) string {
	_, why := classify(addr)
	return why
}

func classify(addr netip.Addr) (class, why string) {
	n := HostOrder(addr)
	octet := fmt.Sprintf("last octet %d", n%256)
	if slices.Contains(fibonacciBelow256, n%256) {
		return Fibonacci, octet + " is a Fibonacci number"
	}
	octet += " is no Fibonacci number"
	switch {
	case n%15 == 0:
		return FizzBuzz, fmt.Sprintf("%s; %d is divisible by 15", octet, n)
	case n%3 == 0:
		return Fizz, fmt.Sprintf("%s; %d is divisible by 3, not by 5", octet, n)
	case n%5 == 0:
		return Buzz, fmt.Sprintf("%s; %d is divisible by 5, not by 3", octet, n)
	}
	return None, fmt.Sprintf("%s; %d is divisible by neither 3 nor 5", octet, n)
}

// fibonacciBelow256 are the Fibonacci numbers below 256, as v4 tests them.
// v3's loop, the story's, finds the same but for 0.
var fibonacciBelow256 = []uint32{0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233}

func ipv4Case(name string, src netip.Addr) (Case, error) {
	return udpCase(name, src, destination)
}

func ipv6Case(name string) (Case, error) {
	return udpCase(name, netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::2"))
}

// udpCase is a UDP datagram from src to dst over IPv4 or IPv6, as their
// family says.
func udpCase(name string, src, dst netip.Addr) (Case, error) {
	eth := &layers.Ethernet{SrcMAC: sourceMAC, DstMAC: destMAC}
	var ip netLayer
	summary := fmt.Sprintf("udp %s:%d > %s:%d", src, sourcePort, dst, destPort)
	if src.Is4() {
		eth.EthernetType = layers.EthernetTypeIPv4
		ip = &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: src.AsSlice(), DstIP: dst.AsSlice()}
	} else {
		eth.EthernetType = layers.EthernetTypeIPv6
		ip = &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolUDP, SrcIP: src.AsSlice(), DstIP: dst.AsSlice()}
		summary = fmt.Sprintf("udp6 [%s]:%d > [%s]:%d", src, sourcePort, dst, destPort)
	}
	frame, err := serialize(eth, ip, &layers.UDP{SrcPort: sourcePort, DstPort: destPort})
	if err != nil {
		return Case{}, fmt.Errorf("build case %s: %w", name, err)
	}
	return Case{Name: name, Summary: summary, Source: src, Frame: frame}, nil
}

// netLayer is what UDP needs to compute its pseudo-header checksum.
type netLayer interface {
	gopacket.SerializableLayer
	gopacket.NetworkLayer
}

func serialize(eth *layers.Ethernet, ip netLayer, udp *layers.UDP) ([]byte, error) {
	return buildFrame(eth, ip, udp, gopacket.Payload(make([]byte, payloadSize)))
}

// buildFrame is the one frame builder: it serializes layers with valid
// lengths and checksums:
// each transport whose checksum covers a pseudo-header gets the network
// layer below it.
func buildFrame(stack ...gopacket.SerializableLayer) ([]byte, error) {
	var network gopacket.NetworkLayer
	for _, l := range stack {
		if n, ok := l.(gopacket.NetworkLayer); ok {
			network = n
		}
		if t, ok := l.(interface {
			SetNetworkLayerForChecksum(gopacket.NetworkLayer) error
		}); ok && network != nil {
			if err := t.SetNetworkLayerForChecksum(network); err != nil {
				return nil, err
			}
		}
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, stack...); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
