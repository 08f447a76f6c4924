package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
)

// kernelAddresses finds the numbers in s, decimal or hex, that look like
// kernel addresses.
func kernelAddresses(s string) []string {
	var found []string
	for _, n := range regexp.MustCompile(`0x[0-9a-fA-F]{16}|\b[0-9]{19,20}\b`).FindAllString(s, -1) {
		v, err := strconv.ParseUint(n, 0, 64)
		if err == nil && btfvalue.LooksLikeKernelAddress(v) {
			found = append(found, n)
		}
	}
	return found
}

// The install docs' setcap line on a binary anyone could run gave every
// user kernel addresses: a program that stores one in a map (leak.o: its
// map value's address, and the frame's) had them printed in the map
// effects (issue 46, item 2). Run by user nobody from a copy with the
// capabilities, packets and bench --format json show <kernel address>
// and no address; run by root, the address.
func TestKernelAddressesHiddenFromCapableUser(t *testing.T) {
	kerneltest.RequireBPF(t)
	if os.Geteuid() != 0 {
		t.Skip("giving a copy capabilities and running it as another user needs root (sudo go test ...)")
	}
	bin := buildBinary(t)
	setcap, err := exec.LookPath("setcap")
	if err != nil {
		t.Skipf("no setcap (Debian's libcap2-bin): %v", err)
	}
	dir, err := os.MkdirTemp("", "xdpmicro-kaddr-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ from, to string }{{bin, "xdpmicro"}, {"../../bpf/testdata/leak.o", "leak.o"}} {
		data, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.to), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	capBin, object := filepath.Join(dir, "xdpmicro"), filepath.Join(dir, "leak.o")
	if out, err := exec.Command(setcap, "cap_bpf,cap_net_admin,cap_perfmon+ep", capBin).CombinedOutput(); err != nil {
		t.Skipf("setcap on %s: %v: %s", dir, err, out)
	}
	run := func(asNobody bool, args ...string) string {
		t.Helper()
		cmd := exec.Command(capBin, args...)
		if asNobody {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v (nobody %v): %v: %s", args, asNobody, err, stderr.String())
		}
		return string(out)
	}
	packetsArgs := []string{"packets", object, "--class", "tcp-syn"}
	if out := run(false, packetsArgs...); len(kernelAddresses(out)) == 0 {
		t.Errorf("root: no kernel address in the map effects:\n%s", out)
	}
	out := run(true, packetsArgs...)
	if found := kernelAddresses(out); len(found) > 0 || !strings.Contains(out, "map slots: [0] set <kernel address>") {
		t.Errorf("nobody: kernel addresses %v; want each shown as <kernel address>:\n%s", found, out)
	}
	out = run(true, "bench", object, "--class", "tcp-syn", "--samples", "10", "--repeat", "1000", "--warmup", "0", "--quiet", "--format", "json")
	var saved results.Run
	if err := json.Unmarshal([]byte(out), &saved); err != nil {
		t.Fatalf("bench --format json: %v", err)
	}
	if found := kernelAddresses(out); len(found) > 0 || !strings.Contains(out, `\u003ckernel address\u003e`) {
		t.Errorf("nobody, saved JSON: kernel addresses %v; want each shown as <kernel address>", found)
	}
}
