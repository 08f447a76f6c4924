package testrun

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// The restorer undoes every way an XDP program changes its buffer (the
// head, the tail, the metadata, the bytes): each program's cases are
// restored, and every timed call returns the checking run's action. A
// program whose runs differ for another reason (its maps) cannot be
// reproduced: its case stays one run a call, and a note says why.
func TestRestorerUndoesEveryChange(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	elf, err := os.ReadFile("../bpf/testdata/resize.o")
	if err != nil {
		t.Fatal(err)
	}
	resize := Object{Name: "resize.o", ELF: elf}
	_, cases := rewriteAndFizz(t)
	for _, tc := range []struct {
		program string
		action  string
		length  int // of the output frame, from the input's
	}{
		{"push_vlan", "XDP_TX", +4},
		{"pop_eth", "XDP_PASS", -14},
		{"grow_tail", "XDP_TX", +100},
		{"trim_tail", "XDP_PASS", -10},
		{"add_meta", "XDP_PASS", +8}, // the kernel copies the metadata out too
	} {
		res, err := Run(context.Background(), Config{Programs: []Program{{Object: resize, Program: tc.program}}, Cases: cases, CPU: -1,
			Samples: 20, Sampling: SamplingLinear, Floor: &Object{Name: "floor", ELF: bpf.Floor()}})
		if err != nil {
			t.Fatalf("%s: %v", tc.program, err)
		}
		c := res.Programs[0].Cases[0]
		if c.Action != tc.action || len(c.Output) != len(c.Case.Frame)+tc.length {
			t.Errorf("%s: %s, %d-byte output from %d", tc.program, c.Action, len(c.Output), len(c.Case.Frame))
		}
		if !c.Restored || c.Single || c.OtherReturns != 0 || len(c.Runs) != 20 || !res.Floor.Cases[0].Restored {
			t.Errorf("%s: restored %v (floor %v), single %v, %d other returns, %d repeats; notes %q",
				tc.program, c.Restored, res.Floor.Cases[0].Restored, c.Single, c.OtherReturns, len(c.Runs), res.Environment.Notes)
		}
	}

	res, err := Run(context.Background(), Config{Programs: []Program{{Object: resize, Program: "flip_once"}}, Cases: cases, CPU: -1,
		Samples: 20, Sampling: SamplingLinear, Floor: &Object{Name: "floor", ELF: bpf.Floor()}})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Programs[0].Cases[0]
	note := strings.Join(res.Environment.Notes, "\n")
	if c.Restored || !c.Single || !strings.Contains(note, "restorer does not reproduce") {
		t.Errorf("flip_once: restored %v, single %v; notes %q", c.Restored, c.Single, note)
	}
}
