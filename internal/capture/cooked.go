package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"

	"github.com/google/gopacket/layers"
)

// Linux cooked captures, which `tcpdump -i any` writes: each packet starts
// with a pseudo-header instead of its link header, since the interfaces
// of "any" need not share one. A program under test is handed Ethernet
// frames, so the pseudo-header is replaced with an Ethernet header built
// from it: the EtherType it records, the sender's MAC when the interface
// is Ethernet, and a destination as the packet type says (broadcast,
// multicast, or the default).

// DefaultSource and DefaultDestination are the MAC addresses a cooked
// packet's Ethernet header gets where its pseudo-header gives none:
// package packets' own defaults, which it takes from here so that the
// two stay one.
var (
	DefaultSource      = net.HardwareAddr{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}
	DefaultDestination = net.HardwareAddr{0x02, 0x00, 0x00, 0x00, 0x00, 0x02}
)

// Link types of the captures read, in full: gopacket's LinkType is a byte.
const (
	LinkEthernet  = uint32(layers.LinkTypeEthernet)
	LinkLinuxSLL  = uint32(layers.LinkTypeLinuxSLL) // 113
	LinkLinuxSLL2 = 276
)

// Cooked headers: SLL is packet type, ARPHRD type, address length,
// address (8), protocol; SLL2 is protocol, reserved, ifindex, ARPHRD type,
// packet type, address length, address (8).
const (
	sllLength   = 16
	sll2Length  = 20
	ArphrdEther = 1
)

// Packet types of the cooked headers (PACKET_* of linux/if_packet.h).
const (
	PacketHost      = 0
	PacketBroadcast = 1
	PacketMulticast = 2
	PacketOtherHost = 3
	PacketOutgoing  = 4
)

// ErrNotEthernet marks a cooked packet that has no Ethernet form, such as
// an 802.2 LLC frame or a netlink message: it is skipped and counted.
var ErrNotEthernet = errors.New("no Ethernet form")

// cooked is what a cooked header says.
type cooked struct {
	packetType uint16
	hatype     uint16
	addr       []byte
	protocol   uint16
	ifindex    uint32 // SLL2 only
	length     int    // of the header
}

func parseCooked(link uint32, data []byte) (cooked, error) {
	var c cooked
	switch link {
	case LinkLinuxSLL:
		if len(data) < sllLength {
			return c, ErrShort
		}
		c = cooked{
			packetType: binary.BigEndian.Uint16(data[0:]),
			hatype:     binary.BigEndian.Uint16(data[2:]),
			addr:       data[6 : 6+min(int(binary.BigEndian.Uint16(data[4:])), 8)],
			protocol:   binary.BigEndian.Uint16(data[14:]),
			length:     sllLength,
		}
	case LinkLinuxSLL2:
		if len(data) < sll2Length {
			return c, ErrShort
		}
		c = cooked{
			protocol:   binary.BigEndian.Uint16(data[0:]),
			ifindex:    binary.BigEndian.Uint32(data[4:]),
			hatype:     binary.BigEndian.Uint16(data[8:]),
			packetType: uint16(data[10]),
			addr:       data[12 : 12+min(int(data[11]), 8)],
			length:     sll2Length,
		}
	default:
		return c, linkTypeError(link)
	}
	return c, nil
}

// ErrShort marks a packet too short to use.
var ErrShort = errors.New("too short")

// fromCooked returns the Ethernet frame of a cooked packet, and a note on
// where it came from for the case's summary.
func fromCooked(link uint32, data []byte) (frame []byte, note string, err error) {
	c, err := parseCooked(link, data)
	if err != nil {
		return nil, "", err
	}
	if c.protocol < 0x0600 {
		// Below 0x0600 the field is one of Linux's ETH_P_802_2 and kin,
		// not an EtherType.
		return nil, "", fmt.Errorf("%w: cooked protocol %#04x", ErrNotEthernet, c.protocol)
	}
	payload := data[c.length:]
	src := DefaultSource
	if c.hatype == ArphrdEther && len(c.addr) == 6 {
		src = net.HardwareAddr(c.addr)
	}
	dst := destinationMAC(c.packetType, layers.EthernetType(c.protocol), payload)
	frame = make([]byte, 0, 14+len(payload))
	frame = append(append(frame, dst...), src...)
	frame = binary.BigEndian.AppendUint16(frame, c.protocol)
	frame = append(frame, payload...)

	from := "SLL"
	if link == LinkLinuxSLL2 {
		from = fmt.Sprintf("SLL2, ifindex %d", c.ifindex)
	}
	return frame, fmt.Sprintf("from cooked %s, %s", from, packetTypeName(c.packetType)), nil
}

// destinationMAC is a destination fitting the packet type: the broadcast
// address, the multicast MAC of an IP destination, or the default.
func destinationMAC(packetType uint16, etherType layers.EthernetType, payload []byte) net.HardwareAddr {
	switch {
	case packetType == PacketBroadcast:
		return layers.EthernetBroadcast
	case packetType != PacketMulticast:
		return DefaultDestination
	case etherType == layers.EthernetTypeIPv4 && len(payload) >= 20:
		return net.HardwareAddr{0x01, 0x00, 0x5e, payload[17] & 0x7f, payload[18], payload[19]}
	case etherType == layers.EthernetTypeIPv6 && len(payload) >= 40:
		return net.HardwareAddr{0x33, 0x33, payload[36], payload[37], payload[38], payload[39]}
	}
	return net.HardwareAddr{0x01, 0x00, 0x5e, 0, 0, 1}
}

func packetTypeName(t uint16) string {
	switch t {
	case PacketHost:
		return "in"
	case PacketBroadcast:
		return "broadcast"
	case PacketMulticast:
		return "multicast"
	case PacketOtherHost:
		return "other host"
	case PacketOutgoing:
		return "out"
	}
	return fmt.Sprintf("packet type %d", t)
}
