package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const casesYAML = `cases:
  - name: dns
    expect: XDP_PASS
    ipv4: {src: 192.0.2.3, dst: 198.51.100.1}
    udp: {src: 40000, dst: 53}
    payload: {size: 30}
  - name: syn
    ipv6: {src: "2001:db8::1", dst: "2001:db8::2"}
    tcp: {src: 40000, dst: 80, flags: [syn]}
`

// The packets command shows what bench would use, and writes it as a
// capture that reads back to the same frames.
func TestPacketsCommand(t *testing.T) {
	file := writeFile(t, "cases.yaml", casesYAML)
	code, stdout, stderr := runCLI("packets", "--packets", file, "--class", "fizz", "--size", "128,256")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"fizz@128", "fizz@256", "dns@128", "syn@256", "192.0.2.3", "2001:db8::1", "XDP_PASS", "00000000  02 00 00 00 00 02"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	out := filepath.Join(t.TempDir(), "cases.pcap")
	if code, _, stderr := runCLI("packets", "--class", "fizz,short,non-ipv4", "--pcap", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	back, err := packets.ReadPcap(out, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := packets.Select([]string{"fizz", "short", "non-ipv4"})
	if len(back) != len(want) {
		t.Fatalf("%d cases read back, want %d", len(back), len(want))
	}
	for i := range want {
		if string(back[i].Frame) != string(want[i].Frame) {
			t.Errorf("case %d: frame differs after the round trip", i)
		}
	}
}

func TestCaseSelectionBadInput(t *testing.T) {
	dup := writeFile(t, "dup.yaml", "cases:\n  - name: fizz\n    ipv4: {src: 192.0.2.3, dst: 198.51.100.1}\n")
	bad := writeFile(t, "bad.yaml", "cases:\n  - name: x\n    ipv4: {src: 192.0.2.300, dst: 198.51.100.1}\n")
	notPcap := writeFile(t, "not.pcap", "hello, this is not a capture")
	empty := writeFile(t, "empty.bin", "")
	fizz, _ := packets.Select([]string{"fizz"})
	frame := writeFile(t, "fizz.bin", string(fizz[0].Frame))
	sameName := writeFile(t, "fizz.raw", string(fizz[0].Frame))
	for _, args := range [][]string{
		{"bench", "--packets", bad},
		{"bench", "--packets", "no/such.yaml"},
		{"bench", "--packets", dup, "--class", "fizz"},
		{"bench", "--pcap", notPcap},
		{"bench", "--packets", empty},
		{"bench", "--packets", frame + "," + sameName},
		{"bench", "--packets", frame, "--packets", sameName},
		{"bench", "--packets", frame, "--class", "fizz"},
		{"bench", "--packets", filepath.Join(t.TempDir(), "*.bin")},
		{"packets", "--packets", frame + "," + sameName},
		{"bench", "--size", "10"},
		{"bench", "--expect", "XDP_MAYBE"},
		{"bench", "--map-init", "no/such.yaml"},
		{"packets", "--from-pcap", notPcap},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, code, stdout, stderr)
		}
	}
	// The file's line and field are named.
	if _, _, stderr := runCLI("bench", "--packets", bad); !strings.Contains(stderr, "bad.yaml:3") {
		t.Errorf("error does not name the file and line: %q", stderr)
	}
}

// A case whose return differs from --expect fails the run before timing.
func TestExpectFailsTheRun(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, stdout, stderr := runCLI(append([]string{"bench", "--class", "fizz", "--expect", "XDP_DROP"}, quick...)...)
	if code != exitFailed || stdout != "" || !strings.Contains(stderr, "case fizz: returned XDP_PASS, expected XDP_DROP") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// Own packets, sizes and map effects end to end, on a tc program.
func TestBenchOwnPackets(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	file := writeFile(t, "cases.yaml", casesYAML)
	args := append([]string{"bench", "../../bpf/testdata/multi.o", "--program", "tc_shot", "--packets", file,
		"--expect", "TC_ACT_SHOT", "--size", "128,1500", "--format", "json"}, quick...)
	code, stdout, stderr := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep results.Run
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Programs[0]
	if len(p.Results) != 4 || p.Results[0].Name != "dns@128" || p.Results[1].Length != 1500 || p.Results[0].Action != "TC_ACT_SHOT" {
		t.Fatalf("cases: %+v", p.Results)
	}
	if len(p.Series) != 2 || p.Series[0].Case != "dns" || len(p.Series[0].Points) != 2 || p.Series[0].Points[1].Size != 1500 {
		t.Errorf("series: %+v", p.Series)
	}
}

// Raw frame files, as bpftool's data_in takes them, by a glob: a case
// each, named after its file, expecting nothing.
func TestBenchRawFrames(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	dir := t.TempDir()
	builtin, err := packets.Select([]string{"short", "fizz"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range builtin {
		if err := os.WriteFile(filepath.Join(dir, c.Name+".bin"), c.Frame, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(append([]string{"bench", "v4", "--packets", filepath.Join(dir, "*.bin"), "--format", "json"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep results.Run
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rep.Programs[0].Results {
		got = append(got, c.Name+":"+c.Action)
	}
	if want := []string{"fizz:XDP_PASS", "short:XDP_ABORTED"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("cases %v, want %v", got, want)
	}
	if res := rep.Programs[0].Results[0]; len(res.Effects) != 1 || res.Effects[0].Value != "FIZZ" {
		t.Errorf("the fizz frame's effect: %+v", res.Effects)
	}
}

func TestBenchPcap(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	capture := filepath.Join(t.TempDir(), "in.pcap")
	if code, _, stderr := runCLI("packets", "--class", "fizz,buzz,none", "--pcap", capture); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := runCLI(append([]string{"bench", "v4", "--pcap", capture, "--pcap-limit", "2", "--format", "json"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep results.Run
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	res := rep.Programs[0].Results
	if len(res) != 2 || !strings.HasPrefix(res[0].Name, "1:udp 192.0.2.4") {
		t.Fatalf("cases from the capture: %d, first %q", len(res), res[0].Name)
	}
	if len(res[0].Effects) != 1 || res[0].Effects[0].Value != "FIZZ" {
		t.Errorf("the fizz packet's effect: %+v", res[0].Effects)
	}
}

func TestBenchFloor(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, stdout, stderr := runCLI(append([]string{"bench", "--floor", "--class", "fizz,none", "--format", "json"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep results.Run
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Floor == nil || rep.Floor.Info.Name != "empty_xdp" {
		t.Fatalf("no floor in the report: %+v", rep.Floor)
	}
	for _, c := range rep.Programs[0].Results {
		if c.Net == nil || c.Net.Lower > c.Net.Point || c.Net.Point > c.Net.Upper {
			t.Errorf("%s: net %+v", c.Name, c.Net)
		}
	}
}

// An object other than the bundled ones gets the protocol mix by default,
// and the mix is in the packets command.
func TestDefaultProtocolMix(t *testing.T) {
	code, stdout, stderr := runCLI("packets", "--class", "mix")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"tcp-syn", "tcp 192.0.2.10:40000 > 198.51.100.1:80 SYN", "udp-dns", "icmp-echo", "ipv6-tcp-syn", "vlan-udp", "vlan 100 udp", "arp request 192.0.2.10 > 192.0.2.1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("packets --class mix lacks %q", want)
		}
	}
	kerneltest.RequireBPFAlone(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"../../bpf/testdata/proto.o"}, packets.Mix()},
		{[]string{"v4"}, packets.Classes()},
		{[]string{"../../bpf/testdata/proto.o", "--class", "classes,arp"}, append(packets.Classes(), packets.ARP)},
	} {
		code, stdout, stderr := runCLI(append(append([]string{"bench", "--format", "json"}, tc.args...), quick...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		var rep results.Run
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range rep.Programs[0].Results {
			got = append(got, c.Name)
			if tc.args[0] == "v4" && c.Action != "XDP_PASS" {
				t.Errorf("%v: %s returned %s", tc.args, c.Name, c.Action)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%v: cases %v, want %v", tc.args, got, tc.want)
		}
	}
}

// --ctx reaches the program in the checking run and in every sample, and
// a packet file's ctx overrides it field by field.
func TestBenchContext(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	file := writeFile(t, "ctx.yaml", `cases:
  - name: unmarked
    ctx: {mark: 0}
    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}
    udp: {src: 1, dst: 2}
  - name: marked
    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}
    udp: {src: 1, dst: 2}
`)
	code, stdout, stderr := runCLI(append([]string{"bench", "../../bpf/testdata/ctx.o", "--program", "tc_mark", "--packets", file,
		"--ctx", "mark=0x2a,priority=3", "--format", "json"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep results.Run
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ action, context string }{
		"unmarked": {"TC_ACT_OK", "mark=0,priority=3"},
		"marked":   {"TC_ACT_SHOT", "mark=0x2a,priority=3"},
	}
	for _, c := range rep.Programs[0].Results {
		if w := want[c.Name]; c.Action != w.action || c.Context != w.context || c.OtherReturns != 0 {
			t.Errorf("%s: %s with context %q, %d samples otherwise; want %s with %q", c.Name, c.Action, c.Context, c.OtherReturns, w.action, w.context)
		}
	}
	// A context the program changes is shown, and sampled one run a call;
	// the context asked for, and how the case was sampled, with --verbose.
	code, stdout, stderr = runCLI(append([]string{"bench", "../../bpf/testdata/ctx.o", "--program", "tc_set_mark", "--class", "udp-dns", "--ctx", "mark=7", "--verbose"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	stdout = flat(stdout) // notes wrap
	for _, line := range []string{"udp-dns: run with context mark=7", "udp-dns: the program changed its context (mark 0x7 -> 0x2a)", "udp-dns: measured one run a call"} {
		if !strings.Contains(stdout, line) {
			t.Errorf("table lacks %q:\n%s", line, stdout)
		}
	}
}
