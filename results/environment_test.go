package results

import (
	"encoding/json"
	"slices"
	"testing"
)

// Files saved before linear sampling had a first level start at the step.
func TestSamplingRange(t *testing.T) {
	for _, tc := range []struct {
		s           Sampling
		first, last uint32
	}{
		{Sampling{Step: 100, Levels: 10}, 100, 1000},
		{Sampling{First: 100000, Step: 900000, Levels: 2}, 100000, 1000000},
		{Sampling{}, 0, 0},
	} {
		if first, last := tc.s.Range(); first != tc.first || last != tc.last {
			t.Errorf("%+v: %d…%d, want %d…%d", tc.s, first, last, tc.first, tc.last)
		}
	}
}

// The environment's JSON keys are the saved schema's: compare reads files
// saved by earlier versions by them.
func TestEnvironmentKeys(t *testing.T) {
	data, err := json.Marshal(Environment{CPULock: &CPULock{}})
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range keys {
		got = append(got, k)
	}
	slices.Sort(got)
	want := []string{"arch", "cpu", "cpu_choice", "cpu_lock", "cpu_model", "cpus", "dispatcher", "hostname", "kernel", "kernel_time_ns",
		"kernel_version", "load", "repeat", "resolution_ns", "samples", "sampling", "start", "timer", "wall_ns", "warmup"}
	if !slices.Equal(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
}
