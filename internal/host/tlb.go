package host

import (
	"bufio"
	"os"
	"slices"
	"strings"
)

// Where the kernel says how it isolates itself from user space.
const (
	meltdownPath = "/sys/devices/system/cpu/vulnerabilities/meltdown"
	cpuinfoPath  = "/proc/cpuinfo"
)

// TLBFlushedOnEntry says whether every entry into the kernel flushes the
// TLB: page-table isolation (PTI) on a CPU without PCID, which cannot
// keep the kernel's entries apart from user space's. Then a test run of
// one run a call starts with none of the pages it touches translated, and
// a path that touches more pages (a helper and its map) reads slower than
// in a loop of many runs. Measured on such a VM: a queue push, v4's fizz,
// 22-26 ns net one run a call, 14 ns as a slope; paths without helpers
// within 0.3-2.3 ns.
func TLBFlushedOnEntry() bool {
	m, err := os.ReadFile(meltdownPath)
	if err != nil || !strings.Contains(string(m), "PTI") {
		return false
	}
	return !cpuHasFlag(cpuinfoPath, "pcid")
}

// cpuHasFlag says whether the first CPU's flags in a cpuinfo file hold
// flag; false if it cannot tell.
func cpuHasFlag(path, flag string) bool {
	flags, _ := cpuinfoField(path, "flags")
	return slices.Contains(strings.Fields(flags), flag)
}

// cpuinfoField is the first value of key in a cpuinfo file, as /proc/cpuinfo
// lists it per CPU: "key\t: value".
func cpuinfoField(path, key string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64*1024), 1024*1024) // flags lines are long
	for s.Scan() {
		k, value, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(value), true
		}
	}
	return "", false
}
