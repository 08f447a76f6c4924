package kmem

import (
	"testing"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// MapBytes is within 5 % of what the kernel itself counts (memlock) for
// maps that allocate all their entries at creation; for those that grow
// as they are filled it is at least the kernel's figure when empty.
func TestMapBytesMatchesKernel(t *testing.T) {
	kerneltest.RequireBPF(t)
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		t.Fatal(err)
	}
	inner := &ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1}
	for _, tt := range []struct {
		spec  ebpf.MapSpec
		grows bool // the kernel allocates entries as they are put
	}{
		{spec: ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1 << 20}},
		{spec: ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 100, MaxEntries: 1 << 18}},
		{spec: ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1 << 20, Flags: unix.BPF_F_MMAPABLE}},
		{spec: ebpf.MapSpec{Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 16, MaxEntries: 1 << 16}},
		{spec: ebpf.MapSpec{Type: ebpf.Hash, KeySize: 16, ValueSize: 8, MaxEntries: 1 << 18}},
		{spec: ebpf.MapSpec{Type: ebpf.Hash, KeySize: 16, ValueSize: 8, MaxEntries: 1 << 18, Flags: unix.BPF_F_NO_PREALLOC}, grows: true},
		{spec: ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: 16, ValueSize: 8, MaxEntries: 1 << 16}},
		{spec: ebpf.MapSpec{Type: ebpf.LRUHash, KeySize: 16, ValueSize: 8, MaxEntries: 1 << 18}},
		{spec: ebpf.MapSpec{Type: ebpf.LRUCPUHash, KeySize: 16, ValueSize: 8, MaxEntries: 1 << 16}},
		{spec: ebpf.MapSpec{Type: ebpf.LPMTrie, KeySize: 8, ValueSize: 8, MaxEntries: 1 << 16, Flags: unix.BPF_F_NO_PREALLOC}, grows: true},
		{spec: ebpf.MapSpec{Type: ebpf.Queue, ValueSize: 8, MaxEntries: 1 << 18}},
		{spec: ebpf.MapSpec{Type: ebpf.RingBuf, MaxEntries: 1 << 22}},
		{spec: ebpf.MapSpec{Type: ebpf.BloomFilter, ValueSize: 8, MaxEntries: 1 << 20}},
		{spec: ebpf.MapSpec{Type: ebpf.ProgramArray, KeySize: 4, ValueSize: 4, MaxEntries: 1 << 16}},
		{spec: ebpf.MapSpec{Type: ebpf.HashOfMaps, KeySize: 4, ValueSize: 4, MaxEntries: 1 << 16, InnerMap: inner}},
		{spec: ebpf.MapSpec{Type: ebpf.DevMap, KeySize: 4, ValueSize: 4, MaxEntries: 1 << 16}, grows: true},
	} {
		m, err := ebpf.NewMap(&tt.spec)
		if err != nil {
			t.Fatalf("%v: %v", tt.spec.Type, err)
		}
		info, err := m.Info()
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		kernel, ok := info.Memlock()
		if !ok && !tt.grows {
			t.Skip("the kernel reports no memlock of maps") // before Linux 4.10
		}
		est := MapBytes(&tt.spec, cpus)
		t.Logf("%v of %d: estimated %d, the kernel's %d", tt.spec.Type, tt.spec.MaxEntries, est, kernel)
		switch {
		case est < kernel && !tt.grows && float64(kernel-est) > 0.05*float64(kernel):
			t.Errorf("%v of %d entries: estimated %d bytes, the kernel counts %d", tt.spec.Type, tt.spec.MaxEntries, est, kernel)
		case est > kernel && !tt.grows && float64(est-kernel) > 0.05*float64(kernel):
			t.Errorf("%v of %d entries: estimated %d bytes, the kernel counts %d", tt.spec.Type, tt.spec.MaxEntries, est, kernel)
		case tt.grows && est < kernel:
			t.Errorf("%v of %d entries, empty: estimated %d bytes full, below the kernel's %d empty", tt.spec.Type, tt.spec.MaxEntries, est, kernel)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{
		"4096": 4096, "512M": 512 << 20, "512MiB": 512 << 20, "2G": 2 << 30, "2 GB": 2 << 30, "1.5g": 3 << 29, "1T": 1 << 40, "64k": 64 << 10,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1G", "G", "2X", "1e30T", "NaN", "2GG", "inf"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("%q: %d, want an error", in, got)
		}
	}
}

// The default budget is at most 1 GiB and a quarter of the machine's
// memory: it must fit any machine that can run a load.
func TestDefaultKernelMemory(t *testing.T) {
	total, ok := memTotal()
	if !ok {
		t.Skip("no MemTotal in /proc/meminfo")
	}
	if d := Default(); d == 0 || d > MaxDefault || d > total/4 {
		t.Errorf("default %d bytes: want at most 1 GiB and a quarter of %d", d, total)
	}
}
