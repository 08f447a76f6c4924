package testrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

func TestVerifierRejection(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	_, err := object.Load(object.Object(kerneltest.ReadTestObject[Object](t, "reject.o")), "")
	var ve *ebpf.VerifierError
	if !errors.Is(err, object.ErrVerifier) || !errors.As(err, &ve) || len(ve.Log) == 0 {
		t.Fatalf("got %v, want object.ErrVerifier carrying the verifier's log", err)
	}
}

// Maps go too: a run of an object with maps, compared by the kernel's
// list of maps.
func TestNoMapLeftLoaded(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	const name = "lengths" // only maps.o has it
	before := kerneltest.Maps(t, name)
	init, err := ParseMapInit("init.yaml", []byte(configInit))
	if err != nil {
		t.Fatal(err)
	}
	cases := packets.Default()
	for i := range cases {
		cases[i].Expect = ""
	}
	if _, err := Run(context.Background(), Config{Sampling: SamplingFlat, Programs: []Program{{Object: kerneltest.ReadTestObject[Object](t, "maps.o")}},
		Cases: cases, MapInit: init, CPU: -1, Samples: MinSamples, Repeat: 100}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Equal(before, kerneltest.Maps(t, name)) {
		if time.Now().After(deadline) {
			t.Fatalf("maps named %s before: %v, after: %v", name, before, kerneltest.Maps(t, name))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// bpfDescriptors lists this process's file descriptors on BPF objects.
func bpfDescriptors(t *testing.T) []string {
	t.Helper()
	fds, err := filepath.Glob("/proc/self/fd/*")
	if err != nil {
		t.Fatal(err)
	}
	var bpf []string
	for _, fd := range fds {
		target, err := os.Readlink(fd)
		if err == nil && strings.HasPrefix(target, "anon_inode:bpf-") {
			bpf = append(bpf, target)
		}
	}
	return bpf
}

// After a run, whether it succeeded, failed its check or was cancelled,
// nothing it loaded stays in the kernel: it holds no descriptor, and the
// kernel's own list of programs is as before.
func TestNothingLeftLoaded(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	const name = "xdp_drop" // kernel names are truncated to 15 characters
	before := kerneltest.Programs(t, name)
	fdsBefore := bpfDescriptors(t)

	cases := packets.Default()
	wrong := slices.Clone(cases)
	wrong[0].Expect = "XDP_TX"
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	runs := []struct {
		name  string
		ctx   context.Context
		cases []packets.Case
	}{
		{"success", context.Background(), cases},
		{"failed check", context.Background(), wrong},
		{"cancelled", cancelled, cases},
	}
	for _, r := range runs {
		cfg := Config{Sampling: SamplingFlat, Programs: []Program{{Object: kerneltest.ReadTestObject[Object](t, "multi.o"), Program: name}},
			Cases: r.cases, CPU: -1, Samples: MinSamples, Repeat: 100}
		for i := range cfg.Cases {
			if cfg.Cases[i].Expect == "" { // all but the wrong one
				cfg.Cases[i].Expect = "XDP_DROP"
			}
		}
		_, err := Run(r.ctx, cfg)
		if (err == nil) != (r.name == "success") {
			t.Fatalf("%s: unexpected error %v", r.name, err)
		}
		if got := bpfDescriptors(t); len(got) != len(fdsBefore) {
			t.Fatalf("%s: BPF descriptors open after the run: %v (before: %v)", r.name, got, fdsBefore)
		}
	}
	// The kernel frees programs after an RCU grace period: give it time.
	deadline := time.Now().Add(5 * time.Second)
	for {
		after := kerneltest.Programs(t, name)
		if slices.Equal(before, after) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("programs named %s before: %v, after: %v", name, before, after)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
