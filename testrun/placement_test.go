package testrun

import (
	"context"
	"slices"
	"testing"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
)

func TestSpreadByOffset(t *testing.T) {
	known := func(o int) (int, bool) { return o, o >= 0 }
	for _, tc := range []struct {
		name                string
		candidates          []int
		want                int
		wantKept, wantDrops []int
	}{
		// Sorted 0 8 24 32 40 56: ranks 1 and 4 are 8 and 40, kept in
		// the order loaded.
		{"evenly spaced ranks", []int{40, 8, 56, 24, 0, 32}, 2, []int{40, 8}, []int{56, 24, 0, 32}},
		{"ties keep the order loaded", []int{8, 8, 8, 8, 8, 8}, 3, []int{8, 8, 8}, []int{8, 8, 8}},
		{"one of three, the middle", []int{60, 4, 28}, 1, []int{28}, []int{60, 4}},
		{"no choice", []int{12, 60}, 2, []int{12, 60}, nil},
		{"an unknown offset: the first", []int{12, -1, 60, 4}, 2, []int{12, -1}, []int{60, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept, dropped := spreadByOffset(tc.candidates, tc.want, known)
			if !slices.Equal(kept, tc.wantKept) || !slices.Equal(dropped, tc.wantDrops) {
				t.Errorf("kept %v dropped %v, want %v and %v", kept, dropped, tc.wantKept, tc.wantDrops)
			}
		})
	}
}

// As many loads are kept as asked, each with its code's offset in a
// line, and the candidates not kept leave the kernel.
func TestLoadCandidatesSpread(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	b, err := bpf.Lookup("v4")
	if err != nil {
		t.Fatal(err)
	}
	c, err := object.Choose(object.Object{Name: b.Name, ELF: b.Object}, b.Program, object.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	before := len(kerneltest.Programs(t, b.Program))
	const want = 4
	drawn, err := loadCandidates(context.Background(), []object.Chosen{c}, []int{want}, candidatesPerLoad)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, l := range drawn[0] {
			l.Close()
		}
	}()
	if len(drawn[0]) != want {
		t.Fatalf("%d loads kept, want %d", len(drawn[0]), want)
	}
	if now := len(kerneltest.Programs(t, b.Program)); now-before != want {
		t.Errorf("%d programs more in the kernel, want the %d kept", now-before, want)
	}
	var offsets []int
	for _, l := range drawn[0] {
		o, ok := codeOffset(l)
		if !ok {
			t.Skip("the kernel does not tell JIT addresses here (kptr_restrict?)")
		}
		if o < 0 || o >= cacheLine {
			t.Errorf("offset %d outside a %d-byte line", o, cacheLine)
		}
		offsets = append(offsets, o)
	}
	t.Logf("offsets kept: %v", offsets)
}
