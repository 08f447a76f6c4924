package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// bigMapInit is a map-init file that fills maps.o's hash with 4 M
// entries: some seconds a load here, and as long again for the
// instrumented copy's; the tool before issue 59 took 15 s to stop on a
// Ctrl-C 1 s into it.
func bigMapInit(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.yaml")
	const yaml = "max_entries:\n  lengths: 4000000\nmaps:\n  lengths:\n    - {keys: {from: 0, count: 4000000}, value: 1}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bigRun is a run of maps.o with bigMapInit: its command, its stderr, and
// its end.
type bigRun struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan error // Wait's error
}

// startBig starts a run of maps.o with bigMapInit, one load, on cpu, and
// waits until it holds the CPU's lock: prepared, and loading. A machine
// whose kernel memory budget (a quarter of its memory, at most 1 GiB)
// cannot hold the map and its copy, 616 MiB, skips.
func startBig(t *testing.T, bin string, cpu int) bigRun {
	t.Helper()
	cmd := exec.Command(bin, "bench", "../../bpf/testdata/maps.o", "--map-init", bigMapInit(t), "--class", "fizz",
		"--placements", "1", "--cpu", strconv.Itoa(cpu), "--time", "30s", "--history", "", "--quiet")
	r := bigRun{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- cmd.Wait() }()
	for deadline := time.Now().Add(20 * time.Second); host.CPULockHolder(cpu) != cmd.Process.Pid; time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-r.done:
			if strings.Contains(r.stderr.String(), "past the kernel memory budget") {
				t.Skipf("4 M entries do not fit this machine's kernel memory budget: %s", r.stderr)
			}
			t.Fatalf("the run ended before it held %s: %v: %s", host.CPULockName(cpu), err, r.stderr)
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-r.done // stderr is written until then
			t.Fatalf("the run never held %s: %s", host.CPULockName(cpu), r.stderr)
		}
	}
	return r
}

// stop sends sig and waits for the run's end, within stopBound; it
// returns Wait's error.
func (r bigRun) stop(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	sent := time.Now()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := <-r.done
	if took := time.Since(sent); took > stopBound {
		t.Errorf("%v: took %v to stop", sig, took)
	} else {
		t.Logf("%v: stopped in %v", sig, took)
	}
	return err
}

// stoppedBeforeMeasuring checks a run stopped by sig before it measured:
// its exit code, its one line, and nothing of its left in the kernel.
func stoppedBeforeMeasuring(t *testing.T, err error, stderr string, sig syscall.Signal, before []ebpf.ProgramID) {
	t.Helper()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
		t.Errorf("%v: %v, want exit %d; stderr:\n%s", sig, err, 128+int(sig), stderr)
	}
	if got := strings.TrimSpace(stderr); got != "xdpmicro: interrupted before measuring; nothing written" {
		t.Errorf("%v: stderr %q", sig, got)
	}
	if left := kerneltest.ProgramsLeft(t, "limit_length", before, 5*time.Second); len(left) > 0 {
		t.Errorf("%v: programs of the run still loaded after its exit: %v", sig, left)
	}
}

// A signal while map-init fills millions of entries, and while the
// instrumented copy's maps are filled for the checking runs, stops the
// run at once, nothing left loaded: every step looks at the run's
// context between batches.
func TestInterruptLoadingAndChecking(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	bin := buildBinary(t)
	cpu := lastAllowedCPU(t)

	before := kerneltest.Programs(t, "limit_length")
	r := startBig(t, bin, cpu)
	time.Sleep(500 * time.Millisecond) // into the fill of the first load
	err := r.stop(t, syscall.SIGINT)
	stoppedBeforeMeasuring(t, err, r.stderr.String(), syscall.SIGINT, before)

	// The instrumented copy is a second program of the name: the run is
	// counting instructions, filling the copy's maps.
	before = kerneltest.Programs(t, "limit_length")
	r = startBig(t, bin, cpu)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if len(kerneltest.ProgramsLeft(t, "limit_length", before, 0)) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			_ = r.cmd.Process.Kill()
			<-r.done
			t.Fatalf("the run never loaded its instrumented copy: %s", r.stderr)
		}
	}
	err = r.stop(t, syscall.SIGHUP)
	stoppedBeforeMeasuring(t, err, r.stderr.String(), syscall.SIGHUP, before)
}

const rcuKnob, rcuMarker = "/sys/kernel/rcu_expedited", "/run/xdpmicro/rcu_expedited"

// markerPid is the pid the RCU knob's marker names, 0 for none.
func markerPid() int {
	b, err := os.ReadFile(rcuMarker)
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimPrefix(first, "pid "))
	return pid
}

// startExpediting starts a run and waits until it has set the RCU knob
// (its marker names it): its anchors are entering the dispatcher.
func startExpediting(t *testing.T, bin string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, "bench", "../../bpf/testdata/multi.o", "--program", "xdp_pass", "--time", "60s", "--history", "", "--quiet")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); markerPid() != cmd.Process.Pid; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the run never set %s: %s", rcuKnob, stderr.String())
		}
	}
	return cmd, &stderr
}

// knobPutBack checks that the run of pid left the RCU knob as it found
// it: no marker of its, and the knob at 0 unless a live process's marker
// says it set it since.
func knobPutBack(t *testing.T, what string, pid int) {
	t.Helper()
	if got := markerPid(); got == pid {
		t.Errorf("%s: the marker still names the run, pid %d", what, pid)
	}
	value, err := os.ReadFile(rcuKnob)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(value)) != "0" && syscall.Kill(markerPid(), 0) != nil {
		t.Errorf("%s: %s reads %s, and no live run's marker says it set it", what, rcuKnob, bytes.TrimSpace(value))
	}
}

// The RCU knob, set while anchors enter the dispatcher, is put back
// whatever ends the run there: a first signal of each kind, a second
// Ctrl-C (which ends the process at once), and, for SIGKILL, the next
// run, at its start.
func TestSignalsPutRCUBack(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	if os.Geteuid() != 0 {
		t.Skip("the RCU knob is root's")
	}
	value, err := os.ReadFile(rcuKnob)
	if err != nil {
		t.Skipf("no RCU knob here: %v", err)
	}
	if strings.TrimSpace(string(value)) != "0" && markerPid() == 0 {
		t.Skipf("%s is set by someone else here: runs leave it alone", rcuKnob)
	}
	bin := buildBinary(t)
	for _, sigs := range [][]syscall.Signal{{syscall.SIGINT}, {syscall.SIGHUP}, {syscall.SIGQUIT}, {syscall.SIGINT, syscall.SIGINT}} {
		what := fmt.Sprint(sigs)
		cmd, stderr := startExpediting(t, bin)
		sent := time.Now()
		for i, sig := range sigs {
			if i > 0 {
				// Apart, or the kernel may merge the two into one.
				time.Sleep(2 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
		}
		err := cmd.Wait()
		took := time.Since(sent)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sigs[len(sigs)-1]) {
			t.Errorf("%s: %v, want exit %d; stderr:\n%s", what, err, 128+int(sigs[len(sigs)-1]), stderr)
		}
		if took > stopBound {
			t.Errorf("%s: took %v to stop", what, took)
		}
		t.Logf("%s: stopped in %v: %s", what, took, strings.ReplaceAll(strings.TrimSpace(stderr.String()), "\n", " | "))
		knobPutBack(t, what, cmd.Process.Pid)
	}

	// SIGKILL: nothing of the run's runs; the next one puts the knob back
	// at its start, whether or not it gets to its anchors, and says so.
	cmd, _ := startExpediting(t, bin)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if markerPid() != cmd.Process.Pid {
		t.Skip("the killed run's marker is gone already: another run put the knob back")
	}
	next := exec.Command(bin, "bench", "../../bpf/testdata/multi.o", "--program", "xdp_pass", "--time", "1s", "--anchor=false", "--history", "", "--quiet")
	out, err := next.CombinedOutput()
	if err != nil {
		t.Fatalf("the next run: %v\n%s", err, out)
	}
	want := fmt.Sprintf("xdpmicro: the run of pid %d ended without putting %s back; put it back to 0", cmd.Process.Pid, rcuKnob)
	if !slices.Contains(strings.Split(string(out), "\n"), want) {
		t.Errorf("the next run said:\n%s\nwant the line %q", out, want)
	}
	knobPutBack(t, "SIGKILL, then another run", cmd.Process.Pid)
}

// SIGQUIT while the command line's inputs are read (a map-init file of a
// million entries, a second or so), before the run takes the signals:
// exit 131 and one line, not Go's goroutine dump and exit 2.
func TestQuitBeforeTheRun(t *testing.T) {
	kerneltest.RequireBPF(t)
	bin := buildBinary(t)
	path := filepath.Join(t.TempDir(), "million.yaml")
	var b strings.Builder
	b.WriteString("max_entries:\n  lengths: 1000000\nmaps:\n  lengths:\n")
	for i := range 1000000 {
		fmt.Fprintf(&b, "    - {key: %d, value: 1}\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "bench", "../../bpf/testdata/maps.o", "--map-init", path, "--class", "fizz", "--time", "1s", "--history", "", "--quiet")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	err := signalAndWait(t, cmd, syscall.SIGQUIT)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 128+int(syscall.SIGQUIT) {
		t.Errorf("%v, want exit %d; stderr:\n%s", err, 128+int(syscall.SIGQUIT), stderr.String())
	}
	if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "xdpmicro: interrupted") {
		t.Errorf("stderr, want one line:\n%s", stderr.String())
	}
}

// A signal ignored when xdpmicro starts stays ignored, as nohup and a
// script's background jobs want: a run under nohup goes on through a
// SIGHUP, to its end.
func TestIgnoredSignalStaysIgnored(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	bin := buildBinary(t)
	cmd := exec.Command("sh", "-c", `trap "" HUP; exec "$0" "$@"`, bin, "bench", "../../bpf/testdata/multi.o", "--program", "xdp_pass",
		"--time", "2s", "--history", "", "--quiet", "--format", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil || strings.Contains(stdout.String(), `"partial"`) || strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("a run with SIGHUP ignored, sent one: %v\n%s", err, stderr.String())
	}
}
