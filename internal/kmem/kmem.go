package kmem

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// Kernel memory. A map's max_entries is the object's to choose, and the
// kernel allocates (an array, a preallocated hash) or may come to hold
// (a hash without preallocation, a trie) that many entries, in memory that
// is no process's RSS: the OOM killer cannot see it, and picks others.
// Every load of a program holds its own maps. So before anything is
// created in the kernel, what a run would hold there at once is estimated
// from the maps' types and sizes, and the run refused past a budget.

// ErrBudget: what a run would create in the kernel is past its budget
// (--kernel-memory).
var ErrBudget = badinput.New("past the kernel memory budget")

// MaxDefault is the most the default budget allows: katran's
// maps (its 33.5 million-entry ring among them, 388 MiB in all, which its
// loads share) fit it with room, and a 2^28-entry array (2 GiB) does not.
const MaxDefault = 1 << 30

// Flag names the option that raises the budget, in refusals.
const Flag = "--kernel-memory"

// Default is the budget when none is given: 1 GiB, or a
// quarter of the machine's memory (or of the memory cgroup's limit, to
// which the kernel charges BPF maps since Linux 5.11) where that is
// less, so that a run never takes more than a quarter of what the
// machine could give it.
func Default() uint64 {
	budget := uint64(MaxDefault)
	if total, ok := memTotal(); ok {
		budget = min(budget, total/4)
	}
	if limit, ok := cgroupMemoryLimit(); ok {
		budget = min(budget, limit/4)
	}
	return budget
}

// memTotal is /proc/meminfo's MemTotal in bytes.
func memTotal() (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), "MemTotal:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		return kb << 10, err == nil && kb > 0
	}
	return 0, false
}

// cgroupMemoryLimit is the memory.max of this process's cgroup (v2),
// where one is set.
func cgroupMemoryLimit() (uint64, bool) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(self), "\n") {
		path, ok := strings.CutPrefix(line, "0::")
		if !ok || strings.Contains(path, "..") {
			continue
		}
		limit, err := os.ReadFile("/sys/fs/cgroup" + path + "/memory.max")
		if err != nil {
			return 0, false
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(limit)), 10, 64)
		return n, err == nil && n > 0 // "max": none
	}
	return 0, false
}

// ParseSize reads a size in bytes: a number, with a unit K, M, G or T
// (powers of 1024, with or without "iB" or "B") or none.
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	number := strings.TrimRight(t, "KMGTiBkmgtb")
	unit := strings.ToUpper(strings.TrimSpace(t[len(number):]))
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	shift := strings.Index(" KMGT", unit)
	if unit == "" {
		shift = 0
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(number), 64)
	if shift < 0 || len(unit) > 1 || err != nil || n <= 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, fmt.Errorf("%q is not a size: want bytes, or a number with K, M, G or T (powers of 1024), such as 512M or 2G", s)
	}
	b := n * math.Pow(1024, float64(shift))
	if b >= math.MaxUint64 {
		return 0, fmt.Errorf("%q is past the largest size, 16 EiB", s)
	}
	return uint64(b), nil
}

// FormatSize writes a size in bytes with a binary unit, to a tenth.
func FormatSize(b uint64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f, u := float64(b), 0
	for f >= 1024 && u < len(units)-1 {
		f, u = f/1024, u+1
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", b)
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}

// Estimates of the kernel's own figures (each map type's map_mem_usage,
// which bpftool shows as memlock), checked against Linux 6.18 here: an
// array of 2^20 4-byte values 8.0 MiB, a preallocated hash of 2^20
// 16-byte keys and 8-byte values 88.0 MiB, a per-CPU array of 2^16
// 16-byte values on 2 CPUs 2.5 MiB, all within 1 %.
const (
	mapOverhead  = 1024 // struct bpf_map and the type's own header
	htabElem     = 48   // struct htab_elem before its key and value
	htabBucket   = 16   // struct bucket
	lpmNode      = 48   // struct lpm_trie_node and its allocation
	devmapEntry  = 64   // struct bpf_dtab_netdev, once an entry is set
	bloomHashes  = 5    // a bloom filter's default number of hashes
	programBytes = 32   // a program's code an instruction: xlated, JIT, line info
	programFixed = 16 << 10
)

// MapBytes estimates the kernel memory a map of spec ms holds, or may
// come to hold as programs fill it, on cpus possible CPUs. Maps whose
// memory follows what they hold (socket, task and inode storage) count
// their fixed part.
func MapBytes(ms *ebpf.MapSpec, cpus int) uint64 {
	n := uint64(ms.MaxEntries)
	k, v := roundUp8(uint64(ms.KeySize)), roundUp8(uint64(ms.ValueSize))
	c := uint64(max(cpus, 1))
	mul := func(xs ...uint64) uint64 {
		p := uint64(1)
		for _, x := range xs {
			p = SatMul(p, x)
		}
		return p
	}
	var b uint64
	switch ms.Type {
	case ebpf.Array:
		b = mul(n, v)
		if ms.Flags&unix.BPF_F_MMAPABLE != 0 {
			b = roundUp(b, uint64(os.Getpagesize()))
		}
	case ebpf.PerCPUArray:
		b = SatAdd(mul(n, 8), mul(n, v, c))
	case ebpf.ProgramArray, ebpf.ArrayOfMaps, ebpf.XSKMap, ebpf.SockMap, ebpf.CGroupArray, ebpf.PerfEventArray:
		b = mul(n, 8)
	case ebpf.Hash, ebpf.LRUHash, ebpf.HashOfMaps, ebpf.SockHash:
		if ms.Type == ebpf.HashOfMaps {
			v = 8 // the inner map's pointer
		}
		b = SatAdd(mul(pow2(n), htabBucket), mul(n+c, htabElem+k+v))
	case ebpf.PerCPUHash, ebpf.LRUCPUHash:
		b = SatAdd(SatAdd(mul(pow2(n), htabBucket), mul(n, htabElem+k+8)), mul(n, v, c))
	case ebpf.LPMTrie:
		b = mul(n, lpmNode+k+v)
	case ebpf.Queue, ebpf.Stack:
		b = mul(n+1, uint64(ms.ValueSize))
	case ebpf.RingBuf, ebpf.UserRingbuf:
		b = n
	case ebpf.BloomFilter:
		b = pow2(mul(n, bloomHashes*10)/7) / 8
	case ebpf.DevMap:
		b = mul(n, 8+devmapEntry)
	case ebpf.DevMapHash:
		b = SatAdd(mul(pow2(n), 8), mul(n, devmapEntry))
	case ebpf.CPUMap:
		// An entry holds a queue and a kthread; there are at most as
		// many as CPUs.
		b = mul(min(n, c), 64<<10)
	case ebpf.Arena:
		b = mul(n, uint64(os.Getpagesize())) // max_entries counts pages
	case ebpf.CGroupStorage, ebpf.PerCPUCGroupStorage, ebpf.SkStorage, ebpf.InodeStorage, ebpf.TaskStorage, ebpf.StructOpsMap:
	default:
		b = mul(n, htabElem+k+v)
	}
	return SatAdd(b, mapOverhead)
}

// ProgramBytes estimates what a load of a program holds in the kernel:
// its translated and JIT-compiled code and their metadata. The
// verifier's own working memory, freed when the load returns, is not
// counted.
func ProgramBytes(ps *ebpf.ProgramSpec) uint64 {
	return uint64(len(ps.Instructions))*programBytes + programFixed
}

func roundUp8(x uint64) uint64 { return roundUp(x, 8) }

func roundUp(x, to uint64) uint64 {
	if x > math.MaxUint64-to {
		return math.MaxUint64
	}
	return (x + to - 1) / to * to
}

// pow2 is the least power of two not below x (the kernel's hash buckets).
func pow2(x uint64) uint64 {
	switch {
	case x <= 1:
		return 1
	case bits.Len64(x-1) >= 64:
		return math.MaxUint64
	}
	return 1 << bits.Len64(x-1)
}

// SatAdd is a+b, or the largest uint64 past it.
func SatAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// SatMul is a*b, or the largest uint64 past it.
func SatMul(a, b uint64) uint64 {
	if hi, lo := bits.Mul64(a, b); hi == 0 {
		return lo
	}
	return math.MaxUint64
}
