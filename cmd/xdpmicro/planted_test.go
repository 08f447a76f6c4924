package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/socklock"
)

// plantedHelper makes the test binary run TestLockPlantedFiles's part
// inside a private mount namespace; its value is the xdpmicro binary.
const plantedHelper = "XDPMICRO_TEST_PLANTED_BINARY"

// The attack of issue 37, planted at every path xdpmicro uses or used to
// use as root: a symlink of another user's to a file only root may read,
// a dangling one to a file that must not come to exist, and, in a second
// round, another user's own file. Then the CPU lock as the library takes
// it, the kernel tests' lock, and real runs: one refusing its output
// where a symlink waits in the world-writable /tmp (issue 59), or
// measuring into it where another user's file does, and one refusing a
// --report through a planted symlink. The victims keep their content and
// mode, nothing is created, and the planted files stay as they were.
//
// It plants on a tmpfs over /tmp and /run/lock in a mount namespace of its
// own, so that the machine's own lock files and runs (an older xdpmicro
// holding /run/lock/xdpmicro-cpu1.lock, say) are left alone.
func TestLockPlantedFiles(t *testing.T) {
	if bin := os.Getenv(plantedHelper); bin != "" {
		plantedRounds(t, bin)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("planting another user's files, in a mount namespace of their own, needs root (sudo go test ...)")
	}
	kerneltest.RequireBPFAlone(t)
	bin := buildBinary(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockPlantedFiles$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), plantedHelper+"="+bin)
	// Go makes the new namespace's mounts private: nothing propagates out.
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if errors.Is(err, unix.EPERM) {
		t.Skipf("no mount namespace of its own here (a container without CAP_SYS_ADMIN?): %v", err)
	}
	t.Logf("in a mount namespace of its own:\n%s", out)
	if err == nil && strings.Contains(string(out), "--- SKIP: TestLockPlantedFiles") {
		t.Skip("the helper skipped: see its output above")
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestLockPlantedFiles") {
		t.Fatalf("the planted attack: %v", err)
	}
}

// plantedPaths are every path a run as root used to open for its locks,
// or opens for its output, here.
func plantedPaths(t *testing.T) []string {
	cpus, err := host.AllowedCPUs(host.AnyCPU)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for cpu := range max(runtime.NumCPU(), cpus[len(cpus)-1]+1) {
		// /run/lock, or the temporary directory where there was none.
		paths = append(paths, fmt.Sprintf("/run/lock/xdpmicro-cpu%d.lock", cpu), fmt.Sprintf("/tmp/xdpmicro-cpu%d.lock", cpu))
	}
	return append(paths, "/tmp/xdpmicro-kernel-tests.lock", plantedOutput)
}

// dangles says which paths get a symlink to a file that does not exist:
// the kernel tests' lock and even CPUs' locks; the others point to the
// victim.
func dangles(path string) bool {
	if strings.Contains(path, "kernel-tests") {
		return true
	}
	cpu, err := strconv.Atoi(strings.TrimSuffix(path[strings.LastIndex(path, "cpu")+3:], ".lock"))
	return err == nil && cpu%2 == 0
}

// plantedOutput is where the measuring run writes its report: a name in
// the world-writable /tmp, where another user got there first.
const plantedOutput = "/tmp/xdpmicro-planted.json"

// plantedFile is what a round left at a path, to be found there after.
type plantedFile struct {
	path, target string // a symlink and its target
	created      string // a dangling symlink's target: must not come to exist
	kept         string // a hard link to another user's file, to read it after
	ino          uint64
}

// plantedRounds runs in the private mount namespace.
func plantedRounds(t *testing.T, bin string) {
	// The binary lies in a /tmp about to be covered: hold on to it.
	program, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"/tmp", "/run/lock"} {
		err := unix.Mount("tmpfs", dir, "tmpfs", 0, "mode=1777")
		if errors.Is(err, unix.EPERM) {
			t.Skipf("tmpfs on %s: %v", dir, err)
		}
		if err != nil {
			t.Fatalf("tmpfs on %s: %v", dir, err)
		}
	}
	bin = writeBinary(t, program)
	// Root's, and only root's, as /etc is.
	private := "/tmp/root-only"
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(private, "victim")
	const precious = "precious data\n"
	if err := os.WriteFile(victim, []byte(precious), 0o600); err != nil {
		t.Fatal(err)
	}
	checkVictim := func() {
		t.Helper()
		fi, err := os.Stat(victim)
		data, _ := os.ReadFile(victim)
		if err != nil || string(data) != precious || fi.Mode() != 0o600 {
			t.Errorf("VICTIM CHANGED: %s holds %q, mode %v (was %q, -rw-------)", victim, data, fi.Mode(), precious)
		}
	}

	for _, round := range []string{"symlinks", "nobody's files"} {
		t.Run(round, func(t *testing.T) {
			var planted []plantedFile
			for i, path := range plantedPaths(t) {
				_ = os.Remove(path) // the last round's, or the last run's output
				p := plantedFile{path: path}
				switch {
				case round == "symlinks" && !dangles(path):
					p.target = victim
				case round == "symlinks":
					p.target = filepath.Join(private, fmt.Sprintf("created-%d", i))
					p.created = p.target
				default:
					// A hard link must stay on the path's file system.
					kept := filepath.Join(filepath.Dir(path), ".kept")
					if err := os.MkdirAll(kept, 0o700); err != nil {
						t.Fatal(err)
					}
					p.kept = filepath.Join(kept, strconv.Itoa(i))
				}
				plantAsNobody(t, &p)
				planted = append(planted, p)
			}

			claimEveryCPU(t)
			kernelTestsLockHeldElsewhere(t)
			if round == "symlinks" {
				refuseOutput(t, bin, plantedOutput)
			} else {
				measureInto(t, bin, plantedOutput)
			}
			refuseReport(t, bin, private)

			checkVictim()
			for _, p := range planted {
				checkPlanted(t, p)
			}
		})
	}
	if !t.Failed() {
		fmt.Println("planted: victims untouched")
	}
}

// writeBinary puts the xdpmicro binary in a root-only directory.
func writeBinary(t *testing.T, data []byte) string {
	t.Helper()
	dir := filepath.Join("/tmp", "bin")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "xdpmicro")
	if err := os.WriteFile(bin, data, 0o700); err != nil {
		t.Fatal(err)
	}
	return bin
}

// plantAsNobody plants p as user nobody (65534) would: a symlink to its
// target, or a file of nobody's, mode 0644, hard-linked to p.kept.
func plantAsNobody(t *testing.T, p *plantedFile) {
	t.Helper()
	if p.target != "" {
		if err := os.Symlink(p.target, p.path); err != nil {
			t.Fatal(err)
		}
	} else {
		if err := os.WriteFile(p.path, []byte("nobody's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(p.path, p.kept); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Lchown(p.path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p.path)
	if err != nil {
		t.Fatal(err)
	}
	p.ino = fi.Sys().(*syscall.Stat_t).Ino
}

// checkPlanted fails unless what was planted is as it was: the symlink
// the same one to the same target, nothing created at a dangling one's
// target, nobody's file unchanged, even where the output replaced it.
func checkPlanted(t *testing.T, p plantedFile) {
	t.Helper()
	if p.created != "" {
		if _, err := os.Lstat(p.created); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("CREATED through %s: %s (%v)", p.path, p.created, err)
		}
	}
	if p.kept != "" {
		fi, err := os.Stat(p.kept)
		data, _ := os.ReadFile(p.kept)
		if err != nil || string(data) != "nobody's\n" || fi.Mode() != 0o644 || fi.Sys().(*syscall.Stat_t).Uid != 65534 {
			t.Errorf("NOBODY'S FILE CHANGED at %s: %q, mode %v, %v", p.path, data, fi.Mode(), err)
		}
	}
	if p.path == plantedOutput && p.target == "" {
		return // nobody's file, replaced by the run's output, checked there
	}
	fi, err := os.Lstat(p.path)
	if err != nil || fi.Sys().(*syscall.Stat_t).Ino != p.ino {
		t.Errorf("%s is no longer what was planted: %v", p.path, err)
		return
	}
	if p.target != "" {
		if target, _ := os.Readlink(p.path); target != p.target {
			t.Errorf("%s now points to %q", p.path, target)
		}
	}
}

// claimEveryCPU takes and gives back each CPU's lock as a run would,
// chosen and requested.
func claimEveryCPU(t *testing.T) {
	t.Helper()
	cpus, err := host.AllowedCPUs(host.AnyCPU)
	if err != nil {
		t.Fatal(err)
	}
	for _, cpu := range append([]int{host.AnyCPU}, cpus...) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		claim, err := host.ChooseCPU(ctx, cpu, cpus, func(s string) { t.Log(s) })
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if claim.Note != "" || !strings.HasPrefix(claim.Lock.Path, "@xdpmicro-cpu") {
			t.Errorf("CPU %d: lock %+v, note %q", claim.CPU, claim.Lock, claim.Note)
		}
		claim.Release()
	}
}

// kernelTestsLockHeldElsewhere: the parent test process holds the kernel
// tests' lock, and this one, in another mount namespace, waits for it.
func kernelTestsLockHeldElsewhere(t *testing.T) {
	t.Helper()
	if pid := socklock.Holder("xdpmicro-kernel-tests"); pid != os.Getppid() {
		t.Errorf("the kernel tests' lock is held by pid %d, want the parent test, %d", pid, os.Getppid())
	}
	done := make(chan struct{})
	go func() {
		kerneltest.Exclusive(t) // waits until the parent exits: never here
		close(done)
	}()
	select {
	case <-done:
		t.Error("took the kernel tests' lock that the parent test holds")
	case <-time.After(200 * time.Millisecond):
	}
}

// measureInto runs a short real measurement with its report to output.
func measureInto(t *testing.T, bin, output string) {
	t.Helper()
	cpus, err := host.AllowedCPUs(host.AnyCPU)
	if err != nil {
		t.Fatal(err)
	}
	cpu := strconv.Itoa(cpus[len(cpus)-1])
	cmd := exec.Command(bin, "bench", "../../bpf/testdata/multi.o", "--program", "xdp_pass", "--cpu", cpu,
		"--samples", "10", "--repeat", "1000", "--warmup", "0", "--quiet", "--format", "json", "--output", output)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench: %v\n%s", err, stderr.Bytes())
	}
	fi, err := os.Lstat(output)
	if err != nil || !fi.Mode().IsRegular() || fi.Sys().(*syscall.Stat_t).Uid != 0 || fi.Mode()&0o022 != 0 {
		t.Fatalf("the output %s: %v %v: want a file of root's that only root may write", output, fi.Mode(), err)
	}
	var saved struct {
		Environment struct {
			CPULock struct{ Path string } `json:"cpu_lock"`
		} `json:"environment"`
	}
	f, err := os.Open(output)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	if err := json.Unmarshal(data, &saved); err != nil || saved.Environment.CPULock.Path != "@xdpmicro-cpu"+cpu {
		t.Errorf("the report's cpu_lock: %+v, %v", saved.Environment.CPULock, err)
	}
}

// refuseOutput asks for an --output where nobody planted a symlink in
// /tmp: one line, exit 2, before anything is measured; the symlink stays.
func refuseOutput(t *testing.T, bin, output string) {
	t.Helper()
	cmd := exec.Command(bin, "bench", "../../bpf/testdata/multi.o", "--program", "xdp_pass",
		"--samples", "10", "--quiet", "--format", "json", "--output", output)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	want := "xdpmicro: --output " + output + ": refused: " + output + " is a symlink: as root, xdpmicro writes no file through one"
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("--output at nobody's symlink: %v\n%s\nwant exit 2 and one line beginning %q", err, stderr.Bytes(), want)
	}
}

// refuseReport asks for a --report through a symlink nobody planted in
// /tmp: one line, exit 2, nothing written where it points.
func refuseReport(t *testing.T, bin, private string) {
	t.Helper()
	target := filepath.Join(private, "report")
	if err := os.Mkdir(target, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		t.Fatal(err)
	}
	link := "/tmp/xdpmicro-report"
	_ = os.Remove(link)
	p := plantedFile{path: link, target: target}
	plantAsNobody(t, &p)
	cmd := exec.Command(bin, "bench", "../../bpf/testdata/multi.o", "--program", "xdp_pass",
		"--samples", "10", "--quiet", "--report", link)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	want := "xdpmicro: --report " + link + ": refused: " + link + " is a symlink that uid 65534 owns, who could have planted it"
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("--report through nobody's symlink: %v\n%s\nwant exit 2 and one line beginning %q", err, stderr.Bytes(), want)
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Errorf("written through nobody's symlink: %v", entries)
	}
	checkPlanted(t, p)
}
