package livenet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/host"
	"golang.org/x/sys/unix"
)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("livenet needs root: it makes a network namespace, links and BPF programs")
	}
}

func open(t *testing.T) *Pair {
	t.Helper()
	p, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	t.Logf("xm0 ifindex %d, xm1 ifindex %d, xm_peer_count %s", p.Ingress(), p.Peer(), p.PeerMode())
	return p
}

// inside runs f on the test's goroutine, locked to its thread, in the
// pair's namespace, through Enter, as a benchmark would. Where f or leave
// fails the thread stays locked, and Go ends it with the test's goroutine.
func inside(t *testing.T, p *Pair, f func()) {
	t.Helper()
	runtime.LockOSThread()
	leave, err := p.Enter()
	if err != nil {
		t.Fatal(err)
	}
	f()
	if err := leave(); err != nil {
		t.Fatal(err)
	}
	runtime.UnlockOSThread()
}

// frame is a 64-byte Ethernet/IPv4/UDP frame, to a MAC that is not xm0's,
// between documentation addresses.
func frame() []byte {
	f := make([]byte, 64)
	copy(f, []byte{0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02})
	binary.BigEndian.PutUint16(f[12:], unix.ETH_P_IP)
	ip := f[14:34]
	ip[0], ip[8], ip[9] = 0x45, 64, unix.IPPROTO_UDP
	binary.BigEndian.PutUint16(ip[2:], uint16(len(f)-14))
	copy(ip[12:], []byte{192, 0, 2, 1, 198, 51, 100, 1})
	var sum uint32
	for i := 0; i < len(ip); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(ip[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
	udp := f[34:]
	binary.BigEndian.PutUint16(udp[0:], 4000)
	binary.BigEndian.PutUint16(udp[2:], 9)
	binary.BigEndian.PutUint16(udp[4:], uint16(len(udp)))
	return f
}

// TestOpenClose checks that the links exist in the pair's namespace and
// not in the test's, and that Close deletes them and lets the namespace
// and the programs go.
func TestOpenClose(t *testing.T) {
	needRoot(t)
	hostIPv6 := readSysctl(t, "/proc/sys/net/ipv6/conf/default/disable_ipv6")
	before := countingPrograms(t)
	p, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ids := progIDs(t, p)
	held := checkInside(t, p, ids[0])
	defer held.Close()
	for _, name := range []string{IngressName, PeerName} {
		if _, err := netlink.LinkByName(name); !errors.As(err, &netlink.LinkNotFoundError{}) {
			t.Errorf("%s in the test's own namespace: err = %v, want not found", name, err)
		}
	}
	if got := readSysctl(t, "/proc/sys/net/ipv6/conf/default/disable_ipv6"); got != hostIPv6 {
		t.Errorf("the host's default disable_ipv6 changed from %s to %s", hostIPv6, got)
	}
	ino := inode(t, held)
	if n := nsFDs(t, ino); n != 2 {
		t.Errorf("%d descriptors of the pair's namespace open, want 2 (the pair's, the test's)", n)
	}

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if n := nsFDs(t, ino); n != 1 || p.ns.IsOpen() {
		t.Errorf("%d descriptors of the pair's namespace open after Close, want 1 (the test's)", n)
	}
	h, err := netlink.NewHandleAt(held)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	links, err := h.LinkList()
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range links {
		if name := link.Attrs().Name; name != "lo" {
			t.Errorf("after Close, the namespace still has %s", name)
		}
	}
	waitGone(t, ids, before)
}

// checkInside checks the links from inside the pair's namespace: their
// ifindexes, that they are up, xm_peer_count (peerProg) on xm1, IPv6 off.
// It returns a handle of the namespace, to look inside after Close.
func checkInside(t *testing.T, p *Pair, peerProg ebpf.ProgramID) (held netns.NsHandle) {
	t.Helper()
	inside(t, p, func() {
		for name, index := range map[string]int{IngressName: p.Ingress(), PeerName: p.Peer()} {
			link, err := netlink.LinkByName(name)
			if err != nil {
				t.Errorf("%s inside the namespace: %v", name, err)
				continue
			}
			if a := link.Attrs(); a.Index != index || a.Flags&net.FlagUp == 0 {
				t.Errorf("%s: ifindex %d (want %d), flags %v", name, a.Index, index, a.Flags)
			}
			if xdp := link.Attrs().Xdp; name == PeerName && (xdp == nil || xdp.ProgId != uint32(peerProg)) {
				t.Errorf("%s: XDP %+v, want xm_peer_count (ID %d)", name, xdp, peerProg)
			}
		}
		if got := readSysctl(t, "/proc/sys/net/ipv6/conf/"+IngressName+"/disable_ipv6"); got != "1" && got != noIPv6 {
			t.Errorf("IPv6 on %s: disable_ipv6 = %s", IngressName, got)
		}
		var err error
		if held, err = netns.Get(); err != nil {
			t.Fatal(err)
		}
	})
	return held
}

// noIPv6 is readSysctl's answer for an IPv6 setting on a kernel without.
const noIPv6 = "no IPv6"

func readSysctl(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return noIPv6
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func inode(t *testing.T, ns netns.NsHandle) uint64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Fstat(int(ns), &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// nsFDs counts this process's descriptors of the namespace with inode ino.
func nsFDs(t *testing.T, ino uint64) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if target, _ := os.Readlink("/proc/self/fd/" + e.Name()); target == fmt.Sprintf("net:[%d]", ino) {
			n++
		}
	}
	return n
}

// progIDs are the kernel's IDs of the pair's counting programs.
func progIDs(t *testing.T, p *Pair) []ebpf.ProgramID {
	t.Helper()
	ids, err := programIDs(p)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func programIDs(p *Pair) ([]ebpf.ProgramID, error) {
	var ids []ebpf.ProgramID
	for _, prog := range []*ebpf.Program{p.objs.XmPeerCount, p.objs.XmStackCount} {
		info, err := prog.Info()
		if err != nil {
			return nil, err
		}
		id, ok := info.ID()
		if !ok {
			return nil, errors.New("no program ID")
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// waitGone waits up to 10s for the programs ids to be freed, which the
// kernel does asynchronously once their links are gone, and for any other
// counting program not among before (those loaded before the test's began:
// another process's, or the last test binary's, still being freed).
func waitGone(t *testing.T, ids []ebpf.ProgramID, before map[ebpf.ProgramID]string) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(10 * time.Second)
	for {
		var left []string
		for id, name := range countingPrograms(t) {
			if _, old := before[id]; !old || slices.Contains(ids, id) {
				left = append(left, fmt.Sprintf("%d %s", id, name))
			}
		}
		if len(left) == 0 {
			t.Logf("programs %v gone after %v", ids, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("programs still loaded 10s on: %s", strings.Join(left, ", "))
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// countingPrograms are the loaded programs named like the counters, by ID.
func countingPrograms(t *testing.T) map[ebpf.ProgramID]string {
	t.Helper()
	found := make(map[ebpf.ProgramID]string)
	for id := ebpf.ProgramID(0); ; {
		next, err := ebpf.ProgramGetNextID(id)
		if errors.Is(err, os.ErrNotExist) {
			return found
		}
		if err != nil {
			t.Fatal(err)
		}
		id = next
		prog, err := ebpf.NewProgramFromID(id)
		if err != nil {
			continue // freed since
		}
		info, err := prog.Info()
		prog.Close()
		if err == nil && (info.Name == "xm_peer_count" || info.Name == "xm_stack_count") {
			found[id] = info.Name
		}
	}
}

// Links and LinkName give every interface the pair's namespace has, as
// Inside sees them, and nothing else: a devmap entry is checked against
// them.
func TestLinkName(t *testing.T) {
	needRoot(t)
	p := open(t)
	var links []net.Interface
	if err := p.Inside(func() (err error) {
		links, err = net.Interfaces()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var names []string
	var indexes []int
	for _, l := range links {
		names, indexes = append(names, l.Name), append(indexes, l.Index)
		if got := p.LinkName(l.Index); got != l.Name {
			t.Errorf("LinkName(%d) = %q, want %q", l.Index, got, l.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"lo", IngressName, PeerName}; !slices.Equal(names, want) {
		t.Errorf("the namespace's interfaces: %v, want %v", names, want)
	}
	slices.Sort(indexes)
	if !slices.Equal(p.Links(), indexes) {
		t.Errorf("Links() = %v, want %v", p.Links(), indexes)
	}
	for _, none := range []int{0, -1, p.Ingress() + p.Peer() + 1} {
		if got := p.LinkName(none); got != "" {
			t.Errorf("LinkName(%d) = %q, want none", none, got)
		}
	}
}

func TestReset(t *testing.T) {
	needRoot(t)
	p := open(t)
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	c, err := p.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if c != (Counts{}) {
		t.Errorf("after Reset: %+v", c)
	}
}

func TestSupported(t *testing.T) {
	needRoot(t)
	err := Supported()
	if errors.Is(err, ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestFillErrors(t *testing.T) {
	needRoot(t)
	p := open(t)
	array, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer array.Close()
	if err := p.FillDevmap(array); !errors.Is(err, ErrMapType) {
		t.Errorf("FillDevmap(array): %v, want ErrMapType", err)
	}
	if err := FillCpumap(array); !errors.Is(err, ErrMapType) {
		t.Errorf("FillCpumap(array): %v, want ErrMapType", err)
	}
}

// A kernel without live frames is told as bad input, exit 2, as the issue
// asks; lacking privileges is a failed run, exit 1.
func TestUnsupportedIsBadInput(t *testing.T) {
	if !errors.Is(fmt.Errorf("livenet: %w: live frames need Linux 5.18", ErrUnsupported), badinput.Err) {
		t.Error("an old kernel's refusal is not bad input")
	}
	if errors.Is(host.ErrPermission, badinput.Err) {
		t.Error("missing privileges taken for bad input")
	}
}

// Lacking privileges for live frames is the one ErrPermission every
// package wraps, so that xdpmicro.Benchmark skips on it as it does on a
// program it may not load.
func TestPermissionIsHosts(t *testing.T) {
	err := permission("creating the veth pair", unix.EPERM)
	if !errors.Is(err, host.ErrPermission) {
		t.Errorf("%v: not host.ErrPermission", err)
	}
	if err := permission("creating the veth pair", unix.EEXIST); errors.Is(err, host.ErrPermission) {
		t.Errorf("%v: EEXIST taken for lacking privileges", err)
	}
}
