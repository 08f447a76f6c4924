package testrun

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

// attach.o's programs for a cpumap and a devmap: refused before any run,
// as the kernel would refuse them, not as a frame it refused; loaded as
// plain XDP, those that need nothing of their map run and report; the
// devmap program that reads egress_ifindex is refused by the verifier, in
// words that say why. Without a name, the object's plain XDP program is
// the one chosen.
func TestProgramsForMaps(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	obj := kerneltest.ReadTestObject[Object](t, "attach.o")
	cases, err := packets.Select([]string{packets.TCPSyn, packets.ARP})
	if err != nil {
		t.Fatal(err)
	}
	run := func(program, attachType string) (Result, error) {
		return Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: obj, Program: program}}, Cases: cases,
			Load: LoadOptions{AttachType: attachType}, CPU: -1, Samples: MinSamples, Repeat: 100})
	}

	for program, want := range map[string]string{
		"cpu_count":  `cpu_count in ../bpf/testdata/attach.o is an XDP program for a cpumap (section "xdp/cpumap", expected attach type BPF_XDP_CPUMAP), which the kernel's BPF_PROG_TEST_RUN refuses whatever the frame; if it needs nothing of a cpumap, load it as plain XDP`,
		"dev_filter": `(section "xdp.frags/devmap", expected attach type BPF_XDP_DEVMAP), which the kernel's BPF_PROG_TEST_RUN refuses whatever the frame; if it reads no ctx->egress_ifindex, load it as plain XDP`,
		"dev_egress": `(section "xdp/devmap", expected attach type BPF_XDP_DEVMAP)`,
	} {
		_, err := run(program, "")
		if !errors.Is(err, object.ErrNotTestRunnable) || !errors.Is(err, badinput.Err) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "frame (") {
			t.Errorf("%s: %v; want a refusal, bad input, with %q", program, err, want)
		}
	}

	res, err := run("", "")
	if err != nil || res.Programs[0].Info.Name != "spread" {
		t.Fatalf("no program named: %v; want spread, the only one not for a map", err)
	}

	got := map[string]map[string]string{} // program, case: action and effects
	for _, program := range []string{"cpu_count", "dev_filter"} {
		res, err := run(program, "xdp")
		if err != nil {
			t.Fatalf("%s as plain XDP: %v", program, err)
		}
		if notes := strings.Join(res.Environment.Notes, "\n"); !strings.Contains(notes, program+", an XDP program for a ") || !strings.Contains(notes, "is loaded as plain XDP") {
			t.Errorf("%s: notes %q; want it loaded as plain XDP", program, notes)
		}
		got[program] = map[string]string{}
		for _, c := range res.Programs[0].Cases {
			if len(c.Samples) == 0 {
				t.Errorf("%s, %s: no samples", program, c.Case.Name)
			}
			got[program][c.Case.Name] = strings.TrimSpace(c.Action + " " + effectStrings(c))
		}
	}
	for program, want := range map[string]map[string]string{
		"cpu_count":  {packets.TCPSyn: "XDP_PASS map seen: [0] set 1 (CPU ", packets.ARP: "XDP_PASS map seen: [1] set 1 (CPU "},
		"dev_filter": {packets.TCPSyn: "XDP_PASS", packets.ARP: "XDP_DROP"},
	} {
		for name, w := range want {
			if g := got[program][name]; !strings.HasPrefix(g, w) {
				t.Errorf("%s as plain XDP, %s: %q; want %q", program, name, g, w)
			}
		}
	}

	_, err = run("dev_egress", "xdp")
	const why = "dev_egress in ../bpf/testdata/attach.o reads ctx->egress_ifindex, which only a devmap program may, so it cannot run as plain XDP"
	if !errors.Is(err, object.ErrVerifier) || errors.Is(err, badinput.Err) || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "invalid bpf_context access off=20") {
		t.Errorf("dev_egress as plain XDP: %v; want the verifier's refusal, with %q", err, why)
	}
}
