package host_test

import (
	"context"
	"errors"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// ChooseCPU on this machine: a requested CPU is taken as it is, or
// refused when not allowed; an automatic choice is allowed and explained.
// Each claim is released before the next: this process's own lock would
// otherwise keep it off the CPU. (An external test: kerneltest.ClaimCPU
// imports host.)
func TestChooseCPU(t *testing.T) {
	claim := kerneltest.ClaimCPU(t)
	cpu, why := claim.CPU, claim.Why
	claim.Release()
	if why == "" {
		t.Errorf("CPU %d chosen without a reason", cpu)
	}
	allowed, err := host.AllowedCPUs(cpu)
	if err != nil {
		t.Fatal(err)
	}
	again, err := host.ChooseCPU(context.Background(), cpu, allowed, nil)
	if err != nil {
		t.Fatal(err)
	}
	again.Release()
	if again.CPU != cpu || again.Why != "requested" {
		t.Errorf("requesting CPU %d: got %d %q", cpu, again.CPU, again.Why)
	}
	if _, err := host.AllowedCPUs(1023); !errors.Is(err, host.ErrCPU) {
		t.Errorf("CPU 1023: got %v, want %v", err, host.ErrCPU)
	}
	t.Logf("chose CPU %d: %s", cpu, why)
}
