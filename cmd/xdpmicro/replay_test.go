package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
)

// writeFlows writes a pcap of flows UDP flows, each of perFlow packets,
// round robin: every flow's first packet comes before any second one.
func writeFlows(t *testing.T, flows, perFlow int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "flows.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	w := pcapgo.NewWriter(bw)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	frames := make([][]byte, flows)
	for i := range flows {
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: net.IPv4(10, 9, byte(i>>8), byte(i)), DstIP: net.IPv4(198, 51, 100, 1)}
		udp := &layers.UDP{SrcPort: 40000, DstPort: 53}
		_ = udp.SetNetworkLayerForChecksum(ip)
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, udp, gopacket.Payload(make([]byte, 18))); err != nil {
			t.Fatal(err)
		}
		frames[i] = buf.Bytes()
	}
	at := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	for range perFlow {
		for _, frame := range frames {
			at = at.Add(time.Microsecond)
			if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(frame), Length: len(frame)}, frame); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Bad flags and bad captures: exit 2 and one line, nothing loaded.
func TestReplayBadInput(t *testing.T) {
	notPcap := writeFile(t, "not.pcap", "hello, this is not a capture")
	empty := writeFile(t, "empty.pcap", "")
	for _, args := range [][]string{
		{"replay"},
		{"replay", notPcap},
		{"replay", empty},
		{"replay", "no/such/capture.pcap"},
		{"replay", notPcap, "v9"},
		{"replay", notPcap, "v4", "v3"},
		{"replay", notPcap, "--replays", "1"},
		{"replay", notPcap, "--limit", "-1"},
		{"replay", notPcap, "--keep", "-1"},
		{"replay", notPcap, "--format", "gobench"},
		{"replay", notPcap, "--after", "v4"},
		{"replay", notPcap, "--rate", "10Mbps"},
		{"replay", notPcap, "--before", "v3", "--after", "v4", "--rate", "fast"},
		{"replay", notPcap, "--before", "v3", "--after", "v4", "--rate", "-3M"},
		{"replay", notPcap, "--cpu", "-2"},
		{"replay", notPcap, "--output", "/nonexistent/dir/r.json"},
		{"replay", notPcap, "--map-init", "no/such/maps.yaml"},
		{"replay", notPcap, "--flows", "100"},
		{"replay", notPcap, "--seed", "3"},
		{"replay", "--synthetic", "no-such-class"},
		{"replay", "--synthetic", "icmp-echo"},
		{"replay", "--synthetic", notPcap},
		{"replay", "--synthetic", "tcp-syn", notPcap, "v4"},
		{"replay", "--synthetic", "tcp-syn", "--flows", "0"},
		{"replay", "--synthetic", "tcp-syn", "--flows", "16777217"},
		{"replay", "--synthetic", "tcp-syn", "--zipf", "-1"},
		{"replay", "--synthetic", "tcp-syn", "--new-flows", "150%"},
		{"replay", "--synthetic", "tcp-syn", "--new-flows", "some"},
		{"replay", "--synthetic", "tcp-syn", "--packets", "0"},
		{"replay", "--synthetic", "tcp-syn", "--baseline", "never-saved", "--baseline-dir", t.TempDir()},
		{"replay", "--synthetic", "tcp-syn", "--baseline", "../bad"},
		{"replay", "--synthetic", "tcp-syn", "--save-baseline", "a", "--before", "v3", "--after", "v4"},
		{"replay", "--synthetic", "tcp-syn", "--baseline", "a", "--before", "v3", "--after", "v4"},
		{"replay", "--synthetic", "tcp-syn", "--report", notPcap + "/page"},
		{"replay", "--synthetic", "tcp-syn", "--baseline", "bench", "--baseline-dir", benchBaselineDir(t)},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
			if lines := strings.Count(stderr, "\n"); lines != 1 || !strings.HasPrefix(stderr, "xdpmicro: ") {
				t.Errorf("want one line on stderr, got %q", stderr)
			}
		})
	}
}

// The connection tracker on 200 flows of 4 packets, as a user types it:
// the JSON holds the kinds the capture implies and every packet, BMF a
// /mean benchmark with its interval, and nothing stays loaded.
func TestReplayFlowtable(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	const flows, perFlow = 200, 4
	capture := writeFlows(t, flows, perFlow)
	before := kerneltest.Programs(t, "flowtable")
	out := filepath.Join(t.TempDir(), "replay.json")
	args := []string{"replay", capture, "../../bpf/testdata/flowtable.o", "--program", "flowtable", "--replays", "2"}
	if code, _, stderr := runCLI(append(args, "--format", "json", "-o", out)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep results.Replay
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, k := range rep.Kinds {
		kinds[k.Name] = k.Packets
	}
	if kinds["XDP_TX: .bss: updated; flows: miss + insert"] != flows || kinds["XDP_TX: .bss: updated; flows: hit, updated"] != flows*(perFlow-1) || len(kinds) != 2 {
		t.Errorf("kinds %v: want %d new flows and %d hits", kinds, flows, flows*(perFlow-1))
	}
	if len(rep.PacketList) != flows*perFlow {
		t.Errorf("%d packets listed, want %d", len(rep.PacketList), flows*perFlow)
	}
	for i, p := range rep.PacketList[:flows] {
		if !strings.Contains(rep.Paths[pathIndex(rep.Paths, p.Path)].Name, "miss + insert") {
			t.Errorf("packet %d, its flow's first, took path %d, not a miss", i, p.Path)
		}
	}
	code, stdout, stderr := runCLI(append(args, "--format", "bmf")...)
	if code != 0 {
		t.Fatalf("bmf: exit %d: %s", code, stderr)
	}
	checkReplayBMF(t, stdout)
	if left := kerneltest.ProgramsLeft(t, "flowtable", before, 5*time.Second); len(left) > 0 {
		t.Errorf("programs named flowtable still loaded after the replays: %v", left)
	}
}

// pathIndex is the place of path id in paths.
func pathIndex(paths []results.ReplayPath, id int) int {
	for i, p := range paths {
		if p.ID == id {
			return i
		}
	}
	return 0
}

// checkReplayBMF holds BMF to a flowtable/mean benchmark whose latency
// lies within its bounds.
func checkReplayBMF(t *testing.T, out string) {
	t.Helper()
	var bmf map[string]map[string]struct {
		Value float64  `json:"value"`
		Lower *float64 `json:"lower_value"`
		Upper *float64 `json:"upper_value"`
	}
	if err := json.Unmarshal([]byte(out), &bmf); err != nil {
		t.Fatalf("bmf: %v\n%s", err, out)
	}
	mean, ok := bmf["flowtable/mean"]["latency"]
	if !ok || mean.Lower == nil || mean.Upper == nil || *mean.Lower > mean.Value || *mean.Upper < mean.Value {
		t.Errorf("flowtable/mean's latency %+v: want a value within its bounds", mean)
	}
	// latency is in bench's terms: net-latency plus the floor's cost a
	// run in a warm loop, a positive few ns.
	net, ok := bmf["flowtable/mean"]["net-latency"]
	if !ok || !(mean.Value > net.Value) || *mean.Lower-*net.Lower != mean.Value-net.Value {
		t.Errorf("flowtable/mean: latency %+v, net-latency %+v: want latency the net shifted up by the warm floor", mean, net)
	}
}

// A signal mid-replay: exit 128 + signal, nothing written, nothing left
// in the kernel.
func TestReplayInterrupt(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	bin := buildBinary(t)
	capture := writeFlows(t, 1000, 200)
	out := filepath.Join(t.TempDir(), "replay.json")
	before := kerneltest.Programs(t, "flowtable")
	cmd := exec.Command(bin, "replay", capture, "../../bpf/testdata/flowtable.o", "--program", "flowtable", "--replays", "100", "-o", out, "--format", "json")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // past loading, into the replays
	err := signalAndWait(t, cmd, syscall.SIGINT)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 128+int(syscall.SIGINT) {
		t.Errorf("%v, want exit %d", err, 128+int(syscall.SIGINT))
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s written by an interrupted replay: %v", out, err)
	}
	if left := kerneltest.ProgramsLeft(t, "flowtable", before, 5*time.Second); len(left) > 0 {
		t.Errorf("programs named flowtable still loaded after the signal: %v", left)
	}
}

// benchBaselineDir holds a bench baseline named "bench" and nothing a
// replay reads: a replay's baseline of that name is missing.
func benchBaselineDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bench.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Synthetic traffic through the connection tracker, as a user types it:
// every packet a new flow over more flows than the LRU holds, then 500
// packets over 50 flows whose kinds are exact (50 first packets miss,
// the rest hit); a baseline saved and a later replay of the same traffic
// compared with it, on the HTML page too; another seed is other traffic,
// refused; nothing stays loaded.
func TestReplaySynthetic(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	before := kerneltest.Programs(t, "flowtable")
	dir, page := t.TempDir(), filepath.Join(t.TempDir(), "page")
	base := []string{"replay", "--synthetic", "udp-dns", "../../bpf/testdata/flowtable.o", "--program", "flowtable", "--replays", "2", "--baseline-dir", dir}
	rep := replayJSON(t, append(base, "--flows", "5000", "--new-flows", "100%", "--packets", "6000")...)
	if k := rep.Kinds; len(k) != 1 || !strings.Contains(k[0].Name, "miss + insert") || k[0].Packets != 6000 {
		t.Errorf("every packet a new flow: kinds %+v", k)
	}
	small := append(base, "--flows", "50", "--zipf", "1.1", "--packets", "500", "--seed", "9")
	rep = replayJSON(t, append(small, "--save-baseline", "small")...)
	kinds := map[string]int{}
	for _, k := range rep.Kinds {
		kinds[k.Name] = k.Packets
	}
	firsts := 0
	for _, p := range rep.Paths {
		if strings.Contains(p.Name, "miss + insert") {
			firsts += p.Packets
		}
	}
	if firsts != kinds["XDP_TX: .bss: updated; flows: miss + insert"] || firsts > 50 || kinds["XDP_TX: .bss: updated; flows: hit, updated"] != 500-firsts {
		t.Errorf("kinds %v: want each flow's first packet a miss, the rest hits", kinds)
	}
	cmp := replayJSON(t, append(small, "--baseline", "small", "--report", page)...)
	if cmp.Change == nil || cmp.Before == nil || cmp.Change.Against != "baseline small" || len(cmp.Change.Kinds) != len(rep.Kinds) {
		t.Fatalf("no comparison with the baseline: %+v", cmp.Change)
	}
	for _, f := range []string{"index.html", "sequence.svg", "groups.svg"} {
		if _, err := os.Stat(filepath.Join(page, f)); err != nil {
			t.Errorf("the page's %s: %v", f, err)
		}
	}
	code, _, stderr := runCLI(append(base, "--flows", "50", "--zipf", "1.1", "--packets", "500", "--seed", "10", "--baseline", "small")...)
	if code != exitUsage || !strings.Contains(stderr, "other traffic") {
		t.Errorf("another seed against the baseline: exit %d, %q; want %d and other traffic", code, stderr, exitUsage)
	}
	if left := kerneltest.ProgramsLeft(t, "flowtable", before, 5*time.Second); len(left) > 0 {
		t.Errorf("programs named flowtable still loaded after the replays: %v", left)
	}
}

// replayJSON runs a replay to its JSON.
func replayJSON(t *testing.T, args ...string) *results.Replay {
	t.Helper()
	out := filepath.Join(t.TempDir(), "replay.json")
	if code, _, stderr := runCLI(append(args, "--format", "json", "-o", out, "-q")...); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep results.Replay
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}
