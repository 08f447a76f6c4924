package kernels

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// TestMain makes the test binary its own guest: booted as /init, it runs
// the job's args through guestRun.
func TestMain(m *testing.M) {
	if IsGuest() {
		os.Exit(Guest(guestRun))
	}
	os.Exit(m.Run())
}

// guestRun echoes its args and the guest's kernel, says whether /proc was
// mounted before it ran and the kernel has BTF, and exits with the
// number the first arg names.
func guestRun(args []string, stdout, stderr io.Writer) int {
	version, _ := os.ReadFile("/proc/version")
	fmt.Fprintf(stdout, "args %s\n%s", strings.Join(args, " "), version)
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		fmt.Fprintln(stderr, "no BTF:", err)
	}
	if _, err := os.Stat(filepath.Join("/", "sys", "fs", "bpf")); err != nil {
		fmt.Fprintln(stderr, "no bpffs:", err)
	}
	code := 0
	fmt.Sscan(args[0], &code)
	return code
}

// testMachine is a machine whose /init is this test binary, its job the
// args, under TCG.
func testMachine(t *testing.T, kernel, qemu string, args ...string) Machine {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fs := NewInitramfs()
	libs, err := fs.AddBinary(exe, "/init")
	if err != nil {
		t.Fatal(err)
	}
	fs.Add(JobPath, []byte(fmt.Sprintf(`{"args":["%s"],"emulated_args":["emulated"],"dir":"/tmp"}`, strings.Join(args, `","`))), 0o644)
	initrd, err := fs.MemFile()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { initrd.Close() })
	img, err := CheckImage(kernel)
	if err != nil {
		t.Fatal(err)
	}
	image, err := img.Load()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { image.Close() })
	var cmdline []string
	if len(libs) > 0 {
		cmdline = append(cmdline, "LD_LIBRARY_PATH="+strings.Join(libs, ":"))
	}
	return Machine{QEMU: qemu, Kernel: image, Initrd: initrd, Accel: TCG, MemoryMiB: 512, VCPUs: 1,
		Cmdline: cmdline, Boot: 2 * time.Minute, Run: time.Minute}
}

// Both kernels boot under TCG, run the job with /proc, /sys, bpffs and
// BTF there, and give back its output, its exit code and their release.
func TestBootTCG(t *testing.T) {
	older, newer, qemu := kerneltest.Images(t)
	for _, image := range []string{older, newer} {
		t.Run(filepath.Base(image), func(t *testing.T) {
			img, err := CheckImage(image)
			if err != nil {
				t.Fatal(err)
			}
			out := testMachine(t, image, qemu, "7", "x").Start(context.Background())
			if out.Err != nil {
				t.Fatalf("%v\n%s", out.Err, strings.Join(out.Console, "\n"))
			}
			t.Logf("%s: up after %s, wall %s, the job %s", img.Release(), out.Up.Round(time.Millisecond), out.Wall.Round(time.Millisecond), out.Result.Took)
			r := out.Result
			want := "args 7 x emulated\nLinux version " + img.Release()
			if r.Exit != 7 || r.Release != img.Release() || !strings.HasPrefix(string(r.Stdout), want) || r.Stderr != "" || r.Setup != "" {
				t.Errorf("result %+v, stdout %q; want exit 7, %s, stdout %q…, no stderr", r, r.Stdout, img.Release(), want)
			}
		})
	}
}

// A kernel that panics is named so, with its console; one that does not
// reach /init in time is stopped and named so.
func TestBootFailures(t *testing.T) {
	older, _, qemu := kerneltest.Images(t)
	m := testMachine(t, older, qemu, "0")
	m.Cmdline = append(m.Cmdline, "rdinit=/no-such-init") // no /init: the kernel looks for a root and panics
	out := m.Start(context.Background())
	if !errors.Is(out.Err, ErrPanic) || len(out.Console) == 0 {
		t.Errorf("rdinit=/no-such-init: %v, console %q; want %v and the console's tail", out.Err, out.Console, ErrPanic)
	}
	t.Logf("%v; console tail %q", out.Err, out.Console)

	m = testMachine(t, older, qemu, "0")
	m.Boot = time.Second
	start := time.Now()
	out = m.Start(context.Background())
	if !errors.Is(out.Err, ErrNoBoot) || time.Since(start) > 10*time.Second {
		t.Errorf("1s to boot: %v after %s; want %v at once", out.Err, time.Since(start), ErrNoBoot)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out = testMachine(t, older, qemu, "0").Start(ctx)
	if !errors.Is(out.Err, context.DeadlineExceeded) {
		t.Errorf("cancelled: %v; want %v", out.Err, context.DeadlineExceeded)
	}
}
