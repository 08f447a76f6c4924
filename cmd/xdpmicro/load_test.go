package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
)

const (
	portsObject    = "../../bpf/testdata/ports.o"
	tailcallObject = "../../bpf/testdata/tailcall.o"
	sectionsObject = "../../bpf/testdata/sections.o"
	attachObject   = "../../bpf/testdata/attach.o"
	xskObject      = "../../bpf/testdata/xsk.o"
)

const portCases = `cases:
  - name: tcp-80
    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}
    tcp: {src: 40000, dst: 80, flags: [syn]}
  - name: tcp-443
    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}
    tcp: {src: 40000, dst: 443, flags: [syn]}
`

// Bad --set, --type, --max-entries and map-init content: exit 2, one line
// naming what the user wrote, before anything is loaded.
func TestLoadOptionsBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--set", "hit_action"}, "--set hit_action: want NAME=VALUE"},
		{[]string{"--set", "nope=1"}, `has no global variable "nope" (variables: hit_action)`},
		{[]string{"--set", "hit_action=XDP_NOPE"}, `"XDP_NOPE" is not an unsigned 32-bit number`},
		{[]string{"--max-entries", "passed=-1"}, "--max-entries passed=-1: want NAME=N"},
		{[]string{"--max-entries", "nope=4"}, `has no map "nope"`},
		{[]string{"--type", "kprobe"}, `--type "kprobe": want one of xdp, tc, socket_filter, af_packet`},
		{[]string{"--attach-type", "tc"}, `--attach-type "tc": want xdp`},
		{[]string{"--map-init", "ports: 1"}, `unknown key "ports"`},
		{[]string{"--map-init", "maps:\n  ports:\n    - {key: 70000, value: 1}"}, "index 70000 is beyond its 65536 entries"},
		{[]string{"--map-init", "maps:\n  ports:\n    - {key: 'htons(80', value: 1}"}, `want htons(N)`},
		{[]string{"--map-init", "variables:\n  hit_action: {a: 1}"}, "want a number"},
		{[]string{"--map-init", "maps:\n  .rodata:\n    - {key: 0, value_hex: '00000000'}"}, "frozen when the program is loaded"},
	} {
		args := append([]string{"bench", portsObject}, tt.args...)
		if args[2] == "--map-init" {
			args[3] = writeFile(t, "init.yaml", args[3])
		}
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(append(args, quick...)...)
			if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.msg) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line with %q", code, stdout, stderr, exitUsage, tt.msg)
			}
		})
	}
}

// Programs in sections that name no type (Suricata's SEC("filter")) are
// refused with the flag that runs them.
func TestUntypedRefusalNamesType(t *testing.T) {
	for _, args := range [][]string{{"bench", sectionsObject}, {"bench", sectionsObject, "--program", "balance"}} {
		code, stdout, stderr := runCLI(args...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--type socket_filter") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line naming --type socket_filter", strings.Join(args, " "), code, stdout, stderr, exitUsage)
		}
	}
}

// A kernel refusal while filling a map is a failed run: exit 1, one line
// naming the file's line, the map and the entry.
func TestMapInitRefusalExitsOne(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	doc := "maps:\n  queues:\n"
	for port := range 17 { // the map holds 16
		doc += fmt.Sprintf("    - {key: {addr: 198.51.100.1, port: %d, proto: 6}, value: 1}\n", port+1)
	}
	init := writeFile(t, "init.yaml", doc)
	code, stdout, stderr := runCLI(append([]string{"bench", sectionsObject, "--type", "socket_filter", "--program", "balance", "--map-init", init, "--class", "fizz"}, quick...)...)
	if code != exitFailed || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "init.yaml:19: map queues, key {addr: ") || !strings.Contains(stderr, "port: 17") || !strings.Contains(stderr, "the map is full (max_entries 16; E2BIG)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// programs OBJECT shows what a --map-init file and --set need: maps with
// their key and value types (members of structs, anonymous unions,
// bitfields), sizes, pinning and per-CPU; variables with type and value.
func TestProgramsListsMapsAndVariables(t *testing.T) {
	for object, wants := range map[string][]string{
		portsObject: {"port_filter", "│ ports ", "PerCPUArray", "65536", "pinned by name; per-CPU", "│ passed ", "per-CPU; no max_entries",
			"hit_action", ".rodata", "const volatile __u32", "3 map(s), 1 variable(s)"},
		sectionsObject: {"keep_all", "filter", "UnspecifiedProgram", "with --type",
			"struct rule {union {__be32 addr; __be32 addr6[4]}; __be16 port; __u8 proto; __u8 family:4; __u8 weight:4}"},
		tailcallObject: {"holds 0: drop", "inner: Array of __u32 -> __u32, 1 entries", "dropped", ".bss"},
		attachObject:   {"cpu_count", "xdp/cpumap", "xdp.frags/devmap", "with --attach-type xdp", "│ spread     │ XDP  │ xdp              │ yes"},
	} {
		code, stdout, stderr := runCLI("programs", object)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", object, code, stderr)
		}
		for _, want := range wants {
			if !strings.Contains(stdout, want) {
				t.Errorf("programs %s lacks %q:\n%s", object, want, stdout)
			}
		}
	}
}

// An xdp-filter-like object, run as a user would: its pinned per-CPU
// port map filled by --map-init drops port 80 and passes 443, the knob
// set with --set changes what a hit returns, and stderr notes what
// xdpmicro changed of the object.
func TestBenchPortFilter(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cases := writeFile(t, "cases.yaml", portCases)
	init := writeFile(t, "init.yaml", "maps:\n  ports:\n    - {key: htons(80), value: 1}\n")
	for _, tt := range []struct {
		set, hit string
	}{{"", "XDP_DROP"}, {"hit_action=XDP_TX", "XDP_TX"}} {
		args := []string{"bench", portsObject, "--packets", cases, "--map-init", init, "--format", "json"}
		if tt.set != "" {
			args = append(args, "--set", tt.set)
		}
		code, stdout, stderr := runCLI(append(args, quick...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, want := range []string{"xdpmicro: note: maps pinned by name in the object are loaded unpinned", ": ports\n",
			"xdpmicro: note: maps declaring no max_entries (their loader sizes them) are given "} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		var rep results.Run
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		effects := map[string]string{}
		for _, c := range rep.Programs[0].Results {
			got[c.Name] = c.Action
			for _, e := range c.Effects {
				effects[c.Name] += e.String()
			}
		}
		if got["tcp-80"] != tt.hit || got["tcp-443"] != "XDP_PASS" || !strings.Contains(effects["tcp-80"], "ports: [20480] set 257 (CPU ") {
			t.Errorf("--set %q: actions %v, effects %v; want port 80 %s with its hit counted, port 443 XDP_PASS", tt.set, got, effects, tt.hit)
		}
		if len(rep.Environment.Notes) != 2 {
			t.Errorf("notes in the JSON report: %q", rep.Environment.Notes)
		}
	}
}

// Programs for a cpumap or a devmap, as a user runs them: refused before
// any run in one line that names the attach type and --attach-type, exit
// 2; with --attach-type xdp, run as plain XDP with a note; the devmap
// program that reads egress_ifindex refused by the verifier in a line
// that says so, exit 1. Without --program, the object's plain XDP
// program is measured.
func TestBenchProgramsForMaps(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	bench := func(args ...string) (int, string, string) {
		return runCLI(append(append([]string{"bench", attachObject, "--class", "tcp-syn,arp", "--format", "json"}, args...), quick...)...)
	}
	for _, program := range []string{"cpu_count", "dev_filter", "dev_egress"} {
		code, stdout, stderr := bench("--program", program)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "frame (") ||
			!strings.Contains(stderr, "xdpmicro: not test-runnable: "+program+" in ") || !strings.Contains(stderr, ", load it as plain XDP: --attach-type xdp\n") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line naming --attach-type xdp", program, code, stdout, stderr, exitUsage)
		}
	}
	code, stdout, stderr := bench()
	var rep results.Run
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Programs[0].Info.Name != "spread" {
		t.Errorf("no --program: exit %d, stderr %q; want spread measured", code, stderr)
	}
	code, stdout, stderr = bench("--program", "dev_filter", "--attach-type", "xdp")
	if code != 0 || !strings.Contains(stderr, "xdpmicro: note: dev_filter, an XDP program for a devmap (section xdp.frags/devmap), is loaded as plain XDP") {
		t.Fatalf("dev_filter as plain XDP: exit %d, stderr %q", code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	actions := map[string]string{}
	for _, c := range rep.Programs[0].Results {
		actions[c.Name] = c.Action
	}
	if actions["tcp-syn"] != "XDP_PASS" || actions["arp"] != "XDP_DROP" {
		t.Errorf("dev_filter as plain XDP: %v; want tcp-syn XDP_PASS, arp XDP_DROP", actions)
	}
	code, stdout, stderr = bench("--program", "dev_egress", "--attach-type", "xdp")
	first, _, _ := strings.Cut(stderr, "\n")
	if code != exitFailed || stdout != "" || !strings.Contains(first, "rejected by the verifier: dev_egress in ") ||
		!strings.Contains(first, "reads ctx->egress_ifindex, which only a devmap program may, so it cannot run as plain XDP") {
		t.Errorf("dev_egress as plain XDP: exit %d, stderr %q; want exit %d and the verifier's refusal, said plainly", code, stderr, exitFailed)
	}
}

// An AF_XDP program runs: its XSKMAP, which user space cannot read, is
// left out of the map effects with a note.
func TestBenchSocketMap(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, _, stderr := runCLI(append([]string{"bench", xskObject, "--class", "tcp-syn", "--format", "json"}, quick...)...)
	if code != 0 || !strings.Contains(stderr, "xdpmicro: note: the checking run's changes to these maps are not shown: sockets (XSKMap, whose sockets user space cannot read)") {
		t.Errorf("exit %d, stderr %q; want a run and a note on the XSKMAP", code, stderr)
	}
}
