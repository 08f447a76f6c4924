package object

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// The context a case's runs are given (packets.Context): BPF_PROG_TEST_RUN
// takes it as the program type's struct, an xdp_md or a __sk_buff, and
// refuses any field it does not copy into the packet it builds. These are
// the fields net/bpf/test_run.c takes (xdp_convert_md_to_buff,
// convert___skb_to_skb), at their offsets in the UAPI structs.

// contextField is a field the kernel takes from a test run's context.
type contextField struct {
	name     string
	offset   int
	size     int  // 4 or 8 bytes
	writable bool // a program may change it, and the kernel copies it back
}

// xdpContext is struct xdp_md: data, data_end and data_meta are the
// frame's bounds, which xdpmicro sets; egress_ifindex must be zero.
var xdpContext = struct {
	size   int
	fields []contextField
}{24, []contextField{
	{name: "ingress_ifindex", offset: 12, size: 4},
	{name: "rx_queue_index", offset: 16, size: 4},
}}

// xdpDataEnd is the offset of xdp_md's data_end: the frame's length.
const xdpDataEnd = 4

// xdpEgressIfindex is the offset of xdp_md's egress_ifindex, which only
// devmap programs may read.
const xdpEgressIfindex = 20

// skbContext is struct __sk_buff, for tc and socket filters.
var skbContext = struct {
	size   int
	fields []contextField
}{192, []contextField{
	{name: "mark", offset: 8, size: 4, writable: true},
	{name: "priority", offset: 32, size: 4, writable: true},
	{name: "ingress_ifindex", offset: 36, size: 4},
	{name: "ifindex", offset: 40, size: 4},
	{name: "cb[0]", offset: 48, size: 4, writable: true},
	{name: "cb[1]", offset: 52, size: 4, writable: true},
	{name: "cb[2]", offset: 56, size: 4, writable: true},
	{name: "cb[3]", offset: 60, size: 4, writable: true},
	{name: "cb[4]", offset: 64, size: 4, writable: true},
	{name: "tstamp", offset: 152, size: 8, writable: true},
	{name: "wire_len", offset: 160, size: 4},
	{name: "gso_segs", offset: 164, size: 4},
	{name: "gso_size", offset: 176, size: 4},
	{name: "hwtstamp", offset: 184, size: 8},
}}

// Limits of convert___skb_to_skb: GSO_LEGACY_MAX_SIZE and GSO_MAX_SEGS.
const (
	maxWireLen = 65536
	maxGSOSegs = 65535
)

// ContextFields names the context fields a program of that type can be
// given; none for a type without a context to give.
func ContextFields(programType ebpf.ProgramType) []string {
	var names []string
	for _, f := range contextLayout(programType) {
		names = append(names, f.name)
	}
	return names
}

func contextLayout(programType ebpf.ProgramType) []contextField {
	switch programType {
	case ebpf.XDP:
		return xdpContext.fields
	case ebpf.SchedCLS, ebpf.SocketFilter:
		return skbContext.fields
	}
	return nil
}

// ContextIn encodes a case's context for a program of that type, checking
// what the kernel would refuse with a bare EINVAL or ENODEV; nil when the
// case sets none. Errors wrap ErrConfig: the context is the user's input.
func ContextIn(programType ebpf.ProgramType, c packets.Case) ([]byte, error) {
	buf, err := EncodeContext(programType, c)
	if err != nil || buf == nil {
		return nil, err
	}
	if programType == ebpf.XDP {
		err = checkXDPContext(c.Context)
	} else {
		err = checkSkbContext(programType, c)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return buf, nil
}

// EncodeContext lays a case's context out as the program type's struct.
func EncodeContext(programType ebpf.ProgramType, c packets.Case) ([]byte, error) {
	if len(c.Context) == 0 {
		return nil, nil
	}
	layout := contextLayout(programType)
	if layout == nil {
		return nil, fmt.Errorf("%w: %s program takes no context", ErrConfig, WithArticle(programType))
	}
	size := skbContext.size
	if programType == ebpf.XDP {
		size = xdpContext.size
	}
	buf := make([]byte, size)
	for _, f := range c.Context {
		i := slices.IndexFunc(layout, func(l contextField) bool { return l.name == f.Name })
		if i < 0 {
			return nil, fmt.Errorf("%w: context field %s: the test run of %s program takes only %s",
				ErrConfig, f.Name, WithArticle(programType), strings.Join(ContextFields(programType), ", "))
		}
		l := layout[i]
		if l.size == 4 && f.Value > 0xffffffff {
			return nil, fmt.Errorf("%w: context field %s=%#x: wider than its 32 bits", ErrConfig, f.Name, f.Value)
		}
		if l.size == 4 {
			binary.NativeEndian.PutUint32(buf[l.offset:], uint32(f.Value))
		} else {
			binary.NativeEndian.PutUint64(buf[l.offset:], f.Value)
		}
	}
	if programType == ebpf.XDP {
		binary.NativeEndian.PutUint32(buf[xdpDataEnd:], uint32(len(c.Frame)))
	}
	return buf, nil
}

// checkXDPContext: the kernel takes the frame as received on
// ingress_ifindex's queue rx_queue_index, which must exist; a queue
// without a device means nothing.
func checkXDPContext(c packets.Context) error {
	ifindex, hasDevice := c.Get("ingress_ifindex")
	queue, _ := c.Get("rx_queue_index")
	if !hasDevice || ifindex == 0 {
		if queue != 0 {
			return fmt.Errorf("context field rx_queue_index=%d needs ingress_ifindex: the queue of which device?", queue)
		}
		return nil
	}
	iface, err := device("ingress_ifindex", ifindex)
	if err != nil {
		return err
	}
	queues, err := RxQueues(iface.Name)
	if err != nil {
		return nil // the kernel will say
	}
	if queue >= uint64(queues) {
		return fmt.Errorf("context field rx_queue_index=%d: %s (ifindex %d) has %d receive queue(s), 0 to %d",
			queue, iface.Name, iface.Index, queues, queues-1)
	}
	return nil
}

// checkSkbContext: ifindex above 1 names the device the skb arrives on,
// which must exist (1 and 0 are the loopback device, the default);
// wire_len is the length on the wire, never less than the packet's.
func checkSkbContext(programType ebpf.ProgramType, c packets.Case) error {
	if ifindex, ok := c.Context.Get("ifindex"); ok && ifindex > 1 {
		if _, err := device("ifindex", ifindex); err != nil {
			return err
		}
	}
	if wire, ok := c.Context.Get("wire_len"); ok && wire != 0 {
		// A socket filter's skb starts after the Ethernet header.
		length := uint64(len(c.Frame))
		if programType == ebpf.SocketFilter {
			length -= min(length, 14)
		}
		if wire < length || wire > maxWireLen {
			return fmt.Errorf("context field wire_len=%d: want 0 or %d to %d, the packet being %d bytes", wire, length, maxWireLen, length)
		}
	}
	if segs, ok := c.Context.Get("gso_segs"); ok && segs > maxGSOSegs {
		return fmt.Errorf("context field gso_segs=%d: at most %d", segs, maxGSOSegs)
	}
	return nil
}

// device returns the network interface of an ifindex given in a context.
func device(field string, ifindex uint64) (*net.Interface, error) {
	iface, err := net.InterfaceByIndex(int(min(ifindex, 1<<31-1)))
	if err != nil {
		return nil, fmt.Errorf("context field %s=%d: no network interface has that index here (ip link lists them)", field, ifindex)
	}
	return iface, nil
}

// RxQueues counts a device's receive queues, as sysfs lists them.
func RxQueues(name string) (int, error) {
	queues, err := filepath.Glob(filepath.Join("/sys/class/net", name, "queues", "rx-*"))
	if err == nil && len(queues) == 0 {
		err = os.ErrNotExist
	}
	return len(queues), err
}

// ContextChange is a field of the context that the checking run's program
// changed, as results saves it.
type ContextChange = results.ContextChange

// ContextChanges compares the fields a program may write, as given and as
// the kernel copied them back.
func ContextChanges(programType ebpf.ProgramType, in, out []byte) []ContextChange {
	if len(in) == 0 || len(out) != len(in) {
		return nil
	}
	var changes []ContextChange
	for _, f := range contextLayout(programType) {
		if !f.writable {
			continue
		}
		read := func(b []byte) uint64 {
			if f.size == 4 {
				return uint64(binary.NativeEndian.Uint32(b[f.offset:]))
			}
			return binary.NativeEndian.Uint64(b[f.offset:])
		}
		if a, b := read(in), read(out); a != b {
			changes = append(changes, ContextChange{Field: f.name, In: a, Out: b})
		}
	}
	return changes
}

// WithArticle puts "a" or "an" before a program type's name, as it is
// read aloud: an XDP program, a SchedCLS program.
func WithArticle(programType ebpf.ProgramType) string {
	if programType == ebpf.XDP {
		return "an " + programType.String()
	}
	return "a " + programType.String()
}
