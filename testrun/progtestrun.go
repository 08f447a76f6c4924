package testrun

// The raw BPF_PROG_TEST_RUN call: one system call, no retries, the kernel's
// figures as they come. Sampling goes through it (program.go); anchors
// need a call that ends on the first signal.

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// progTestRunAttr is union bpf_attr's test member (BPF_PROG_TEST_RUN), as
// the kernel has had it since 5.10. Kernels that know fewer fields accept it
// as long as the ones they do not know are zero.
type progTestRunAttr struct {
	progFD      uint32
	retval      uint32
	dataSizeIn  uint32
	dataSizeOut uint32
	dataIn      uint64
	dataOut     uint64
	repeat      uint32
	duration    uint32
	ctxSizeIn   uint32
	ctxSizeOut  uint32
	ctxIn       uint64
	ctxOut      uint64
	flags       uint32
	cpu         uint32
	batchSize   uint32
	_           uint32
}

const cmdProgTestRun = 10 // BPF_PROG_TEST_RUN

// testRun runs the program on data repeat times, once, with the context
// ctx if not nil, and returns its return value and the kernel's time per
// run in whole ns. Unlike
// cilium/ebpf's Program.Run it does not retry when a signal interrupts the
// loop: the caller decides, because an anchor must end on EINTR and a
// sample must count its restarts.
func testRun(progFD int, data, ctx []byte, repeat uint32) (retval, nsPerRun uint32, err error) {
	return progTestRun(progTestRunAttr{progFD: uint32(progFD), repeat: repeat}, data, ctx)
}

// testRunLive (Linux 5.18) runs an XDP program on data repeat times as live frames, batch
// frames a batch (0: the kernel's 64): the kernel carries out each
// action, transmitting, redirecting or passing the frames to the stack, as
// received on ctx's ingress_ifindex in the calling thread's network
// namespace. It reports no return value: a live frame gives none back.
func testRunLive(progFD int, data, ctx []byte, repeat, batch uint32) (nsPerRun uint32, err error) {
	_, nsPerRun, err = progTestRun(progTestRunAttr{progFD: uint32(progFD), repeat: repeat, flags: unix.BPF_F_TEST_XDP_LIVE_FRAMES, batchSize: batch}, data, ctx)
	return nsPerRun, err
}

func progTestRun(attr progTestRunAttr, data, ctx []byte) (retval, nsPerRun uint32, err error) {
	attr.dataSizeIn = uint32(len(data))
	attr.dataIn = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(data))))
	if ctx != nil {
		attr.ctxSizeIn = uint32(len(ctx))
		attr.ctxIn = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(ctx))))
	}
	_, _, errno := unix.Syscall(unix.SYS_BPF, cmdProgTestRun, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	runtime.KeepAlive(data)
	runtime.KeepAlive(ctx)
	if errno != 0 {
		return 0, 0, errno
	}
	return attr.retval, attr.duration, nil
}
