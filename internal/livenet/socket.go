package livenet

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// SocketFrames is how many frames one live call can redirect into the
// pair's AF_XDP socket: its UMEM's chunks, and the size of its fill and
// RX rings. The rings are drained only between calls, so a call of more
// frames than that would drop the rest, and time the dropping.
const SocketFrames = 1 << 14

// chunkSize is a UMEM chunk, the kernel's smallest (XDP_UMEM_MIN_CHUNK_SIZE):
// a copied frame needs no more.
const chunkSize = 2048

// umemRegV1Size is the first layout of struct xdp_umem_reg (address,
// length, chunk size, headroom), which every kernel with AF_XDP takes.
const umemRegV1Size = 24

// ErrSocketDrops: the socket's rings dropped frames a program redirected
// into it, so a run timed drops, not deliveries.
var ErrSocketDrops = errors.New("the AF_XDP socket dropped frames")

// socket is an AF_XDP socket bound to xm0's queue 0 in copy mode: the
// kernel copies each frame redirected into it into a UMEM chunk the fill
// ring offers and posts the chunk on the RX ring. drain gives the chunks
// back.
type socket struct {
	fd       int
	umem     []byte
	fill, rx ring
	received uint64
}

// ring is a mapped single-producer, single-consumer ring of the socket.
type ring struct {
	mem                []byte
	producer, consumer *uint32
	descs              unsafe.Pointer
	mask               uint32
}

// FillXskmap binds the pair's AF_XDP socket, made on first use, to xm0's
// queue 0 and points every key of an xskmap at it, so that a redirect
// through any key delivers the frame there (Counts.Received). Live frames
// arrive on queue 0, which the kernel checks against the socket's.
func (p *Pair) FillXskmap(m *ebpf.Map) error {
	if t := m.Type(); t != ebpf.XSKMap {
		return fmt.Errorf("livenet: %w: %v is not an xskmap", ErrMapType, t)
	}
	if p.sock == nil {
		// A socket belongs to the namespace it is made in, where bind
		// finds xm0.
		if err := onThread(p.Enter, func() (err error) {
			p.sock, err = openSocket(p.ingress)
			return err
		}); err != nil {
			return err
		}
	}
	for key := range m.MaxEntries() {
		if err := m.Update(key, uint32(p.sock.fd), ebpf.UpdateAny); err != nil {
			return fmt.Errorf("livenet: xskmap key %d: %w", key, err)
		}
	}
	return nil
}

// Drain takes what the socket received since the last drain off its RX
// ring and offers the chunks to the fill ring again, so that the next call
// finds room for SocketFrames frames; it fails with ErrSocketDrops once
// the socket has dropped any frame. Without a socket it does nothing.
func (p *Pair) Drain() error {
	if p.sock == nil {
		return nil
	}
	p.sock.drain()
	return p.sock.drops()
}

// openSocket makes the socket, its UMEM and rings, offers every chunk to
// the fill ring, and binds it to ifindex's queue 0 in copy mode.
func openSocket(ifindex int) (s *socket, err error) {
	fd, err := unix.Socket(unix.AF_XDP, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, permission("an AF_XDP socket", err)
	}
	s = &socket{fd: fd}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.umem, err = unix.Mmap(-1, 0, SocketFrames*chunkSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE); err != nil {
		return s, fmt.Errorf("livenet: the socket's UMEM: %w", err)
	}
	reg := unix.XDPUmemReg{Addr: uint64(uintptr(unsafe.Pointer(&s.umem[0]))), Len: uint64(len(s.umem)), Size: chunkSize}
	if err := setsockopt(fd, unix.XDP_UMEM_REG, unsafe.Pointer(&reg), umemRegV1Size); err != nil {
		return s, fmt.Errorf("livenet: registering the socket's UMEM: %w", err)
	}
	// The completion ring is unused (nothing is sent) but bind wants one.
	for opt, size := range map[int]int{unix.XDP_UMEM_FILL_RING: SocketFrames, unix.XDP_UMEM_COMPLETION_RING: 64, unix.XDP_RX_RING: SocketFrames} {
		if err := unix.SetsockoptInt(fd, unix.SOL_XDP, opt, size); err != nil {
			return s, fmt.Errorf("livenet: the socket's ring %d: %w", opt, err)
		}
	}
	var off unix.XDPMmapOffsets
	size := uint32(unsafe.Sizeof(off))
	if _, _, errno := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_XDP, unix.XDP_MMAP_OFFSETS,
		uintptr(unsafe.Pointer(&off)), uintptr(unsafe.Pointer(&size)), 0); errno != 0 {
		return s, fmt.Errorf("livenet: the socket's ring offsets: %w", errno)
	}
	if s.rx, err = mapRing(fd, unix.XDP_PGOFF_RX_RING, off.Rx, unsafe.Sizeof(unix.XDPDesc{})); err != nil {
		return s, err
	}
	if s.fill, err = mapRing(fd, unix.XDP_UMEM_PGOFF_FILL_RING, off.Fr, unsafe.Sizeof(uint64(0))); err != nil {
		return s, err
	}
	fill := unsafe.Slice((*uint64)(s.fill.descs), SocketFrames)
	for i := range fill {
		fill[i] = uint64(i * chunkSize)
	}
	atomic.StoreUint32(s.fill.producer, SocketFrames)
	if err := unix.Bind(fd, &unix.SockaddrXDP{Flags: unix.XDP_COPY, Ifindex: uint32(ifindex)}); err != nil {
		return s, permission("binding the AF_XDP socket to "+IngressName, err)
	}
	return s, nil
}

// mapRing maps one of the socket's rings of SocketFrames descriptors of
// descSize bytes at pgoff.
func mapRing(fd int, pgoff int64, off unix.XDPRingOffset, descSize uintptr) (ring, error) {
	mem, err := unix.Mmap(fd, pgoff, int(off.Desc)+SocketFrames*int(descSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return ring{}, fmt.Errorf("livenet: mapping the socket's ring: %w", err)
	}
	base := unsafe.Pointer(&mem[0])
	return ring{
		mem:      mem,
		producer: (*uint32)(unsafe.Add(base, off.Producer)),
		consumer: (*uint32)(unsafe.Add(base, off.Consumer)),
		descs:    unsafe.Add(base, off.Desc),
		mask:     SocketFrames - 1,
	}, nil
}

// drain moves every received descriptor's chunk from the RX ring back to
// the fill ring. Every chunk is on one ring or the other, so the fill
// ring always has room.
func (s *socket) drain() {
	rxProd, rxCons := atomic.LoadUint32(s.rx.producer), *s.rx.consumer
	n := rxProd - rxCons
	if n == 0 {
		return
	}
	descs := unsafe.Slice((*unix.XDPDesc)(s.rx.descs), SocketFrames)
	fill := unsafe.Slice((*uint64)(s.fill.descs), SocketFrames)
	fillProd := *s.fill.producer
	for i := range n {
		// A descriptor's address is its frame's, past the chunk's headroom.
		fill[(fillProd+i)&s.fill.mask] = descs[(rxCons+i)&s.rx.mask].Addr &^ (chunkSize - 1)
	}
	atomic.StoreUint32(s.fill.producer, fillProd+n)
	atomic.StoreUint32(s.rx.consumer, rxCons+n)
	s.received += uint64(n)
}

// drops fails with ErrSocketDrops if the socket dropped any frame: its RX
// ring full, or its fill ring empty.
func (s *socket) drops() error {
	var st unix.XDPStatistics
	size := uint32(unsafe.Sizeof(st))
	if _, _, errno := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(s.fd), unix.SOL_XDP, unix.XDP_STATISTICS,
		uintptr(unsafe.Pointer(&st)), uintptr(unsafe.Pointer(&size)), 0); errno != 0 {
		return fmt.Errorf("livenet: the socket's statistics: %w", errno)
	}
	if lost := st.Rx_dropped + st.Rx_ring_full + st.Rx_fill_ring_empty_descs; lost > 0 {
		return fmt.Errorf("livenet: %w: %d of them (rx_dropped %d, rx_ring_full %d, fill ring empty %d): a call may send at most %d frames into it",
			ErrSocketDrops, lost, st.Rx_dropped, st.Rx_ring_full, st.Rx_fill_ring_empty_descs, SocketFrames)
	}
	return nil
}

func (s *socket) close() error {
	var errs []error
	for _, mem := range [][]byte{s.rx.mem, s.fill.mem, s.umem} {
		if mem != nil {
			errs = append(errs, unix.Munmap(mem))
		}
	}
	errs = append(errs, unix.Close(s.fd))
	return errors.Join(errs...)
}

func setsockopt(fd, opt int, value unsafe.Pointer, size uintptr) error {
	if _, _, errno := unix.Syscall6(unix.SYS_SETSOCKOPT, uintptr(fd), unix.SOL_XDP, uintptr(opt), uintptr(value), size, 0); errno != 0 {
		return errno
	}
	return nil
}
