package testrun

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/results"
)

// Two runs started together never measure on one CPU at the same time:
// chosen, the second takes another CPU or waits; requested, it waits.
// A run's measuring, anchors included, lies within [Start, Start+Wall].
func TestRunsDoNotShareCPU(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	first := kerneltest.ClaimCPU(t)
	requested := first.CPU
	first.Release()
	for _, tc := range []struct {
		name string
		cpu  int
	}{{"chosen", AnyCPU}, {"requested", requested}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Sampling: SamplingFlat, Programs: []Program{{Object: bundled(t, "v4")}}, Cases: allCases(t), CPU: tc.cpu,
				Samples: 200, Repeat: 10000}
			var envs [2]results.Environment
			var notices [2][]string
			var wg sync.WaitGroup
			for i := range envs {
				wg.Go(func() {
					c := cfg
					c.Notice = func(s string) { notices[i] = append(notices[i], s) }
					res, err := Run(context.Background(), c)
					if err != nil {
						t.Error(err)
					}
					envs[i] = res.Environment
				})
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			a, b := envs[0], envs[1]
			if b.Start.Before(a.Start) {
				a, b = b, a
			}
			for _, e := range []results.Environment{a, b} {
				t.Logf("CPU %d (%s); lock %+v", e.CPU, e.CPUChoice, e.CPULock)
			}
			t.Logf("notices: %q", notices)
			if a.CPU == b.CPU && b.Start.Before(a.Start.Add(a.Wall)) {
				t.Errorf("both measured on CPU %d at once", a.CPU)
			}
			if len(a.CPULock.HeldByOthers)+len(b.CPULock.HeldByOthers) == 0 {
				t.Error("neither run found the other holding its CPU: did they run at once?")
			}
			if tc.cpu != AnyCPU && a.CPULock.Waited == 0 && b.CPULock.Waited == 0 {
				t.Errorf("both ran on requested CPU %d without a wait", tc.cpu)
			}
			// Another xdpmicro on the machine (a developer's, a test
			// elsewhere) may be waited for as well: only the waits for
			// this process's own other run are counted.
			own := fmt.Sprintf("(pid %d)", os.Getpid())
			waits := 0
			for _, n := range append(notices[0], notices[1]...) {
				if strings.Contains(n, own) {
					waits++
				}
			}
			if waits > 1 {
				t.Errorf("more than one notice of waiting for the other run: %q", notices)
			}
		})
	}
}
