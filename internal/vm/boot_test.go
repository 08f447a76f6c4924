package vm

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary its own guest: booted as /init, it runs
// the job's args through guestRun.
func TestMain(m *testing.M) {
	if IsGuest() {
		os.Exit(Guest(guestRun))
	}
	os.Exit(m.Run())
}

// guestRun echoes its args and the guest's kernel, and exits with the
// number the first arg names.
func guestRun(args []string, stdout, stderr io.Writer) int {
	data, _ := os.ReadFile("/proc/version")
	fmt.Fprintf(stdout, "args %s\n%s", strings.Join(args, " "), data)
	fmt.Fprintln(stderr, "to stderr")
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		fmt.Fprintln(stderr, "no BTF:", err)
	}
	code := 0
	fmt.Sscan(args[0], &code)
	return code
}

// kernelImages are the kernels the tests boot: XDPMICRO_KERNELS, a
// directory of vmlinuz-* files, or /var/cache/xdpmicro-kernels.
func kernelImages(t *testing.T) []string {
	t.Helper()
	dir := os.Getenv("XDPMICRO_KERNELS")
	if dir == "" {
		dir = "/var/cache/xdpmicro-kernels"
	}
	images, _ := filepath.Glob(filepath.Join(dir, "vmlinuz-*"))
	if len(images) == 0 {
		t.Skipf("no kernel images in %s (XDPMICRO_KERNELS): .ci/kernels fetches Debian's", dir)
	}
	sort.Strings(images)
	return images
}

func TestBootTCG(t *testing.T) {
	qemu, err := FindQEMU()
	if err != nil {
		t.Skip(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fs := NewInitramfs()
	libs, err := fs.AddBinary(exe, "/init")
	if err != nil {
		t.Fatal(err)
	}
	fs.Add(JobPath, []byte(`{"args":["7","x"],"dir":"/tmp"}`), 0o644)
	initrd := filepath.Join(dir, "initrd")
	if err := os.WriteFile(initrd, fs.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var cmdline []string
	if len(libs) > 0 {
		cmdline = append(cmdline, "LD_LIBRARY_PATH="+strings.Join(libs, ":"))
	}
	for _, image := range kernelImages(t) {
		t.Run(filepath.Base(image), func(t *testing.T) {
			img, err := CheckImage(image)
			if err != nil {
				t.Fatal(err)
			}
			m := Machine{QEMU: qemu, Kernel: image, Initrd: initrd, Accel: TCG, MemoryMiB: 512, VCPUs: 1,
				Cmdline: cmdline, Dir: dir, Boot: time.Minute, Run: time.Minute}
			out := m.Start(context.Background())
			if out.Err != nil {
				t.Fatalf("%v\n%s", out.Err, strings.Join(out.Console, "\n"))
			}
			t.Logf("%s: up after %s, wall %s, command %s", img.Release(), out.Up.Round(time.Millisecond), out.Wall.Round(time.Millisecond), out.Result.Took)
			r := out.Result
			if r.Exit != 7 || r.Release != img.Release() || !strings.HasPrefix(string(r.Stdout), "args 7 x\nLinux version "+img.Release()) || !strings.Contains(r.Stderr, "to stderr") {
				t.Errorf("result %+v, stdout %q", r, r.Stdout)
			}
		})
	}
}
