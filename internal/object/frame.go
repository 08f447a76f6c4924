package object

import (
	"bytes"
	"slices"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/packets"
)

// linkHeader is the Ethernet header the kernel strips for a socket filter.
const linkHeader = 14

// FrameChanged says whether a program changed its packet. The kernel
// hands a socket filter the packet from its network header on and, after
// the run, puts back a zeroed link-layer header (net/bpf/test_run.c):
// those bytes are the kernel's doing, not the program's.
func FrameChanged(programType ebpf.ProgramType, in, out []byte) bool {
	if programType == ebpf.SocketFilter && len(in) >= linkHeader && len(out) >= linkHeader {
		return !bytes.Equal(in[linkHeader:], out[linkHeader:])
	}
	return !bytes.Equal(in, out)
}

// BehindLinkHeader puts a copy of each frame's Ethernet header before it.
// BPF_PROG_TEST_RUN hands a socket filter the packet from its network
// header, as an inet socket's filter sees it; a filter on an AF_PACKET
// socket (Suricata's) sees it from its Ethernet header. The kernel strips
// the copy, and such a program sees the frame as on its socket.
func BehindLinkHeader(cases []packets.Case) []packets.Case {
	out := slices.Clone(cases)
	for i, c := range out {
		if len(c.Frame) >= linkHeader {
			out[i].Frame = AppendBehindLinkHeader(nil, c.Frame)
		}
	}
	return out
}

// AppendBehindLinkHeader appends frame to dst behind a copy of its
// Ethernet header, as BehindLinkHeader puts each case's; a frame shorter
// than the header is appended as it is.
func AppendBehindLinkHeader(dst, frame []byte) []byte {
	if len(frame) >= linkHeader {
		dst = append(dst, frame[:linkHeader]...)
	}
	return append(dst, frame...)
}
