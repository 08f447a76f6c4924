package testrun

import (
	"bytes"

	"github.com/cilium/ebpf"
)

// linkHeader is the Ethernet header the kernel strips for a socket filter.
const linkHeader = 14

// frameChanged says whether a program changed its packet. The kernel
// hands a socket filter the packet from its network header on and, after
// the run, puts back a zeroed link-layer header (net/bpf/test_run.c):
// those bytes are the kernel's doing, not the program's.
func frameChanged(programType string, in, out []byte) bool {
	if programType == ebpf.SocketFilter.String() && len(in) >= linkHeader && len(out) >= linkHeader {
		return !bytes.Equal(in[linkHeader:], out[linkHeader:])
	}
	return !bytes.Equal(in, out)
}
