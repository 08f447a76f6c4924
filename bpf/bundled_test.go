package bpf

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cilium/ebpf"
)

// Parsing the embedded objects needs no privileges; loading them is
// testrun's business and is tested there against the kernel.
func TestBuildsParse(t *testing.T) {
	builds := Builds()
	if len(builds) != 4 {
		t.Fatalf("%d builds, want 4", len(builds))
	}
	for _, b := range builds {
		spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(b.Object))
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		prog := spec.Programs[b.Program]
		if prog == nil || prog.Type != ebpf.XDP {
			t.Fatalf("%s: no XDP program %q", b.Name, b.Program)
		}
		queue := spec.Maps["verdicts"]
		if queue == nil || queue.Type != ebpf.Queue {
			t.Fatalf("%s: no queue map", b.Name)
		}
	}
}

func TestLookup(t *testing.T) {
	b, err := Lookup(Default)
	if err != nil || b.Name != Default {
		t.Fatalf("Lookup(%q) = %v, %v", Default, b.Name, err)
	}
	if _, err := Lookup("v9"); !errors.Is(err, ErrUnknownBuild) {
		t.Fatalf("Lookup(v9): %v, want ErrUnknownBuild", err)
	}
}
