package livenet

import (
	"testing"

	"github.com/cilium/ebpf"
)

// A devmap of 2^20 entries gets its first MaxDevmapFill keys, each a
// system call, and no more: a devmap's max_entries is the object's to
// choose, up to 2^32-1 (issue 59, item 1).
func TestFillDevmapBounded(t *testing.T) {
	needRoot(t)
	if err := Supported(); err != nil {
		t.Skip(err)
	}
	p := open(t)
	m := newMap(t, ebpf.DevMap, 4, 1<<20)
	if err := p.FillDevmap(m); err != nil {
		t.Fatal(err)
	}
	var ifindex uint32
	if err := m.Lookup(uint32(MaxDevmapFill-1), &ifindex); err != nil || int(ifindex) != p.Ingress() {
		t.Errorf("key %d: ifindex %d, %v; want xm0's, %d", MaxDevmapFill-1, ifindex, err, p.Ingress())
	}
	if err := m.Lookup(uint32(MaxDevmapFill), &ifindex); err == nil {
		t.Errorf("key %d: ifindex %d, want no entry past the bound", MaxDevmapFill, ifindex)
	}
}
