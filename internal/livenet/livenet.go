package livenet

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/cilium/ebpf"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/crash"
	"github.com/xdpmicro/xdpmicro/internal/host"
)

// The links' names, which exist only inside the pair's namespace.
const (
	IngressName = "xm0"
	PeerName    = "xm1"
)

var (
	// ErrUnsupported is returned by Supported where the kernel refuses
	// live frames: asking for them there is bad input (exit 2), as is
	// asking for any feature the kernel lacks.
	ErrUnsupported = badinput.New("live frames unsupported")
	// ErrMapType is returned for a map that cannot be filled as asked.
	ErrMapType = errors.New("unsuitable map")
)

// Pair is a veth pair in an anonymous network namespace of its own, with
// its counters attached. Its methods are not for use after Close.
type Pair struct {
	mu      sync.Mutex
	closed  bool
	ns      netns.NsHandle
	nl      *netlink.Handle // bound to ns
	objs    countersObjects
	ingress int
	peer    int
	generic bool
	sock    *socket // made by FillXskmap
}

// Counts are the frames the pair's counters saw since Open or Reset.
type Counts struct {
	// Transmitted frames arrived on the peer xm1: sent by XDP_TX on xm0,
	// or redirected to xm0 through a devmap.
	Transmitted uint64
	// Passed frames reached xm0's stack as skbs: by XDP_PASS on xm0, or
	// through a cpumap.
	Passed uint64
	// Received frames reached the pair's AF_XDP socket through an
	// xskmap (FillXskmap).
	Received uint64
}

// Open creates the namespace, the pair and its counters. It needs
// CAP_NET_ADMIN and CAP_BPF (root): without, its error wraps
// host.ErrPermission, as every error of lacking privileges does.
func Open() (*Pair, error) {
	p := &Pair{ns: netns.None()}
	if err := onThread(p.unshare, p.populate); err != nil {
		return nil, errors.Join(err, p.Close())
	}
	return p, nil
}

// Ingress is the ifindex of xm0, inside the pair's namespace: live frames
// arrive there, and XDP_TX sends them out of it to xm1.
func (p *Pair) Ingress() int { return p.ingress }

// Peer is the ifindex of xm1, inside the pair's namespace.
func (p *Pair) Peer() int { return p.peer }

// loopbackIndex is lo's ifindex in every network namespace
// (LOOPBACK_IFINDEX): the kernel registers it first.
const loopbackIndex = 1

// LinkName is the interface an ifindex names inside the pair's namespace,
// lo, xm0 or xm1, or "" for one that names none there. The namespace holds
// no other.
func (p *Pair) LinkName(ifindex int) string {
	switch ifindex {
	case p.ingress:
		return IngressName
	case p.peer:
		return PeerName
	case loopbackIndex:
		return "lo"
	}
	return ""
}

// Links are the ifindexes of the pair's namespace's interfaces, lo, xm0
// and xm1, in ascending order.
func (p *Pair) Links() []int {
	links := []int{loopbackIndex, p.ingress, p.peer}
	slices.Sort(links)
	return links
}

// Inside runs work on a thread inside the pair's namespace, which no
// other goroutine runs on meanwhile. What the kernel looks up by ifindex
// in the calling thread's namespace, a devmap's entries written from user
// space among them, is then looked up among the pair's interfaces, never
// the host's.
func (p *Pair) Inside(work func() error) error { return onThread(p.Enter, work) }

// PeerMode says how xm_peer_count runs on xm1: "native", or "generic"
// where the driver refused native mode. In generic mode veth refuses
// XDP_TX and redirects out of xm0, so Transmitted stays at zero.
func (p *Pair) PeerMode() string {
	if p.generic {
		return "generic"
	}
	return "native"
}

// Enter switches the calling thread into the pair's namespace, and leave
// switches it back. The caller must have called runtime.LockOSThread
// first and keep the thread locked until leave has returned nil: Go would
// otherwise run other goroutines in the pair's namespace, or this one
// elsewhere. If leave fails, the thread's namespace is unknown: keep it
// locked, and Go ends the thread when its goroutine returns.
func (p *Pair) Enter() (leave func() error, err error) {
	orig, err := netns.Get()
	if err != nil {
		return nil, fmt.Errorf("livenet: the thread's network namespace: %w", err)
	}
	if err := netns.Set(p.ns); err != nil {
		orig.Close()
		return nil, permission("entering the pair's namespace", err)
	}
	return sync.OnceValue(func() error {
		defer orig.Close()
		if err := netns.Set(orig); err != nil {
			return fmt.Errorf("livenet: back to the thread's network namespace: %w", err)
		}
		return nil
	}), nil
}

// Counts sums the counters over all CPUs.
func (p *Pair) Counts() (Counts, error) {
	tx, err := sum(p.objs.XmPeerFrames)
	if err != nil {
		return Counts{}, err
	}
	passed, err := sum(p.objs.XmStackSkbs)
	if err != nil {
		return Counts{}, err
	}
	var received uint64
	if p.sock != nil {
		p.sock.drain()
		received = p.sock.received
	}
	return Counts{Transmitted: tx, Passed: passed, Received: received}, nil
}

// Settle waits, up to a second, for the counts to grow by want frames
// since before, or to stop growing: frames reach xm1 in its NAPI poll, and
// a cpumap's in a kthread, after the run returns. It returns their growth.
func (p *Pair) Settle(before Counts, want uint64) (Counts, error) {
	now, err := p.poll(settleReads, 20*time.Millisecond, func(c Counts) bool {
		grew := c.minus(before)
		return grew.Transmitted+grew.Passed+grew.Received >= want
	})
	return now.minus(before), err
}

// Quiet waits, up to a second, until the counts hold still for
// quietReads reads in a row, and returns them: frames of a call that
// nothing confirmed (a warm-up, a restoring pass) reach the counters in
// a later NAPI poll, and on a busy machine a batch of 64 landed in the
// next case's count.
func (p *Pair) Quiet() (Counts, error) {
	return p.poll(quietReads, 10*time.Millisecond, func(Counts) bool { return false })
}

// How many unchanged reads in a row end a wait: Settle's, which stops
// at its frames' count first, and Quiet's.
const (
	settleReads = 5
	quietReads  = 3
)

// poll reads the counts every interval, up to a second, until enough
// says they are done or they have held still for still reads in a row,
// and returns the last.
func (p *Pair) poll(still int, every time.Duration, enough func(Counts) bool) (Counts, error) {
	last, err := p.Counts()
	if err != nil {
		return Counts{}, err
	}
	for deadline, same := time.Now().Add(time.Second), 0; !enough(last) && same < still && time.Now().Before(deadline); {
		time.Sleep(every)
		now, err := p.Counts()
		if err != nil {
			return Counts{}, err
		}
		if now == last {
			same++
		} else {
			last, same = now, 0
		}
	}
	return last, nil
}

// minus is how the counts grew since before.
func (c Counts) minus(before Counts) Counts {
	return Counts{Transmitted: c.Transmitted - before.Transmitted, Passed: c.Passed - before.Passed, Received: c.Received - before.Received}
}

// Reset zeroes the counters.
func (p *Pair) Reset() error {
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		return fmt.Errorf("livenet: possible CPUs: %w", err)
	}
	zeros := make([]uint64, cpus)
	for _, m := range []*ebpf.Map{p.objs.XmPeerFrames, p.objs.XmStackSkbs} {
		if err := m.Update(uint32(0), zeros, ebpf.UpdateExist); err != nil {
			return fmt.Errorf("livenet: resetting %s: %w", m, err)
		}
	}
	if p.sock != nil {
		p.sock.drain()
		p.sock.received = 0
	}
	return nil
}

// sum is a one-entry per-CPU counter's total.
func sum(m *ebpf.Map) (uint64, error) {
	var perCPU []uint64
	if err := m.Lookup(uint32(0), &perCPU); err != nil {
		return 0, fmt.Errorf("livenet: reading %s: %w", m, err)
	}
	var n uint64
	for _, v := range perCPU {
		n += v
	}
	return n, nil
}

// Close deletes the links and closes the namespace and the counters.
// Closing again does nothing.
func (p *Pair) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	if p.sock != nil {
		if err := p.sock.close(); err != nil {
			errs = append(errs, fmt.Errorf("livenet: closing the AF_XDP socket: %w", err))
		}
	}
	if p.nl != nil {
		// Deleting one end of a veth pair deletes both.
		link, err := p.nl.LinkByName(IngressName)
		if err == nil {
			err = p.nl.LinkDel(link)
		}
		if err != nil && !errors.As(err, &netlink.LinkNotFoundError{}) {
			errs = append(errs, fmt.Errorf("livenet: deleting %s: %w", IngressName, err))
		}
		p.nl.Close()
	}
	if p.ns.IsOpen() {
		if err := p.ns.Close(); err != nil {
			errs = append(errs, fmt.Errorf("livenet: closing the namespace: %w", err))
		}
	}
	if err := p.objs.Close(); err != nil {
		errs = append(errs, fmt.Errorf("livenet: closing the counters: %w", err))
	}
	return errors.Join(errs...)
}

// permission wraps host.ErrPermission too where err is EPERM, saying what
// would have been allowed.
func permission(what string, err error) error {
	if errors.Is(err, unix.EPERM) {
		return fmt.Errorf("livenet: %s: %w: the namespace and interfaces need CAP_NET_ADMIN, the counters CAP_BPF too (run as root): %w",
			what, host.ErrPermission, err)
	}
	return fmt.Errorf("livenet: %s: %w", what, err)
}

// onThread runs work on a goroutine of its own, locked to its thread,
// between enter and the leave enter returns. The thread goes back to Go
// only when both succeeded; otherwise it stays locked and Go ends it with
// the goroutine, rather than run other goroutines in whatever namespace
// it was left in.
func onThread(enter func() (leave func() error, err error), work func() error) error {
	done := make(chan error, 1)
	go func() {
		defer crash.Guard()
		runtime.LockOSThread()
		leave, err := enter()
		if err != nil {
			done <- err
			return
		}
		err = work()
		if lerr := leave(); lerr != nil {
			done <- errors.Join(err, lerr)
			return
		}
		runtime.UnlockOSThread()
		done <- err
	}()
	return <-done
}

// unshare moves the calling thread into a new network namespace, kept as
// p.ns, and returns how to move it back.
func (p *Pair) unshare() (leave func() error, err error) {
	orig, err := netns.Get()
	if err != nil {
		return nil, fmt.Errorf("livenet: the thread's network namespace: %w", err)
	}
	back := func() error {
		defer orig.Close()
		if err := netns.Set(orig); err != nil {
			return fmt.Errorf("livenet: back to the thread's network namespace: %w", err)
		}
		return nil
	}
	ns, err := netns.New()
	if err != nil {
		// Not moving back: unshare may have worked and only opening the
		// handle failed, so onThread lets the thread end with its goroutine.
		orig.Close()
		return nil, permission("a network namespace of its own", err)
	}
	p.ns = ns
	return back, nil
}

// populate makes the links and attaches the counters, on the thread
// unshare moved into the pair's namespace.
func (p *Pair) populate() error {
	// Before the links exist, so that they never send the router
	// solicitations and MLD reports the counters would count.
	if err := disableIPv6(); err != nil {
		return err
	}
	var err error
	if p.nl, err = netlink.NewHandleAt(p.ns); err != nil {
		return permission("a netlink handle in the namespace", err)
	}
	attrs := netlink.NewLinkAttrs()
	attrs.Name = IngressName
	if err := p.nl.LinkAdd(&netlink.Veth{LinkAttrs: attrs, PeerName: PeerName}); err != nil {
		return permission("creating the veth pair", err)
	}
	links := make([]netlink.Link, 2)
	for i, name := range []string{IngressName, PeerName} {
		if links[i], err = p.nl.LinkByName(name); err != nil {
			return fmt.Errorf("livenet: %s: %w", name, err)
		}
		if err := p.nl.LinkSetUp(links[i]); err != nil {
			return permission("bringing up "+name, err)
		}
	}
	p.ingress, p.peer = links[0].Attrs().Index, links[1].Attrs().Index
	if err := loadCountersObjects(&p.objs, nil); err != nil {
		return permission("loading the counters", err)
	}
	if err := p.attachPeer(links[1]); err != nil {
		return err
	}
	return p.attachStack(links[0])
}

// disableIPv6 turns IPv6 off for links created in the calling thread's
// namespace from now on; /proc/sys/net is the opening thread's namespace's.
// A kernel without IPv6 has nothing to turn off.
func disableIPv6() error {
	err := os.WriteFile("/proc/sys/net/ipv6/conf/default/disable_ipv6", []byte("1\n"), 0)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("livenet: disabling IPv6 in the namespace: %w", err)
	}
	return nil
}

// attachPeer attaches xm_peer_count to xm1, natively if the driver lets
// it. It uses the package's netlink functions, which work in the calling
// thread's namespace, as a Handle cannot attach XDP.
func (p *Pair) attachPeer(peer netlink.Link) error {
	fd := p.objs.XmPeerCount.FD()
	native := netlink.LinkSetXdpFdWithFlags(peer, fd, unix.XDP_FLAGS_DRV_MODE)
	if native == nil {
		return nil
	}
	if err := netlink.LinkSetXdpFdWithFlags(peer, fd, unix.XDP_FLAGS_SKB_MODE); err != nil {
		return permission("attaching XDP to "+PeerName, errors.Join(native, err))
	}
	p.generic = true
	return nil
}

// attachStack attaches xm_stack_count to xm0's ingress through a clsact
// qdisc, in direct-action mode, which unlike TCX links works before 6.6.
func (p *Pair) attachStack(link netlink.Link) error {
	index := link.Attrs().Index
	qdisc := &netlink.GenericQdisc{
		QdiscAttrs: netlink.QdiscAttrs{
			LinkIndex: index,
			Handle:    netlink.MakeHandle(0xffff, 0),
			Parent:    netlink.HANDLE_CLSACT,
		},
		QdiscType: "clsact",
	}
	if err := p.nl.QdiscAdd(qdisc); err != nil {
		return permission("a clsact qdisc on "+IngressName, err)
	}
	filter := &netlink.BpfFilter{
		FilterAttrs: netlink.FilterAttrs{
			LinkIndex: index,
			Parent:    netlink.HANDLE_MIN_INGRESS,
			Handle:    netlink.MakeHandle(0, 1),
			Protocol:  unix.ETH_P_ALL,
			Priority:  1,
		},
		Fd:           p.objs.XmStackCount.FD(),
		Name:         "xm_stack_count",
		DirectAction: true,
	}
	if err := p.nl.FilterAdd(filter); err != nil {
		return permission("a tc ingress filter on "+IngressName, err)
	}
	return nil
}
