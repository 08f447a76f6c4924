package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/livenet"
)

// netNamespaces is the set of network namespaces some process is in.
func netNamespaces(t *testing.T) map[string]bool {
	t.Helper()
	links, err := filepath.Glob("/proc/[0-9]*/task/[0-9]*/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, l := range links {
		if target, err := os.Readlink(l); err == nil {
			set[target] = true
		}
	}
	return set
}

// Ctrl-C in the middle of a live run leaves nothing: not the program, not
// the counters on the veth pair, not the pair's network namespace.
func TestInterruptLive(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	if err := livenet.Supported(); err != nil {
		t.Skipf("no live frames here: %v", err)
	}
	bin := buildBinary(t)
	const program = "transmit" // no other test of this package measures it
	counters := []string{"xm_peer_count", "xm_stack_count"}
	before := map[string]int{program: len(kerneltest.Programs(t, program))}
	for _, c := range counters {
		before[c] = len(kerneltest.Programs(t, c))
	}
	spaces := netNamespaces(t)
	cmd := exec.Command(bin, "bench", "../../bpf/testdata/tailcall.o", "--program", program, "--live",
		"--samples", "100000", "--repeat", "100000", "--warmup", "0")
	term := startOnTerminal(t, cmd)
	term.waitFor(t, sampling, time.Minute)
	if during := netNamespaces(t); len(during) <= len(spaces) {
		t.Errorf("no network namespace of the run's own while it ran (%d before, %d during)", len(spaces), len(during))
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for name, n := range before {
		for len(kerneltest.Programs(t, name)) != n && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if after := len(kerneltest.Programs(t, name)); after != n {
			t.Errorf("%d programs named %s loaded after the exit, %d before", after, name, n)
		}
	}
	for ns := range netNamespaces(t) {
		if !spaces[ns] {
			t.Errorf("network namespace %s still held after the exit", ns)
		}
	}
}
