package testrun

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// tcpTo is a TCP SYN to port, and udpTo a UDP datagram.
func tcpTo(t *testing.T, name string, port uint16, udp bool) packets.Case {
	t.Helper()
	l4 := "tcp: {src: 40000, dst: %d, flags: [syn]}"
	if udp {
		l4 = "udp: {src: 40000, dst: %d}"
	}
	doc := "cases:\n  - name: " + name + "\n    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}\n    " +
		strings.ReplaceAll(l4, "%d", strconv.Itoa(int(port))) + "\n"
	cases, err := packets.ParseFile("cases.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return cases[0]
}

func mustParseInit(t *testing.T, doc string) *MapInit {
	t.Helper()
	init, err := ParseMapInit("init.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return init
}

// runQuick checks and samples the cases briefly and returns each case's
// result, by name.
func runQuick(t *testing.T, cfg Config) map[string]CaseResult {
	t.Helper()
	cfg.CPU, cfg.Samples, cfg.Repeat = -1, MinSamples, 100
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]CaseResult{}
	for _, c := range res.Programs[0].Cases {
		out[c.Case.Name] = c
	}
	return out
}

func effectStrings(c CaseResult) string {
	var s []string
	for _, e := range c.Effects {
		s = append(s, results.Effect(e).String()) // as the table words it
	}
	return strings.Join(s, "; ")
}

// ports.o, after xdp-filter: its pinned per-CPU port map is loaded
// unpinned and filled from --map-init, one value for every CPU; the hit
// changes the value on the CPU that ran the case; the knob hit_action,
// set before loading, is what a hit returns; the counter map declared
// without max_entries is sized one entry per CPU.
func TestPinnedPerCPUKnob(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		t.Fatal(err)
	}
	obj := kerneltest.ReadTestObject[Object](t, "ports.o")
	cases := []packets.Case{tcpTo(t, "tcp-80", 80, false), tcpTo(t, "tcp-443", 443, false)}
	init := mustParseInit(t, "maps:\n  ports:\n    - {key: htons(80), value: 1}\n")

	// Without map-init every packet passes and is counted.
	res, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj}}, Cases: cases, CPU: -1, Samples: MinSamples, Repeat: 100})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(res.Environment.Notes, "\n")
	for _, want := range []string{"loaded unpinned", ": ports", "maps declaring no max_entries (their loader sizes them) are given " + strconv.Itoa(cpus) + ", the number of possible CPUs: passed;"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	for _, c := range res.Programs[0].Cases {
		if c.Action != "XDP_PASS" || !strings.Contains(effectStrings(c), "passed: [0] set") {
			t.Errorf("no map-init, %s: %s, effects %q; want XDP_PASS and a count in passed", c.Case.Name, c.Action, effectStrings(c))
		}
	}

	for _, tt := range []struct {
		set  []string
		want string
	}{{nil, "XDP_DROP"}, {[]string{"hit_action=XDP_TX"}, "XDP_TX"}, {[]string{"hit_action=2"}, "XDP_PASS"}} {
		got := runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj}}, Cases: cases, MapInit: init, Load: LoadOptions{Set: tt.set}})
		hit, miss := got["tcp-80"], got["tcp-443"]
		if hit.Action != tt.want || miss.Action != "XDP_PASS" {
			t.Errorf("--set %v: port 80 %s, port 443 %s; want %s and XDP_PASS", tt.set, hit.Action, miss.Action, tt.want)
		}
		// The entry was 1 on every CPU; the hit added 1<<8 on one.
		e := hit.Effects
		if len(e) != 1 || e[0].Map != "ports" || e[0].Key != "20480" || e[0].Value != "257" || e[0].CPU == nil || *e[0].CPU >= cpus {
			t.Errorf("--set %v: port 80's effects %q; want ports: [20480] set 257 on one CPU", tt.set, effectStrings(hit))
		}
	}

	// A list gives one value per CPU, the rest zero: on a CPU whose
	// value is 0 the port misses. Only CPU 0 gets the drop flag here,
	// so at most CPU 0's runs drop.
	if cpus > 1 {
		zeroElsewhere := mustParseInit(t, "maps:\n  ports:\n    - {key: htons(80), value: [0, 1]}\n")
		got := runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj}}, Cases: cases[:1], MapInit: zeroElsewhere})
		c := got["tcp-80"]
		ranOn1 := c.Action == "XDP_DROP"
		if ranOn1 != strings.Contains(effectStrings(c), "(CPU 1)") {
			t.Errorf("per-CPU list [0, 1]: %s with effects %q: a drop must come from CPU 1 and only from it", c.Action, effectStrings(c))
		}
	}

	// Sized on request instead.
	res, err = Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj}}, Cases: cases[:1], CPU: -1, Samples: MinSamples, Repeat: 10,
		Load: LoadOptions{MaxEntries: []string{"passed=7"}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(res.Environment.Notes, "\n"), "no max_entries") {
		t.Errorf("--max-entries passed=7, yet a note says it was sized by default: %q", res.Environment.Notes)
	}
}

// tailcall.o: the program array initialised in the object keeps its
// target, which runs (counts into .bss and drops); --map-init fills the
// other program array by name, which then wins; a map of maps gets a
// new inner map, itself filled by name.
func TestTailCallsAndMapsOfMaps(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	obj := kerneltest.ReadTestObject[Object](t, "tailcall.o")
	cases := []packets.Case{tcpTo(t, "tcp-80", 80, false)}

	got := runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: "entry"}}, Cases: cases})["tcp-80"]
	if got.Action != "XDP_DROP" || effectStrings(got) != "map .bss: [0] set {dropped: 1}" {
		t.Errorf("static program array: %s, effects %q; want XDP_DROP by drop, which counts", got.Action, effectStrings(got))
	}

	// A .bss variable set before loading, by the file or by --set, which wins.
	vars := mustParseInit(t, "variables:\n  dropped: 99\n")
	for _, set := range []string{"", "dropped=7"} {
		load, want := LoadOptions{}, "map .bss: [0] set {dropped: 100}"
		if set != "" {
			load, want = LoadOptions{Set: []string{set}}, "map .bss: [0] set {dropped: 8}"
		}
		got := runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: "entry"}}, Cases: cases, MapInit: vars, Load: load})["tcp-80"]
		if effectStrings(got) != want {
			t.Errorf("variables: dropped: 99, --set %q: effects %q, want %q", set, effectStrings(got), want)
		}
	}

	init := mustParseInit(t, `maps:
  chosen:
    - {key: 0, value: transmit}
  outer:
    - {key: 0, value: inner}
  outer/0:
    - {key: 0, value: XDP_DROP}
`)
	got = runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: "entry"}}, Cases: cases, MapInit: init})["tcp-80"]
	if got.Action != "XDP_TX" || len(got.Effects) != 0 {
		t.Errorf("program array filled with transmit: %s, effects %q; want XDP_TX and no count", got.Action, effectStrings(got))
	}
	got = runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: "by_inner"}}, Cases: cases})["tcp-80"]
	if got.Action != "XDP_ABORTED" {
		t.Errorf("empty map of maps: %s, want XDP_ABORTED", got.Action)
	}
	got = runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: "by_inner"}}, Cases: cases, MapInit: init})["tcp-80"]
	if got.Action != "XDP_DROP" {
		t.Errorf("map of maps with an inner map holding XDP_DROP: %s", got.Action)
	}
	// The inner map's entries before its outer map's: the same.
	innerFirst := mustParseInit(t, `maps:
  outer/0:
    - {key: 0, value: XDP_DROP}
  outer:
    - {key: 0, value: inner}
`)
	got = runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: "by_inner"}}, Cases: cases, MapInit: innerFirst})["tcp-80"]
	if got.Action != "XDP_DROP" {
		t.Errorf("inner map listed before its outer map: %s, want XDP_DROP", got.Action)
	}
}

// sections.o: socket filters in sections that name no type load with
// --type; keep_all's -1 shows as -1 and is not taken for a changed frame;
// balance finds its queue by a key with an anonymous union, bitfields, a
// big-endian port and an address.
func TestTypeAndStructuredKeys(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	obj := kerneltest.ReadTestObject[Object](t, "sections.o")
	cases := []packets.Case{tcpTo(t, "tcp-80", 80, false), tcpTo(t, "udp-80", 80, true)}
	if _, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: "keep_all"}}, Cases: cases, CPU: -1, Samples: MinSamples}); !errors.Is(err, object.ErrUnsupportedType) {
		t.Fatalf("without --type: %v, want object.ErrUnsupportedType", err)
	}
	got := runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: "keep_all"}}, Cases: cases, Load: LoadOptions{Type: "socket_filter"}})
	if c := got["tcp-80"]; c.Action != "-1" || c.Output != nil || c.Single {
		t.Errorf("keep_all: %s, output %x, single %v; want -1 and the frame unchanged", c.Action, c.Output, c.Single)
	}
	// As on an inet socket the filter sees the packet from its IP header,
	// as on an AF_PACKET socket from its Ethernet header.
	for typ, want := range map[string]string{"socket_filter": "49152", "af_packet": "2048"} { // 192.0.2.1's 0xc000, IPv4's 0x0800
		got := runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: "ethertype"}}, Cases: cases, Load: LoadOptions{Type: typ}})
		if c := got["tcp-80"]; c.Action != want || c.Output != nil {
			t.Errorf("--type %s: bytes 12-13 read as %s, output %x; want %s and the frame unchanged", typ, c.Action, c.Output, want)
		}
	}
	init := mustParseInit(t, `maps:
  queues:
    - key: {addr: 198.51.100.1, port: 80, proto: 6, family: 4, weight: 1}
      value: 3
`)
	got = runQuick(t, Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: "balance"}}, Cases: cases, MapInit: init, Load: LoadOptions{Type: "socket_filter"}})
	if tcp, udp := got["tcp-80"], got["udp-80"]; tcp.Action != "3" || udp.Action != "0" {
		t.Errorf("balance: TCP %s, UDP %s; want queue 3 for TCP to 198.51.100.1:80, 0 for UDP", tcp.Action, udp.Action)
	}
}

// Bad options and files are refused before anything is loaded, as bad
// input, with messages that name what the user wrote; the same object
// gives the same message every time.
func TestLoadOptionErrors(t *testing.T) {
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		t.Fatal(err)
	}
	tooMany := cpus // and one more
	ports, tail, sections := kerneltest.ReadTestObject[Object](t, "ports.o"), kerneltest.ReadTestObject[Object](t, "tailcall.o"), kerneltest.ReadTestObject[Object](t, "sections.o")
	cases := []packets.Case{tcpTo(t, "tcp-80", 80, false)}
	for _, tt := range []struct {
		name    string
		program Program
		load    LoadOptions
		init    string
		want    error
		msg     string
	}{
		{"unknown variable", Program{Object: ports}, LoadOptions{Set: []string{"nope=1"}}, "", ErrConfig, `has no global variable "nope" (variables: hit_action)`},
		{"not NAME=VALUE", Program{Object: ports}, LoadOptions{Set: []string{"hit_action"}}, "", ErrConfig, "want NAME=VALUE"},
		{"value too big", Program{Object: ports}, LoadOptions{Set: []string{"hit_action=0x100000000"}}, "", ErrConfig, "not an unsigned 32-bit number"},
		{"variable in file", Program{Object: ports}, LoadOptions{}, "variables:\n  nope: 1\n", object.ErrMapInit, `init.yaml:2: ports.o has no global variable "nope"`},
		{"unknown map size", Program{Object: ports}, LoadOptions{MaxEntries: []string{"nope=3"}}, "", ErrConfig, `has no map "nope" (maps: .rodata, passed, ports)`},
		{"zero size", Program{Object: ports}, LoadOptions{MaxEntries: []string{"passed=0"}}, "", ErrConfig, "want NAME=N"},
		{"unknown type", Program{Object: sections}, LoadOptions{Type: "kprobe"}, "", ErrConfig, "want one of xdp, tc, socket_filter, af_packet"},
		{"typed already", Program{Object: ports, Program: "port_filter"}, LoadOptions{Type: "tc"}, "", ErrConfig, "is a XDP program already"},
		{"unknown attach type", Program{Object: ports}, LoadOptions{AttachType: "tc"}, "", ErrConfig, `attach type "tc": want xdp`},
		{"index beyond", Program{Object: ports}, LoadOptions{}, "maps:\n  ports:\n    - {key: 65536, value: 1}\n", object.ErrMapInit, "index 65536 is beyond its 65536 entries"},
		{"too many CPUs", Program{Object: ports}, LoadOptions{}, "maps:\n  ports:\n    - {key: 1, value: [" + strings.Repeat("1, ", tooMany) + "1]}\n", object.ErrMapInit, "is per-CPU:"},
		{"unknown program", Program{Object: tail, Program: "entry"}, LoadOptions{}, "maps:\n  chosen:\n    - {key: 0, value: nope}\n", object.ErrMapInit, `map chosen: the object has no program "nope" (programs: by_inner, drop, entry, transmit)`},
		{"program array in hex", Program{Object: tail, Program: "entry"}, LoadOptions{}, "maps:\n  chosen:\n    - {key: 0, value_hex: '01000000'}\n", object.ErrMapInit, "give its value by name"},
		{"unknown inner map", Program{Object: tail, Program: "entry"}, LoadOptions{}, "maps:\n  outer:\n    - {key: 0, value: nope}\n", object.ErrMapInit, `the object has no map "nope" to put in it`},
		{"other object missing", Program{Object: tail, Program: "entry"}, LoadOptions{}, "maps:\n  chosen:\n    - {key: 0, value: {object: nope.o, program: x}}\n", object.ErrMapInit, "init.yaml:3: bad object: open nope.o: no such file or directory"},
		{"other object, no program", Program{Object: tail, Program: "entry"}, LoadOptions{}, "maps:\n  chosen:\n    - {key: 0, value: {object: ../bpf/testdata/ports.o}}\n", object.ErrMapInit, "{object: FILE, program: NAME}"},
		{"other object's unknown map", Program{Object: tail, Program: "entry"}, LoadOptions{}, "maps:\n  chosen:\n    - {key: 0, value: {object: ../bpf/testdata/ports.o, program: port_filter}}\n  nope:\n    - {key: 0, value: 1}\n", object.ErrMapInit, `no map "nope" (maps: .bss, chosen, fallback, outer, ports.o:.rodata, ports.o:passed, ports.o:ports)`},
		{"constants by map", Program{Object: ports}, LoadOptions{}, "maps:\n  .rodata:\n    - {key: 0, value_hex: '00000000'}\n", object.ErrMapInit, "set them by name under variables:"},
		{"no member", Program{Object: sections, Program: "balance"}, LoadOptions{Type: "socket_filter"}, "maps:\n  queues:\n    - {key: {port: 80, addr4: 1.2.3.4}, value: 1}\n", object.ErrMapInit, `has no member "addr4" (members: addr, addr6, port, proto, family, weight)`},
		{"bitfield overflow", Program{Object: sections, Program: "balance"}, LoadOptions{Type: "socket_filter"}, "maps:\n  queues:\n    - {key: {family: 16}, value: 1}\n", object.ErrMapInit, "16 does not fit in its 4 bits"},
		{"not an address", Program{Object: sections, Program: "balance"}, LoadOptions{Type: "socket_filter"}, "maps:\n  queues:\n    - {key: {addr: '2001:db8::1'}, value: 1}\n", object.ErrMapInit, `"2001:db8::1" is not an unsigned 32-bit number`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Sampling: SamplingFlat, Programs: []Program{tt.program}, Cases: cases, CPU: -1, Samples: MinSamples, Load: tt.load}
			if tt.init != "" {
				cfg.MapInit = mustParseInit(t, tt.init)
			}
			cfg.Programs[0].Object.Name = strings.TrimPrefix(cfg.Programs[0].Object.Name, "../bpf/testdata/")
			var first string
			for i := range 3 {
				p, err := prepare(context.Background(), cfg)
				p.releaseCPU()
				if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("got %v, want %v with %q", err, tt.want, tt.msg)
				}
				if i == 0 {
					first = err.Error()
				} else if err.Error() != first {
					t.Fatalf("the same input gave two messages: %q, then %q", first, err.Error())
				}
			}
		})
	}
}

// A kernel refusal while filling a map is a failed run, not bad input,
// and names the map and the entry: here a hash map of 16 entries given 17.
func TestMapInitKernelRefusal(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	doc := "maps:\n  queues:\n"
	for port := range 17 {
		doc += fmt.Sprintf("    - {key: {addr: 198.51.100.1, port: %d, proto: 6}, value: 1}\n", port+1)
	}
	_, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: kerneltest.ReadTestObject[Object](t, "sections.o"), Program: "balance"}},
		Cases: []packets.Case{tcpTo(t, "tcp-80", 80, false)}, CPU: -1, Samples: MinSamples, Repeat: 10,
		MapInit: mustParseInit(t, doc), Load: LoadOptions{Type: "socket_filter"}})
	want := "init.yaml:19: map queues, key {addr: 3325256705 | addr6: "
	if err == nil || errors.Is(err, object.ErrMapInit) || errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "the map is full (max_entries 16; E2BIG)") ||
		!strings.Contains(err.Error(), "port: 17") || !strings.HasPrefix(err.Error(), "init.yaml:19: map queues, key ") {
		t.Fatalf("got %v, want a failed run (not bad input) naming the 17th entry: %s...", err, want)
	}
}

// A program array filled with a program of another object, as katran's
// loader puts its balancer into xdp_root's array: the other object is
// loaded beside the measured one, its maps filled by name and watched as
// FILE:NAME, and the chain measured end to end.
func TestTailCallIntoOtherObject(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	init := mustParseInit(t, `maps:
  chosen:
    - {key: 0, value: {object: ../bpf/testdata/ports.o, program: port_filter}}
  ports:
    - {key: htons(80), value: 1}
`)
	cases := []packets.Case{tcpTo(t, "tcp-80", 80, false), tcpTo(t, "tcp-443", 443, false)}
	res, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: kerneltest.ReadTestObject[Object](t, "tailcall.o"), Program: "entry"}},
		Cases: cases, CPU: -1, Samples: MinSamples, Repeat: 100, MapInit: init})
	if err != nil {
		t.Fatal(err)
	}
	hit, miss := res.Programs[0].Cases[0], res.Programs[0].Cases[1]
	if hit.Action != "XDP_DROP" || !strings.HasPrefix(effectStrings(hit), "map ports.o:ports: [20480] set 257 (CPU ") {
		t.Errorf("port 80 through entry into port_filter: %s, effects %q; want XDP_DROP by the port map", hit.Action, effectStrings(hit))
	}
	if miss.Action != "XDP_PASS" || !strings.HasPrefix(effectStrings(miss), "map ports.o:passed: [0] set 1 (CPU ") {
		t.Errorf("port 443: %s, effects %q; want XDP_PASS counted in ports.o's passed", miss.Action, effectStrings(miss))
	}
	if notes := strings.Join(res.Environment.Notes, "\n"); !strings.Contains(notes, "ports.o: maps pinned by name") {
		t.Errorf("notes %q: want the other object's pinned maps named", notes)
	}
}

// A load the kernel refuses names the same map every time: cilium/ebpf
// creates maps in no set order, and badmaps.o has two bad ones.
func TestLoadErrorDeterministic(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	obj := kerneltest.ReadTestObject[Object](t, "badmaps.o")
	for range 8 {
		l, err := object.Load(object.Object(obj), "")
		if err == nil {
			l.Close()
			t.Fatal("loaded a hash map with BPF_F_MMAPABLE")
		}
		if !strings.Contains(err.Error(), "map alpha: ") || strings.Contains(err.Error(), "beta") {
			t.Fatalf("%v: want map alpha named, the first in name order, every time", err)
		}
	}
}
