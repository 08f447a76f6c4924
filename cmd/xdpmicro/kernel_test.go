package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
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
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(tmp)) {
			t.Errorf("still running: %s", bytes.ReplaceAll(data, []byte{0}, []byte{' '}))
		}
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
		{args: []string{"--kernel", "host", "--format", "gobench"}, want: "table, json or bmf"},
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
	var kp xdpmicro.KernelProfiles
	if err := json.Unmarshal(data, &kp); err != nil || len(kp.Kernels) != 3 {
		t.Fatalf("%v, %d kernels; want 3", err, len(kp.Kernels))
	}
	host, old, cur := kp.Kernels[0], kp.Kernels[1], kp.Kernels[2]
	if old.Status != results.KernelRefused || old.Profile != nil || !strings.Contains(old.Error, "bpf_dynptr_from_xdp") {
		t.Errorf("6.1: %s: %s; want refused, naming the kfunc", old.Status, old.Error)
	}
	for _, k := range []xdpmicro.KernelProfile{host, cur} {
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
	if err := xdpmicro.WriteKernelProfiles(&text, kp, xdpmicro.ProfileText, xdpmicro.ProfileView{}); err != nil {
		t.Fatal(err)
	}
	if s := text.String(); !strings.Contains(s, "not loaded") || !strings.Contains(s, "JIT image") || !strings.Contains(s, "bpf_dynptr_from_xdp") {
		t.Errorf("the table lacks the refusal or the image:\n%s", s)
	}
	t.Log("\n" + text.String())
}
