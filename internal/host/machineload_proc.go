package host

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Reading the machine's load from procfs and sysfs. Parsing is kept apart
// from reading, so that it can be tested with fixed text.

// Where the kernel reports the load and the CPUs set apart.
const (
	procStatPath     = "/proc/stat"
	procLoadavgPath  = "/proc/loadavg"
	ownTasksPath     = "/proc/self/task"
	procPressurePath = "/proc/pressure/cpu"
	isolatedPath     = "/sys/devices/system/cpu/isolated"
	nohzFullPath     = "/sys/devices/system/cpu/nohz_full"
)

// cpuTimes is one CPU's line of /proc/stat: its time since boot in each
// state, in USER_HZ ticks (10 ms).
type cpuTimes struct {
	cpu                                                   int
	user, nice, system, idle, iowait, irq, softirq, steal uint64
}

// total is all of the CPU's time. guest and guest_nice are left out: the
// kernel counts them in user and nice already.
func (t cpuTimes) total() uint64 {
	return t.user + t.nice + t.system + t.idle + t.iowait + t.irq + t.softirq + t.steal
}

// busy is the time the CPU was neither idle nor waiting for I/O (which is
// idle too: nothing was ready to run).
func (t cpuTimes) busy() uint64 { return t.total() - t.idle - t.iowait }

// sub returns the time spent in each state from u to t. A counter that went
// back counts zero: idle and iowait may, on tickless kernels.
func (t cpuTimes) sub(u cpuTimes) cpuTimes {
	d := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	return cpuTimes{cpu: t.cpu,
		user: d(t.user, u.user), nice: d(t.nice, u.nice), system: d(t.system, u.system),
		idle: d(t.idle, u.idle), iowait: d(t.iowait, u.iowait), irq: d(t.irq, u.irq),
		softirq: d(t.softirq, u.softirq), steal: d(t.steal, u.steal)}
}

// findCPU returns the times of cpu in ts.
func findCPU(ts []cpuTimes, cpu int) (cpuTimes, bool) {
	if cpu >= 0 && cpu < len(ts) && ts[cpu].cpu == cpu {
		return ts[cpu], true // the usual layout: every CPU online
	}
	for _, t := range ts {
		if t.cpu == cpu {
			return t, true
		}
	}
	return cpuTimes{}, false
}

var cpuPrefix = []byte("cpu")

// parseProcStat parses the per-CPU lines of /proc/stat text into dst,
// reusing its room: with enough, it allocates nothing. The first line, the
// sum over all CPUs, is skipped; so is everything after the CPU lines.
func parseProcStat(dst []cpuTimes, text []byte) ([]cpuTimes, error) {
	dst = dst[:0]
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if !bytes.HasPrefix(line, cpuPrefix) {
			if len(dst) > 0 {
				break // the CPU lines come first, together
			}
			continue
		}
		rest := line[len(cpuPrefix):]
		if len(rest) > 0 && rest[0] == ' ' {
			continue // the sum
		}
		var f [9]uint64 // the CPU's number, then its first 8 fields
		n := 0
		for ; n < len(f); n++ {
			v, r, ok := nextUint(rest, n > 0)
			if !ok {
				break
			}
			f[n], rest = v, r
		}
		// Fields up to idle are as old as the file; later ones were added
		// over the years, and missing ones count zero.
		if n < 5 || (n < len(f) && len(bytes.TrimLeft(rest, " ")) > 0) {
			return dst, fmt.Errorf("%s: malformed line %q", procStatPath, line)
		}
		dst = append(dst, cpuTimes{cpu: int(f[0]), user: f[1], nice: f[2], system: f[3], idle: f[4],
			iowait: f[5], irq: f[6], softirq: f[7], steal: f[8]})
	}
	if len(dst) == 0 {
		return dst, fmt.Errorf("%s: no CPU lines", procStatPath)
	}
	return dst, nil
}

// nextUint parses the decimal number at the start of b, after spaces if
// spaced. It fails unless the number ends b or is followed by a space.
func nextUint(b []byte, spaced bool) (v uint64, rest []byte, ok bool) {
	i := 0
	if spaced {
		for i < len(b) && b[i] == ' ' {
			i++
		}
		if i == 0 {
			return 0, b, false
		}
	}
	j := i
	for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
		v = v*10 + uint64(b[j]-'0')
	}
	if j == i || (j < len(b) && b[j] != ' ') {
		return 0, b, false
	}
	return v, b[j:], true
}

// statReader reads /proc/stat again and again into one buffer.
type statReader struct {
	f   *os.File
	buf []byte
}

func openStat(path string) (*statReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &statReader{f: f, buf: make([]byte, 4096)}, nil
}

// read parses a fresh copy of the file into dst. One pread at offset 0
// makes the kernel generate the file anew, and returns all of it when the
// buffer is large enough; the buffer grows until it is.
func (r *statReader) read(dst []cpuTimes) ([]cpuTimes, error) {
	for {
		n, err := unix.Pread(int(r.f.Fd()), r.buf, 0)
		runtime.KeepAlive(r.f)
		if err != nil {
			return dst[:0], fmt.Errorf("read %s: %w", r.f.Name(), err)
		}
		if n < len(r.buf) {
			return parseProcStat(dst, r.buf[:n])
		}
		r.buf = make([]byte, 2*len(r.buf))
	}
}

func (r *statReader) close() { r.f.Close() }

// readStat reads /proc/stat once.
func readStat() ([]cpuTimes, error) {
	r, err := openStat(procStatPath)
	if err != nil {
		return nil, err
	}
	defer r.close()
	return r.read(nil)
}

// ownRunnable counts this process's threads that are running or waiting
// for a CPU: the reader itself at least, and measuring threads still
// finishing a sample. /proc/loadavg counts them with everyone else's.
func ownRunnable() int {
	tasks, err := os.ReadDir(ownTasksPath)
	if err != nil {
		return 0
	}
	n := 0
	for _, t := range tasks {
		text, err := os.ReadFile(ownTasksPath + "/" + t.Name() + "/stat")
		if err == nil && taskState(string(text)) == 'R' {
			n++
		}
	}
	return n
}

// taskState is the state letter of a task's stat line.
func taskState(stat string) byte {
	f := statFields(stat)
	if len(f) == 0 {
		return 0
	}
	return f[0][0]
}

// statFields are a task's stat fields from the third (its state) on:
// they follow the command name in parentheses, which may itself hold
// ") ".
func statFields(stat string) []string {
	i := strings.LastIndex(stat, ") ")
	if i < 0 {
		return nil
	}
	return strings.Fields(stat[i+2:])
}

// parseLoadavg parses /proc/loadavg: the one-minute load average, and the
// number of tasks runnable at that moment (running or waiting for a CPU),
// the first half of its fourth field ("2/345").
func parseLoadavg(text string) (avg1 float64, runnable int, err error) {
	f := strings.Fields(text)
	if len(f) < 4 {
		return 0, 0, fmt.Errorf("%s: malformed: %q", procLoadavgPath, text)
	}
	if avg1, err = strconv.ParseFloat(f[0], 64); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", procLoadavgPath, err)
	}
	running, _, _ := strings.Cut(f[3], "/")
	if runnable, err = strconv.Atoi(running); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", procLoadavgPath, err)
	}
	return avg1, runnable, nil
}

// parsePressure parses /proc/pressure/cpu for "some avg10": the share of
// the last 10 s in which some runnable task waited for a CPU, as a
// fraction (the file has percent).
func parsePressure(text string) (float64, error) {
	for line := range strings.Lines(text) {
		rest, ok := strings.CutPrefix(line, "some ")
		if !ok {
			continue
		}
		for _, field := range strings.Fields(rest) {
			if v, ok := strings.CutPrefix(field, "avg10="); ok {
				pct, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return 0, fmt.Errorf("%s: %w", procPressurePath, err)
				}
				return pct / 100, nil
			}
		}
	}
	return 0, fmt.Errorf("%s: no \"some avg10\" in %q", procPressurePath, text)
}

var errCPUList = errors.New("malformed CPU list")

// parseCPUList parses the kernel's CPU list format, e.g. "1-3,5"; an empty
// list is none.
func parseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("%w: %q", errCPUList, s)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// formatCPUList writes ascending CPU numbers in the kernel's list format,
// but lists runs shorter than four in full ("1,2,3", "0-7"): easier read.
func formatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j-i >= 3 {
			fmt.Fprintf(&b, "%d-%d", cpus[i], cpus[j])
			i = j + 1
			continue
		}
		for k := i; k <= j; k++ {
			if k > i {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, cpus[k])
		}
		i = j + 1
	}
	return b.String()
}

// readCPUList reads a sysfs CPU list; a missing or unreadable one (as
// nohz_full's "(null)" when unset) is none.
func readCPUList(path string) []int {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	cpus, err := parseCPUList(string(text))
	if err != nil {
		return nil
	}
	return cpus
}
