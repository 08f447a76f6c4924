package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/profile"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// benchKernels runs the binary's bench on kernels, JSON into a file, and
// returns its exit code, the run and stderr.
func benchKernels(t *testing.T, args ...string) (int, results.KernelRuns, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "kernels.json")
	cmd := exec.Command(buildBinary(t), append(append([]string{"bench", "--format", "json", "-o", out, "-q"}, args...), quick...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var runs results.KernelRuns
	data, err := os.ReadFile(out)
	if err == nil {
		err = json.Unmarshal(data, &runs)
	}
	if err != nil {
		t.Fatalf("exit %d, no run across kernels: %v\n%s", code, err, stderr.String())
	}
	return code, runs, stderr.String()
}

// The bundled v4 on the host and on Debian's 6.1 and 6.12 under TCG:
// every kernel loads it, and each case takes the host's action and
// executes the host's instructions. The table says the emulated times
// are not shown; BMF names each kernel and leaves their time out.
func TestKernelsBundled(t *testing.T) {
	kerneltest.RequireBPF(t)
	older, newer, _ := kerneltest.Images(t)
	code, runs, stderr := benchKernels(t, "--kernel", "host", "--kernel", older, "--kernel", newer)
	if code != 0 || len(runs.Kernels) != 3 {
		t.Fatalf("exit %d, %d kernels; want 0, 3\n%s", code, len(runs.Kernels), stderr)
	}
	host := runs.Kernels[0].Reports[0].Programs[0].Results
	for _, k := range runs.Kernels {
		t.Logf("%s: %s, booted in %s, wall %s", k.Name(), k.Accel, k.Boot, k.Wall)
		if k.Status != results.KernelMeasured || len(k.Reports) != 1 || k.Emulated != (k.Accel == "tcg") {
			t.Fatalf("%s: %s (%s), emulated %v; want measured", k.Name(), k.Status, k.Error, k.Emulated)
		}
		if env := k.Reports[0].Environment; env.Kernel != k.Release && !strings.Contains(env.KernelInfo, k.Release) {
			t.Errorf("%s: the report says kernel %q", k.Name(), env.Kernel)
		}
		cases := k.Reports[0].Programs[0].Results
		for i, c := range cases {
			if i >= len(host) || c.Name != host[i].Name || c.Action != host[i].Action || c.Instructions != host[i].Instructions || c.Instructions == 0 {
				t.Errorf("%s: %s %s %d instructions; the host's %+v", k.Name(), c.Name, c.Action, c.Instructions, host[i])
			}
		}
	}
	var table, bmf bytes.Buffer
	if err := report.WriteKernels(&table, runs, report.Table, report.View{}); err != nil {
		t.Fatal(err)
	}
	if s := table.String(); strings.Count(s, "TCG (emulated)") != 2 || !strings.Contains(s, " ns ±") {
		t.Errorf("the table does not say the times are emulated:\n%s", s)
	}
	t.Log("\n" + table.String())
	if err := report.WriteKernels(&bmf, runs, report.BMF, report.View{}); err != nil {
		t.Fatal(err)
	}
	var benchmarks map[string]map[string]any
	if err := json.Unmarshal(bmf.Bytes(), &benchmarks); err != nil {
		t.Fatal(err)
	}
	for _, k := range runs.Kernels {
		m := benchmarks["fizzbuzz/fizz@"+k.Release]
		if _, timed := m["latency"]; m["instructions"] == nil || timed == k.Emulated {
			t.Errorf("BMF of %s: %v", k.Release, m)
		}
	}
}

// A program 6.1 cannot load (a kfunc of 6.5) is refused there, with the
// loader's reason, and measured on 6.12; the run exits 1.
func TestKernelsRefused(t *testing.T) {
	older, newer, _ := kerneltest.Images(t)
	code, runs, stderr := benchKernels(t, "../../bpf/testdata/dynptr.o", "--kernel", older, "--kernel", newer)
	if code != exitFailed || len(runs.Kernels) != 2 {
		t.Fatalf("exit %d, %d kernels; want %d, 2\n%s", code, len(runs.Kernels), exitFailed, stderr)
	}
	old, cur := runs.Kernels[0], runs.Kernels[1]
	if old.Status != results.KernelRefused || !strings.Contains(old.Error, "bpf_dynptr_from_xdp") {
		t.Errorf("6.1: %s: %s; want refused, naming the kfunc", old.Status, old.Error)
	}
	if cur.Status != results.KernelMeasured || len(cur.Reports) != 1 {
		t.Fatalf("6.12: %s: %s; want measured", cur.Status, cur.Error)
	}
	for _, c := range cur.Reports[0].Programs[0].Results {
		if c.Instructions == 0 || c.Stats == nil {
			t.Errorf("6.12: %s not measured: %+v", c.Name, c)
		}
	}
	if !strings.Contains(stderr, old.Release) || !strings.Contains(stderr, "refused") {
		t.Errorf("stderr does not name the kernel that refused: %s", stderr)
	}
}

// Ctrl-C while a kernel boots stops its VM at once: exit 130, no QEMU
// left, the VM's directory gone.
func TestKernelsInterrupt(t *testing.T) {
	older, _, _ := kerneltest.Images(t)
	tmp := t.TempDir()
	cmd := exec.Command(buildBinary(t), "bench", "--kernel", older)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); !strings.Contains(stderr.String(), "under TCG"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no boot under TCG: %s", stderr.String())
		}
	}
	time.Sleep(time.Second) // QEMU running
	qemu := children(cmd.Process.Pid)
	if len(qemu) == 0 {
		t.Fatalf("no QEMU running: %s", stderr.String())
	}
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 || time.Since(sent) > stopBound {
		t.Errorf("%v after %s; want exit 130 at once\n%s", err, time.Since(sent), stderr.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
	if left := gone(qemu, 0); len(left) > 0 {
		t.Errorf("QEMU %v still running", left)
	}
}

// fakeImage is a file with an x86 boot header and nothing else: a kernel
// image as far as the check before booting can tell.
func fakeImage(t *testing.T) string {
	var hdr [0x210]byte
	binary.LittleEndian.PutUint16(hdr[0x1fe:], 0xaa55)
	copy(hdr[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(hdr[0x206:], 0x20f)
	p := filepath.Join(t.TempDir(), "vmlinuz-fake")
	if err := os.WriteFile(p, hdr[:], 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Bad --kernel input: one line, exit 2, before anything boots.
func TestKernelsBadInput(t *testing.T) {
	image := fakeImage(t)
	for _, tc := range []struct {
		args []string
		path string // PATH, where it matters
		want string
	}{
		{args: []string{"--kernel", "/no/such/vmlinuz"}, want: "no such file"},
		{args: []string{"--kernel", "/etc/hostname"}, want: "not a kernel image"},
		{args: []string{"--kernel", image}, path: t.TempDir(), want: "apt-get install qemu-system-x86"},
		{args: []string{"--kernel", "host", "--kernel", "host"}, want: "twice"},
		{args: []string{"--kernel", "host", "--format", "gobench"}, want: "a run across kernels is written as table, json"}, // and the rest of the registry's
		{args: []string{"--kernel", "host", "--save-baseline", "x"}, want: "--save-baseline"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if tc.path != "" {
				t.Setenv("PATH", tc.path)
			}
			code, _, stderr := runCLI(append([]string{"bench"}, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%q: exit %d, %q; want %d, one line with %q", tc.args, code, stderr, exitUsage, tc.want)
			}
		})
	}
}

// syncBuffer is a child's output, read while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// profile --kernel on the host, 6.1 and 6.12 (under TCG), of a program
// 6.1 cannot load: 6.1 is named with the kfunc it lacks, the run exits 1,
// and the others each give every case the host's BPF instructions and
// the machine code their own JIT emitted.
func TestProfileKernels(t *testing.T) {
	kerneltest.RequireBPF(t)
	older, newer, _ := kerneltest.Images(t)
	out := filepath.Join(t.TempDir(), "profiles.json")
	cmd := exec.Command(buildBinary(t), "profile", "../../bpf/testdata/dynptr.o", "--format", "json", "-o", out,
		"--kernel", "host", "--kernel", older, "--kernel", newer)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var exit *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != exitFailed {
		t.Fatalf("%v; want exit %d\n%s", err, exitFailed, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var kp profile.KernelProfiles
	if err := json.Unmarshal(data, &kp); err != nil || len(kp.Kernels) != 3 {
		t.Fatalf("%v, %d kernels; want 3", err, len(kp.Kernels))
	}
	host, old, cur := kp.Kernels[0], kp.Kernels[1], kp.Kernels[2]
	if old.Status != results.KernelRefused || old.Profile != nil || !strings.Contains(old.Error, "bpf_dynptr_from_xdp") {
		t.Errorf("6.1: %s: %s; want refused, naming the kfunc", old.Status, old.Error)
	}
	for _, k := range []profile.KernelProfile{host, cur} {
		if k.Status != results.KernelMeasured || k.Profile == nil || len(k.Profile.Profiles) != 1 {
			t.Fatalf("%s: %s (%s); want a profile", k.Name(), k.Status, k.Error)
		}
		p := k.Profile.Profiles[0]
		code := 0
		for _, s := range p.Source {
			code += len(s.Code)
		}
		if p.Machine != "x86-64" || code == 0 {
			t.Errorf("%s: machine %q, %d instructions of machine code (%s)", k.Name(), p.Machine, code, p.NoMachine)
		}
		for i, c := range p.Cases {
			if want := host.Profile.Profiles[0].Cases[i]; c.Name != want.Name || c.Total != want.Total || c.Total == 0 {
				t.Errorf("%s: %s %d instructions; the host's %s %d", k.Name(), c.Name, c.Total, want.Name, want.Total)
			}
		}
	}
	var text bytes.Buffer
	if err := (report.Output{Format: report.Text}).Write(&text, report.OfKernelProfiles(kp)); err != nil {
		t.Fatal(err)
	}
	if s := text.String(); !strings.Contains(s, "not loaded") || !strings.Contains(s, "JIT image") || !strings.Contains(s, "bpf_dynptr_from_xdp") {
		t.Errorf("the table lacks the refusal or the image:\n%s", s)
	}
	t.Log("\n" + text.String())
}

// fakeQEMU builds testdata/fakeqemu, a QEMU that boots nothing and plays
// a guest's hostile output, as qemu-system-x86_64 in a directory any
// user may read (run as root, xdpmicro runs QEMU as nobody), and returns
// a PATH that finds it first.
func fakeQEMU(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if out, err := exec.Command(goTool, "build", "-o", filepath.Join(dir, "qemu-system-x86_64"), "./testdata/fakeqemu").CombinedOutput(); err != nil {
		t.Fatalf("build the fake QEMU: %v\n%s", err, out)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// hostileGuest runs bench on a fake kernel image, booted by the fake
// QEMU with env (XDPMICRO_FAKE_GUEST...), and returns its exit code,
// stdout, stderr and peak memory (max RSS, KiB).
func hostileGuest(t *testing.T, path string, env ...string) (int, string, string, int64) {
	t.Helper()
	cmd := exec.Command(buildBinary(t), append([]string{"bench", "v4", "-q", "--kernel", fakeImage(t)}, quick...)...)
	cmd.Env = append(append(os.Environ(), "PATH="+path), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String(), rss
}

// A guest's report is read with the checks a saved result is read with:
// one that is no report ({}, an empty array, a case whose statistics do
// not match its samples) fails that kernel, named under the table, and
// the run exits 1 in one line: the guest failed, as a kernel that
// panics does; the user's input was sound. (Before, {} panicked with
// index out of range [-1], exit 2.)
func TestKernelsGuestReportChecked(t *testing.T) {
	path := fakeQEMU(t)
	for _, stdout := range []string{
		`{}`, `[]`, `[{}]`, `not json`,
		`{"schema": "` + results.Schema + `", "programs": []}`,
		`{"schema": "` + results.Schema + `", "programs": [{"cases": [{"name": "a", "stats": {"n": 2}, "samples_ns": [1]}]}]}`,
	} {
		code, out, stderr, _ := hostileGuest(t, path, "XDPMICRO_FAKE_GUEST=stdout", "XDPMICRO_FAKE_STDOUT="+stdout)
		if code != exitFailed || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "1 of 1 kernels not measured") ||
			!strings.Contains(out, "failed: unreadable report") {
			t.Errorf("the guest's report %s: exit %d, stderr %q, table:\n%s\nwant exit %d, one line, the kernel failed", stdout, code, stderr, out, exitFailed)
		}
	}
}

// maxKernelRSS bounds the memory of a run on one kernel whose guest
// floods it: xdpmicro holds its own binary and the initramfs while it
// builds it (110 MB here), and 16 MiB of result at most.
const maxKernelRSS = 400 << 10 // KiB

// A guest's output is bounded as it arrives: a result line that
// decompresses to 256 MiB fails its kernel ("over 16 MiB") within
// maxKernelRSS; a console line of 256 MiB is cut, and the table shows
// 1 KiB of it. (Before: 1 GiB took the host to 2.7 and 5.3 GB, and the
// table printed the whole line.)
func TestKernelsGuestOutputBounded(t *testing.T) {
	path := fakeQEMU(t)
	size := fmt.Sprint(256 << 20)
	code, out, stderr, rss := hostileGuest(t, path, "XDPMICRO_FAKE_GUEST=bomb", "XDPMICRO_FAKE_SIZE="+size)
	t.Logf("a result of 256 MiB: exit %d, max RSS %d MiB", code, rss>>10)
	if code != exitFailed || !strings.Contains(out, "over 16 MiB") || rss > maxKernelRSS {
		t.Errorf("a result of 256 MiB: exit %d, max RSS %d MiB, stderr %q, table:\n%s\nwant exit %d, \"over 16 MiB\", at most %d MiB",
			code, rss>>10, stderr, out, exitFailed, maxKernelRSS>>10)
	}

	code, out, stderr, rss = hostileGuest(t, path, "XDPMICRO_FAKE_GUEST=console", "XDPMICRO_FAKE_SIZE="+size)
	longest := 0
	for _, line := range strings.Split(out, "\n") {
		longest = max(longest, len(line))
	}
	t.Logf("a console line of 256 MiB: exit %d, max RSS %d MiB, longest line printed %d bytes", code, rss>>10, longest)
	if code != exitFailed || longest > 2048 || !strings.Contains(out, "bytes cut]") || rss > maxKernelRSS {
		t.Errorf("a console line of 256 MiB: exit %d, max RSS %d MiB, longest line %d bytes, stderr %q; want exit %d, the line cut, at most %d MiB",
			code, rss>>10, longest, stderr, exitFailed, maxKernelRSS>>10)
	}
}

// children are the processes whose parent is pid.
func children(pid int) []int {
	var kids []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses
		fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			kid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			kids = append(kids, kid)
		}
	}
	return kids
}

// running says whether pid is a process that has not exited (a zombie
// has: it waits for init to reap it).
func running(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// gone waits up to d for every pid to exit, and returns those that
// have not.
func gone(pids []int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		var left []int
		for _, pid := range pids {
			if running(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// qemuChildren are the VMs among pid's children: not the check of
// QEMU's options before one.
func qemuChildren(pid int) []int {
	var qemu []int
	for _, c := range children(pid) {
		if args, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c)); bytes.Contains(args, []byte("-nodefaults")) {
			qemu = append(qemu, c)
		}
	}
	return qemu
}

// statusField is a line of /proc/PID/status, its name cut.
func statusField(pid int, name string) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// xdpmicro killed outright (SIGKILL) while a kernel boots: QEMU, which
// runs as nobody under its seccomp filter (xdpmicro runs as root here),
// dies with it, and nothing is left in TMPDIR: the initramfs was in
// memory only. (Before: QEMU ran as root, without -sandbox, and a
// directory xdpmicro-vm-* with the 34 MB initramfs.cpio stayed.)
func TestKernelsKilled(t *testing.T) {
	older, _, _ := kerneltest.Images(t)
	tmp := t.TempDir()
	cmd := exec.Command(buildBinary(t), "bench", "--kernel", older)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// A QEMU that has run for a second, as the user it runs as: where
	// KVM cannot boot these kernels (a nested KVM here aborts on an MSR),
	// the first QEMU dies and xdpmicro starts another under TCG.
	var qemu []int
	for deadline := time.Now().Add(time.Minute); len(qemu) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("no QEMU running: %s", stderr.String())
		}
		started := qemuChildren(cmd.Process.Pid)
		if len(started) == 0 {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		time.Sleep(time.Second)
		for _, pid := range started {
			if slices.Contains(qemuChildren(cmd.Process.Pid), pid) {
				qemu = append(qemu, pid)
			}
		}
	}
	if os.Geteuid() == 0 {
		uid, seccomp := statusField(qemu[0], "Uid"), statusField(qemu[0], "Seccomp")
		// real, effective, saved and file system uid
		if ids := strings.Fields(uid); len(ids) != 4 || slices.Contains(ids, "0") || seccomp != "2" {
			t.Errorf("QEMU runs as uids %q, seccomp %q; want another user than root, under a filter (2)", uid, seccomp)
		}
		t.Logf("QEMU: Uid %s, Groups %q, Seccomp %s, NoNewPrivs %s", uid, statusField(qemu[0], "Groups"), seccomp, statusField(qemu[0], "NoNewPrivs"))
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if left := gone(qemu, 5*time.Second); len(left) > 0 {
		t.Errorf("QEMU %v still running after xdpmicro was killed", left)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// xdpmicro killed outright while --kernel host runs its child: the
// child stops too (SIGTERM, as on Ctrl-C), its loads and CPU lock with
// it. (Before: it ran its whole 30 s, holding them.)
func TestKernelsHostKilled(t *testing.T) {
	kerneltest.RequireBPF(t)
	cmd := exec.Command(buildBinary(t), "bench", "v4", "-q", "--kernel", "host", "--time", "30s")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var kids []int
	for deadline := time.Now().Add(30 * time.Second); len(kids) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no child started")
		}
		kids = children(cmd.Process.Pid)
	}
	time.Sleep(2 * time.Second) // measuring
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if left := gone(kids, 10*time.Second); len(left) > 0 {
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("the host's child %v still running 10 s after xdpmicro was killed", left)
	}
}

// profile --kernel reads a guest's profile as untrusted too: {} and a
// null profile fail that kernel, exit 1. (Before, the kernel was
// "measured" with no profile, exit 0.)
func TestProfileKernelsGuestChecked(t *testing.T) {
	path := fakeQEMU(t)
	for _, stdout := range []string{`{}`, `{"profiles": [null]}`} {
		cmd := exec.Command(buildBinary(t), "profile", "v4", "--kernel", fakeImage(t))
		cmd.Env = append(os.Environ(), "PATH="+path, "XDPMICRO_FAKE_GUEST=stdout", "XDPMICRO_FAKE_STDOUT="+stdout)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		_ = cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != exitFailed || !strings.Contains(out.String(), "unreadable profile") {
			t.Errorf("the guest's profile %s: exit %d, stderr %q, table:\n%s\nwant exit %d, the kernel failed", stdout, code, stderr.String(), out.String(), exitFailed)
		}
	}
}
