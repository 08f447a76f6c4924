package insncount

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"golang.org/x/sys/unix"
)

type subject struct {
	name    string
	spec    *ebpf.CollectionSpec
	program string
}

// subjects are programs of every kind the repository has: the bundled
// builds, the ladder, bpf-to-bpf calls and callbacks, tc and socket
// filters, legacy packet loads, programs that change their frame. Not
// multi.o's: tests elsewhere count the kernel's programs of those names.
func subjects(t *testing.T) []subject {
	t.Helper()
	var out []subject
	add := func(name string, elf []byte, programs ...string) {
		spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(elf))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, p := range programs {
			out = append(out, subject{name + "/" + p, spec, p})
		}
	}
	for _, b := range bpf.Builds() {
		add(b.Name, b.Object, b.Program)
	}
	add("ladder", bpf.Ladder(), bpf.LadderProgram(0), bpf.LadderProgram(64), bpf.FineProgram(16))
	add("empty", bpf.Floor(), "empty_xdp", "empty_tc", "empty_socket")
	for file, programs := range map[string][]string{
		"calls.o":   {"xdp_calls", "tc_calls", "socket_calls", "socket_ldabs"},
		"rewrite.o": {"swap_macs", "flip_proto", "first_drop"},
	} {
		elf, err := os.ReadFile("../../bpf/testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		add(file, elf, programs...)
	}
	return out
}

// The instrumented copy behaves as the program: the same return and the
// same frame out for every case, whether it takes free registers or saves
// them on the stack, and both ways count alike.
func TestCopyBehavesAsProgram(t *testing.T) {
	kerneltest.RequireBPF(t)
	cases, err := packets.Select(packets.Names())
	if err != nil {
		t.Fatal(err)
	}
	run := func(p *ebpf.Program, frame []byte) (uint32, []byte, error) {
		opts := &ebpf.RunOptions{Data: frame, DataOut: make([]byte, len(frame)+256), Repeat: 1}
		ret, err := p.Run(opts)
		return ret, opts.DataOut, err
	}
	for _, s := range subjects(t) {
		t.Run(s.name, func(t *testing.T) {
			orig, err := ebpf.NewCollection(s.spec)
			if err != nil {
				t.Fatal(err)
			}
			defer orig.Close()
			var copies []*Program
			for _, save := range []bool{false, true} {
				c, err := load(s.spec, s.program, options{save: save})
				if err != nil {
					t.Fatalf("save %v: %v", save, err)
				}
				defer c.Close()
				copies = append(copies, c)
			}
			if copies[1].Rewrite.Saves == 0 {
				t.Errorf("told to save registers, saved none")
			}
			for _, c := range cases {
				want, wantOut, err := run(orig.Programs[s.program], c.Frame)
				if errors.Is(err, unix.EINVAL) {
					continue // a frame the type cannot run, e.g. short for an skb
				}
				if err != nil {
					t.Fatal(err)
				}
				var counts []uint64
				for _, cp := range copies {
					if err := cp.Reset(); err != nil {
						t.Fatal(err)
					}
					got, gotOut, err := run(cp.Program, c.Frame)
					if err != nil {
						t.Fatalf("%s: %v", c.Name, err)
					}
					if got != want || !bytes.Equal(gotOut, wantOut) {
						t.Errorf("%s (saves %d): returned %d, frame %x; the program %d, %x", c.Name, cp.Rewrite.Saves, got, gotOut, want, wantOut)
					}
					n, err := cp.Count()
					if err != nil {
						t.Fatal(err)
					}
					counts = append(counts, n)
					blocks, err := cp.Counts(nil)
					if err != nil {
						t.Fatal(err)
					}
					var spread uint64
					for _, k := range cp.Rewrite.PerInstruction(blocks) {
						spread += k
					}
					if blocks[0] != 1 || spread != n {
						t.Errorf("%s: the entry block ran %d times, the instructions %d in all; want 1, and %d", c.Name, blocks[0], spread, n)
					}
				}
				if counts[0] == 0 || counts[0] != counts[1] {
					t.Errorf("%s: counted %v: want the same, not zero, both ways", c.Name, counts)
				}
			}
		})
	}
}

// A function whose frame is full leaves no room to save registers in: the
// verifier refuses the copy, and the error says so.
func TestNoRoomToSave(t *testing.T) {
	kerneltest.RequireBPF(t)
	spec := &ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{"full": {
		Name: "full", Type: ebpf.XDP, License: "GPL",
		Instructions: asm.Instructions{
			asm.Mov.Imm(asm.R0, 2).WithSymbol("full"),
			asm.StoreMem(asm.RFP, -512, asm.R0, asm.DWord),
			asm.Return(),
		},
	}}, Maps: map[string]*ebpf.MapSpec{}}
	depths, err := StackDepths(spec, "full")
	if err != nil || len(depths) != 1 || depths[0] != 512 {
		t.Fatalf("stack depths %v, %v: want [512]", depths, err)
	}
	p, err := load(spec, "full", options{save: true})
	var ve *ebpf.VerifierError
	if !errors.As(err, &ve) {
		if p != nil {
			p.Close()
		}
		t.Fatalf("got %v, want the verifier's refusal", err)
	}
	// Without saving, two registers are free and the copy loads.
	p, err = Load(spec, "full")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Program.Run(&ebpf.RunOptions{Data: make([]byte, 64)}); err != nil {
		t.Fatal(err)
	}
	if n, err := p.Count(); n != 3 || err != nil {
		t.Errorf("counted %d, %v; want 3", n, err)
	}
}

// A map pinned by name is not shared with the copy: the copy gets a map
// of its own, and needs no pin path.
func TestPinnedMapNotShared(t *testing.T) {
	kerneltest.RequireBPF(t)
	spec := &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{"hits": {Name: "hits", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1, Pinning: ebpf.PinByName}},
		Programs: map[string]*ebpf.ProgramSpec{"pinned": {Name: "pinned", Type: ebpf.XDP, License: "GPL", Instructions: asm.Instructions{
			asm.LoadMapValue(asm.R1, 0, 0).WithReference("hits").WithSymbol("pinned"),
			asm.Mov.Imm(asm.R2, 1),
			asm.StoreXAdd(asm.R1, asm.R2, asm.DWord),
			asm.Mov.Imm(asm.R0, 2),
			asm.Return(),
		}}},
	}
	p, err := Load(spec, "pinned")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if spec.Maps["hits"].Pinning != ebpf.PinByName {
		t.Error("Load changed the spec")
	}
	if _, err := p.Program.Run(&ebpf.RunOptions{Data: make([]byte, 64)}); err != nil {
		t.Fatal(err)
	}
	var hits uint64
	if err := p.Collection.Maps["hits"].Lookup(uint32(0), &hits); err != nil || hits != 1 {
		t.Errorf("the copy's own map holds %d, %v; want 1", hits, err)
	}
	if n, err := p.Count(); n != 5 || err != nil {
		t.Errorf("counted %d, %v; want 5", n, err)
	}
}
