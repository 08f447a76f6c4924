package testrun

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
)

// A load still in the kernel when its run is cancelled is not waited
// for: orAbandon returns at once, and closes the program when its load
// ends, so that nothing stays loaded. The load is held back here, as a
// long verification holds it; not cancelled, it is returned as loaded.
func TestOrAbandon(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	b, err := bpf.Lookup("v4")
	if err != nil {
		t.Fatal(err)
	}
	c, err := object.Choose(object.Object{Name: b.Name, ELF: b.Object}, b.Program, object.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	before := kerneltest.Programs(t, b.Program)
	l, err := orAbandon(context.Background(), c.Load, (*object.Loaded).Close)
	if err != nil {
		t.Fatal(err)
	}
	if len(kerneltest.ProgramsLeft(t, b.Program, before, 0)) != 1 {
		t.Error("not loaded")
	}
	l.Close()

	const slow = 500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	loaded := make(chan struct{})
	start := time.Now()
	_, err = orAbandon(ctx, func() (*object.Loaded, error) {
		time.Sleep(slow)
		defer close(loaded)
		return c.Load()
	}, (*object.Loaded).Close)
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took >= slow {
		t.Fatalf("%v after %v: want the context's error before the load ends", err, took)
	}
	<-loaded
	if left := kerneltest.ProgramsLeft(t, b.Program, before, 5*time.Second); len(left) > 0 {
		t.Errorf("the abandoned load is still in the kernel: %v", left)
	}
}
