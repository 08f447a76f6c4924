package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/host"
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
	before := map[string][]ebpf.ProgramID{program: kerneltest.Programs(t, program)}
	for _, c := range counters {
		before[c] = kerneltest.Programs(t, c)
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
	for name, ids := range before {
		if left := kerneltest.ProgramsLeft(t, name, ids, 5*time.Second); len(left) > 0 {
			t.Errorf("programs named %s loaded by the run still there after its exit: %v", name, left)
		}
	}
	for ns := range netNamespaces(t) {
		if !spaces[ns] {
			t.Errorf("network namespace %s still held after the exit", ns)
		}
	}
}

const devmapObject = "../../bpf/testdata/devmap.o"

// watchedPair is a veth pair where live frames must not go. Each end runs
// an XDP program that passes what arrives, so that a frame sent out of
// either end is received, and counted, by the other; it has no address
// and IPv6 is off, so nothing else crosses it.
type watchedPair struct {
	nl    *netlink.Handle
	names [2]string
}

// makeWatchedPair makes the pair in the calling thread's network
// namespace, which nl must be bound to. The peer, names[1], is registered
// first and so takes the lower ifindex, as xm1 does in a run's namespace.
func makeWatchedPair(nl *netlink.Handle, names [2]string, pass *ebpf.Program) (*watchedPair, error) {
	attrs := netlink.NewLinkAttrs()
	attrs.Name = names[0]
	if err := nl.LinkAdd(&netlink.Veth{LinkAttrs: attrs, PeerName: names[1]}); err != nil {
		return nil, fmt.Errorf("creating %s: %w", names[0], err)
	}
	w := &watchedPair{nl: nl, names: names}
	for _, name := range names {
		// Before the link is up, so that it sends no router solicitation.
		err := os.WriteFile("/proc/sys/net/ipv6/conf/"+name+"/disable_ipv6", []byte("1\n"), 0)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return w, err
		}
		link, err := nl.LinkByName(name)
		if err != nil {
			return w, err
		}
		// The package's function, not the handle's: only it attaches XDP,
		// in the calling thread's namespace.
		if err := netlink.LinkSetXdpFdWithFlags(link, pass.FD(), unix.XDP_FLAGS_DRV_MODE); err != nil {
			return w, fmt.Errorf("XDP on %s: %w", name, err)
		}
		if err := nl.LinkSetUp(link); err != nil {
			return w, err
		}
	}
	return w, nil
}

// close deletes the pair: deleting one end deletes both.
func (w *watchedPair) close() error {
	link, err := w.nl.LinkByName(w.names[0])
	if err != nil {
		return err
	}
	return w.nl.LinkDel(link)
}

// index is the ifindex of end 0 or 1.
func (w *watchedPair) index(end int) (int, error) {
	link, err := w.nl.LinkByName(w.names[end])
	if err != nil {
		return 0, err
	}
	return link.Attrs().Index, nil
}

// packets says what each end received and sent, from the kernel's own
// statistics of the links.
func (w *watchedPair) packets() (string, error) {
	var s []string
	for _, name := range w.names {
		link, err := w.nl.LinkByName(name)
		if err != nil {
			return "", err
		}
		st := link.Attrs().Statistics
		if st == nil {
			return "", fmt.Errorf("%s: no statistics", name)
		}
		s = append(s, fmt.Sprintf("%s received %d, sent %d", name, st.RxPackets, st.TxPackets))
	}
	return strings.Join(s, "; "), nil
}

// passing is an XDP program that passes every frame.
func passing(t *testing.T) *ebpf.Program {
	t.Helper()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "xm_test_pass", Type: ebpf.XDP, License: "Dual BSD/GPL",
		Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 2 /* XDP_PASS */), asm.Return()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prog.Close() })
	return prog
}

// liveRun is a live run of one of devmap.o's programs that redirects to
// ifindex: through a devmap or a devmap_hash, which --map-init fills with
// one entry naming it, or straight (to_ifindex, --set target).
type liveRun struct {
	program, mapName string
	key, ifindex     int
	value            string // the entry's value as --map-init writes it
}

func devmapRun(program string, ifindex int) liveRun {
	switch program {
	case "to_hashed_port":
		return liveRun{program, "hashed_ports", 7, ifindex, strconv.Itoa(ifindex)}
	case "to_ifindex":
		return liveRun{program: program, ifindex: ifindex}
	}
	return liveRun{program, "ports", 0, ifindex, fmt.Sprintf("{ifindex: %d}", ifindex)}
}

// command is the run's command line, on CPU cpu.
func (r liveRun) command(t *testing.T, bin string, cpu int) *exec.Cmd {
	args := []string{"bench", devmapObject, "--program", r.program, "--live", "--class", "udp-dns",
		"--cpu", strconv.Itoa(cpu), "--placements", "2"}
	if r.mapName == "" {
		args = append(args, "--set", fmt.Sprintf("target=%d", r.ifindex))
	} else {
		init := writeFile(t, "init.yaml", fmt.Sprintf("maps:\n  %s:\n    - {key: %d, value: %s}\n", r.mapName, r.key, r.value))
		args = append(args, "--map-init", init)
	}
	return exec.Command(bin, append(args, quick...)...)
}

// outcome is how a run ended: its exit code and the last line it printed
// on stderr, its error if it failed. Notices may come before: waiting for
// a CPU that another run measures on, say.
func outcome(cmd *exec.Cmd) (int, string) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), last
	}
	if err != nil {
		return -1, err.Error()
	}
	return 0, last
}

// inNewNamespace runs f on a thread of its own in a new network namespace:
// a host of its own for the runs f starts, which inherit the thread's. The
// thread is never unlocked, so Go ends it, and the namespace with it,
// when f returns.
func inNewNamespace(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		ns, err := netns.New()
		if err != nil {
			done <- fmt.Errorf("a network namespace: %w", err)
			return
		}
		defer ns.Close()
		done <- f()
	}()
	return <-done
}

// No frame of --live leaves the run's own network namespace, whatever
// --map-init says (issue 46): a devmap entry's ifindex is that
// namespace's. One naming a host interface, which the namespace lacks, is
// refused in one line (exit 2) before anything is sent; one naming xm0's
// ifindex sends out of xm0, even where the host has an interface of that
// ifindex. A veth pair on the host side, each end passing what arrives,
// counts no frame. Before, the entries were written from the host's
// namespace, and a run sent a batch out of the host's interface before
// it failed.
func TestLiveFramesStayInTheirNamespace(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	if err := livenet.Supported(); err != nil {
		t.Skipf("no live frames here: %v", err)
	}
	bin, pass := buildBinary(t), passing(t)
	// Every run's namespace is made alike: its ifindexes are these.
	pair, err := livenet.Open()
	if err != nil {
		t.Fatal(err)
	}
	ingress, peer := pair.Ingress(), pair.Peer()
	if err := pair.Close(); err != nil {
		t.Fatal(err)
	}
	allowed, err := host.AllowedCPUs(host.AnyCPU)
	if err != nil {
		t.Fatal(err)
	}
	cpu := allowed[len(allowed)-1]
	names := func(tag string) [2]string {
		base := fmt.Sprintf("xm%s%d", tag, os.Getpid()%10000000)
		return [2]string{base + "a", base + "b"}
	}

	t.Run("host interface", func(t *testing.T) {
		nl, err := netlink.NewHandle()
		if err != nil {
			t.Fatal(err)
		}
		defer nl.Close()
		w, err := makeWatchedPair(nl, names("h"), pass)
		if w != nil {
			t.Cleanup(func() {
				if err := w.close(); err != nil {
					t.Errorf("deleting the host's pair: %v", err)
				}
			})
		}
		if err != nil {
			t.Fatal(err)
		}
		target, err := w.index(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, program := range []string{"to_port", "to_hashed_port", "to_ifindex"} {
			r := devmapRun(program, target)
			before, err := w.packets()
			if err != nil {
				t.Fatal(err)
			}
			code, last := outcome(r.command(t, bin, cpu))
			after, err := w.packets()
			if err != nil {
				t.Fatal(err)
			}
			wantCode, want := exitUsage, fmt.Sprintf("map %s, key %d: ifindex %d is no interface in the network namespace live frames run in", r.mapName, r.key, target)
			if r.mapName == "" {
				// bpf_redirect's ifindex is looked up in the namespace of
				// the interface the frame arrived on: none there, so the
				// kernel drops the frames, and the check fails the run.
				wantCode, want = exitFailed, "live frames went elsewhere"
			}
			if code != wantCode || !strings.HasPrefix(last, "xdpmicro: ") || !strings.Contains(last, want) {
				t.Errorf("%s, redirecting to the host's %s (%d): exit %d, last line %q; want exit %d and a line with %q",
					program, w.names[0], target, code, last, wantCode, want)
			}
			if after != before {
				t.Errorf("%s, redirecting to the host's %s (%d): frames left the run's namespace: before %s; after %s",
					program, w.names[0], target, before, after)
			}
		}
	})

	// A host whose interfaces have the ifindexes of xm0 and xm1: a network
	// namespace of the test's own, which the runs start in.
	t.Run("same ifindex on the host", func(t *testing.T) {
		claim, err := host.ChooseCPU(context.Background(), cpu, allowed, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The runs' own lock is their host namespace's: this one keeps the
		// machine's other runs off their CPU.
		defer claim.Release()
		runs := []struct {
			r    liveRun
			cmd  *exec.Cmd
			code int
			want string
		}{
			{r: devmapRun("to_port", ingress), code: exitOK},
			{r: devmapRun("to_hashed_port", ingress), code: exitOK},
			{r: devmapRun("to_ifindex", ingress), code: exitOK},
			{r: devmapRun("to_port", peer), code: exitUsage,
				want: fmt.Sprintf("ifindex %d is %s in the network namespace live frames run in", peer, livenet.PeerName)},
		}
		for i := range runs {
			runs[i].cmd = runs[i].r.command(t, bin, cpu)
		}
		var failures []string
		err = inNewNamespace(func() error {
			nl, err := netlink.NewHandle()
			if err != nil {
				return err
			}
			defer nl.Close()
			w, err := makeWatchedPair(nl, names("c"), pass)
			if err != nil {
				return err
			}
			indexes := [2]int{}
			for end := range indexes {
				if indexes[end], err = w.index(end); err != nil {
					return err
				}
			}
			if indexes != [2]int{ingress, peer} {
				return fmt.Errorf("the test's host pair has ifindexes %v, not xm0's and xm1's %v", indexes, [2]int{ingress, peer})
			}
			for _, tc := range runs {
				before, err := w.packets()
				if err != nil {
					return err
				}
				code, last := outcome(tc.cmd)
				after, err := w.packets()
				if err != nil {
					return err
				}
				if code != tc.code || tc.want != "" && (!strings.HasPrefix(last, "xdpmicro: ") || !strings.Contains(last, tc.want)) {
					failures = append(failures, fmt.Sprintf("%s, redirecting to %d: exit %d, last line %q; want exit %d and %q",
						tc.r.program, tc.r.ifindex, code, last, tc.code, tc.want))
				}
				if after != before {
					failures = append(failures, fmt.Sprintf("%s, redirecting to %d: frames left the run's namespace for the host's interface of that ifindex: before %s; after %s",
						tc.r.program, tc.r.ifindex, before, after))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range failures {
			t.Error(f)
		}
	})
}
