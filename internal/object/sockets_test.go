package object

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// A map that user space fails to read for want of support (a type not
// known to be unreadable) is noted and left out, not a failed run: here
// an XSKMAP, read as if it were any map.
func TestUnreadableMapNoted(t *testing.T) {
	kerneltest.RequireBPF(t)
	m, err := ebpf.NewMap(&ebpf.MapSpec{Name: "sockets", Type: ebpf.XSKMap, KeySize: 4, ValueSize: 4, MaxEntries: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = snapshotOne(context.Background(), m, maxInspectedBytes)
	if err == nil {
		t.Fatal("an XSKMAP was read from user space")
	}
	l := &Loaded{Spec: &ebpf.CollectionSpec{}}
	if !l.unreadable("sockets", err) {
		t.Fatalf("%v: not taken for a map user space cannot read", err)
	}
	if note := l.UnwatchedNote(); !strings.Contains(note, "sockets (user space could not read it: ") || !strings.Contains(note, "operation not supported") {
		t.Errorf("note %q; want sockets, unread, with the kernel's reason", note)
	}
	if l.unreadable("other", os.ErrClosed) {
		t.Error("any error taken for a map user space cannot read")
	}
}
