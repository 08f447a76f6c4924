package testrun

import (
	"context"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
)

// A zero Config samples linearly, as the root package's Options does:
// one meaning of an empty Sampling (issue 47).
func TestZeroSamplingIsLinear(t *testing.T) {
	r := newStubRun(t, context.Background(), Config{Samples: 20, Repeat: 1000}, 1, 2)
	if r.s.linear == nil || r.s.sampling.Mode != string(SamplingLinear) {
		t.Fatalf("empty Sampling planned %+v (why: %q), want linear", r.s.sampling, r.s.sampling.Why)
	}
	flat := newStubRun(t, context.Background(), Config{Samples: 20, Repeat: 1000, Sampling: SamplingFlat}, 1, 2)
	if flat.s.linear != nil || flat.s.sampling.Mode != string(SamplingFlat) {
		t.Fatalf("SamplingFlat planned %+v, want flat", flat.s.sampling)
	}
}

// The environment of a real run with an empty Sampling records linear
// sampling, or, where the calls are too costly for it, why it fell back.
func TestZeroSamplingRunIsLinear(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	res, err := Run(context.Background(), Config{Programs: []Program{{Object: bundled(t, "v4")}},
		Cases: packets.Default()[:1], CPU: -1, Samples: MinSamples})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Environment.Sampling
	switch {
	case s.Mode == string(SamplingLinear):
		if s.Levels < 2 || s.Step == 0 {
			t.Errorf("linear sampling %+v: want at least 2 levels and a step", s)
		}
	case s.Mode == string(SamplingFlat) && s.Why != "":
		t.Logf("linear sampling tried and fell back: %s", s.Why)
	default:
		t.Errorf("empty Sampling recorded %+v: want linear, or flat with the reason linear was refused", s)
	}
}
