package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// capableCopy puts the binary and multi.o where user nobody can reach
// them, the binary given CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON as
// usage.md's setcap line gives them; it skips where that cannot be done.
func capableCopy(t *testing.T, bin string) (capBin, object string) {
	t.Helper()
	setcap, err := exec.LookPath("setcap")
	if err != nil {
		t.Skipf("no setcap (Debian's libcap2-bin): %v", err)
	}
	dir, err := os.MkdirTemp("", "xdpmicro-setcap-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ from, to string }{{bin, "xdpmicro"}, {"../../bpf/testdata/multi.o", "multi.o"}} {
		data, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.to), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	capBin = filepath.Join(dir, "xdpmicro")
	if out, err := exec.Command(setcap, "cap_bpf,cap_net_admin,cap_perfmon+ep", capBin).CombinedOutput(); err != nil {
		t.Skipf("setcap on %s: %v: %s", dir, err, out)
	}
	return capBin, filepath.Join(dir, "multi.o")
}

// Runs by root and by a user given the capabilities keep each other off
// a CPU: user nobody's run waits for root's, naming root's pid, and
// root's claim waits for nobody's, naming its pid.
func TestCPULockCapableUser(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	if os.Geteuid() != 0 {
		t.Skip("running xdpmicro as another user needs root (sudo go test ...)")
	}
	capBin, object := capableCopy(t, buildBinary(t))
	allowed, err := host.AllowedCPUs(host.AnyCPU)
	if err != nil {
		t.Fatal(err)
	}
	cpu := allowed[len(allowed)-1]
	nobody := func(samples string) (*exec.Cmd, *bufio.Scanner) {
		cmd := exec.Command(capBin, "bench", object, "--program", "xdp_pass", "--cpu", strconv.Itoa(cpu),
			"--samples", samples, "--repeat", "1000", "--warmup", "0", "--quiet")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGINT)
			_ = cmd.Wait()
		})
		return cmd, bufio.NewScanner(stderr)
	}

	t.Run("root holds", func(t *testing.T) {
		claim, err := host.ChooseCPU(context.Background(), cpu, allowed, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer claim.Release()
		cmd, stderr := nobody("10")
		line := make(chan string, 1)
		go func() {
			stderr.Scan()
			line <- stderr.Text()
		}()
		want := fmt.Sprintf("xdpmicro: CPU %d is measuring another xdpmicro run (pid %d); waiting for it", cpu, os.Getpid())
		select {
		case got := <-line:
			if got != want {
				t.Fatalf("nobody's run said %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("nobody's run did not say that it waits")
		}
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		var exit *exec.ExitError
		if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 128+int(syscall.SIGINT) {
			t.Errorf("nobody's run, interrupted while waiting: %v", err)
		}
	})

	t.Run("nobody holds", func(t *testing.T) {
		cmd, stderr := nobody("100000")
		for deadline := time.Now().Add(10 * time.Second); host.CPULockHolder(cpu) != cmd.Process.Pid; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				var lines []string
				for stderr.Scan() {
					lines = append(lines, stderr.Text())
				}
				t.Fatalf("nobody's run never held CPU %d: %s", cpu, strings.Join(lines, "\n"))
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		var notices []string
		claim, err := host.ChooseCPU(ctx, cpu, allowed, func(s string) { notices = append(notices, s) })
		if !errors.Is(err, context.DeadlineExceeded) {
			claim.Release()
			t.Fatalf("root took CPU %d from nobody's run: %v", cpu, err)
		}
		// Another user's process, of another executable than the test's:
		// maybe no run at all (issue 59), waited for at most 10 s.
		want := fmt.Sprintf("CPU %d's lock @xdpmicro-cpu%d is held by pid %d (xdpmicro) of user nobody (uid 65534), neither root nor you: waiting at most 10s for it",
			cpu, cpu, cmd.Process.Pid)
		if len(notices) != 1 || notices[0] != want {
			t.Errorf("root's notices %q, want %q", notices, want)
		}

		// Root running the same executable as nobody's run: a capable
		// user's run of the copy root runs too, waited for as any run.
		root := exec.Command(capBin, "bench", object, "--program", "xdp_pass", "--cpu", strconv.Itoa(cpu),
			"--samples", "10", "--repeat", "1000", "--warmup", "0", "--quiet")
		rootErr, err := root.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := root.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = root.Process.Kill()
			_ = root.Wait()
		}()
		lines := bufio.NewScanner(rootErr)
		line := make(chan string, 1)
		go func() {
			lines.Scan()
			line <- lines.Text()
		}()
		want = fmt.Sprintf("xdpmicro: CPU %d is measuring another xdpmicro run (pid %d); waiting for it", cpu, cmd.Process.Pid)
		select {
		case got := <-line:
			if got != want {
				t.Errorf("root's run of the same executable said %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Error("root's run of the same executable did not say that it waits")
		}
	})
}
