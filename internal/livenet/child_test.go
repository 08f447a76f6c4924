package livenet

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/host"
)

// childEnv makes the test binary a child of these tests: "hold" opens a
// Pair and waits to be killed; "supported" reports what Supported says.
const childEnv = "LIVENET_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "hold":
		os.Exit(hold())
	case "supported":
		err := Supported()
		fmt.Printf("permission=%v unsupported=%v: %v\n", errors.Is(err, host.ErrPermission), errors.Is(err, ErrUnsupported), err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// hold opens a Pair, prints its programs' IDs and waits, without closing
// it, to be killed.
func hold() int {
	p, err := Open()
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	ids, err := programIDs(p)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("ready", ids[0], ids[1])
	time.Sleep(time.Minute) // the parent gave up
	return 1
}

// TestLeftovers kills a child holding a Pair, with SIGINT and with
// SIGKILL, neither of which lets it Close, and checks that the kernel
// took everything away: no links in the host's namespace, no programs.
func TestLeftovers(t *testing.T) {
	needRoot(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(unix.SignalName(sig), func(t *testing.T) {
			before := countingPrograms(t)
			cmd := child(t, "hold")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			ids := start(t, cmd)
			noLinks(t)
			loaded := countingPrograms(t)
			for _, id := range ids {
				if _, ok := loaded[id]; !ok {
					t.Fatalf("the child's program %d is not loaded: %v", id, loaded)
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !status.Signaled() || status.Signal() != sig {
				t.Fatalf("child: %v, want killed by %v; stderr: %s", err, sig, stderr.String())
			}
			waitGone(t, ids, before)
			noLinks(t)
		})
	}
}

func child(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	return cmd
}

// start starts a holding child and returns its programs' IDs.
func start(t *testing.T, cmd *exec.Cmd) []ebpf.ProgramID {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		s.Scan()
		line <- s.Text()
		io.Copy(io.Discard, out)
	}()
	var ids [2]ebpf.ProgramID
	select {
	case l := <-line:
		if _, err := fmt.Sscanf(l, "ready %d %d", &ids[0], &ids[1]); err != nil {
			t.Fatalf("child said %q", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("child not ready in 10s")
	}
	return ids[:]
}

// noLinks checks that the host's namespace, the test's, has no xm0 or xm1.
func noLinks(t *testing.T) {
	t.Helper()
	links, err := netlink.LinkList()
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range links {
		if name := link.Attrs().Name; name == IngressName || name == PeerName {
			t.Errorf("%s (ifindex %d) in the host's namespace", name, link.Attrs().Index)
		}
	}
}

// TestPermission runs Supported as nobody, from a copy of the test binary
// nobody may run, and checks that it says what is missing.
func TestPermission(t *testing.T) {
	needRoot(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "livenet")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "livenet.test")
	if err := os.WriteFile(copied, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copied)
	cmd.Env = []string{childEnv + "=supported"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("as nobody: %s", out)
	if !strings.HasPrefix(string(out), "permission=true unsupported=false") || !strings.Contains(string(out), "CAP_NET_ADMIN") {
		t.Errorf("as nobody, Supported said %q, want ErrPermission naming CAP_NET_ADMIN", out)
	}
}
