package livenet

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"
)

// xdpMD is struct xdp_md, the context of an XDP test run; a live run's
// names the ingress interface.
type xdpMD struct {
	Data, DataEnd, DataMeta, IngressIfindex, RxQueueIndex, EgressIfindex uint32
}

// Supported says whether this kernel runs live frames, by running one:
// a program returning XDP_DROP, once, on a Pair's xm0. It returns an error
// wrapping ErrUnsupported where the kernel refuses the flag, and one
// wrapping host.ErrPermission without the privileges.
func Supported() error {
	p, err := Open()
	if err != nil {
		return err
	}
	defer p.Close()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Name: "xm_probe",
		Type: ebpf.XDP,
		Instructions: asm.Instructions{
			asm.Mov.Imm(asm.R0, 1), // XDP_DROP
			asm.Return(),
		},
		License: "Dual BSD/GPL",
	})
	if err != nil {
		return permission("loading the probe", err)
	}
	defer prog.Close()
	frame := make([]byte, 64)
	err = onThread(p.Enter, func() error {
		_, err := prog.Run(&ebpf.RunOptions{
			Data:      frame,
			Repeat:    1,
			Flags:     unix.BPF_F_TEST_XDP_LIVE_FRAMES,
			BatchSize: 1,
			Context:   xdpMD{DataEnd: uint32(len(frame)), IngressIfindex: uint32(p.ingress)},
		})
		return err
	})
	if errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("livenet: %w: live frames need Linux 5.18 or later (this kernel: %s): %w", ErrUnsupported, release(), err)
	}
	if err != nil {
		return permission("a live-frame test run", err)
	}
	return nil
}

// release is the running kernel's, as uname -r says it.
func release() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:])
}
