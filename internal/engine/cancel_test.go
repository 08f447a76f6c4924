package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// Once its context is done, the analysis starts no case's bootstrap: a
// complete run's ends with the context's error, a partial run's leaves
// its cases without statistics (Ctrl-C while analysing, issue 59), and a
// comparison ends with the error too; the same analysis, not cancelled,
// succeeds.
func TestAnalysisCancelled(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	opts := stats.DefaultOptions()
	opts.Resamples = 1000
	settings := results.Settings{Confidence: 0.95, Estimator: stats.Low}
	env := results.Environment{Kernel: "6.1.0-test", CPU: 1, CPUs: 2, Repeat: 1000, Resolution: 1}
	m := measured(env)
	if r, err := NewContext(cancelled, settings, m, opts); !errors.Is(err, context.Canceled) {
		t.Errorf("complete run, cancelled: %v, %v; want %v", r, err, context.Canceled)
	}
	m.Partial = true
	r, err := NewContext(cancelled, settings, m, opts)
	if err != nil {
		t.Fatalf("partial run, cancelled: %v", err)
	}
	for _, c := range r.Programs[0].Results {
		if c.Stats != nil {
			t.Errorf("case %s analysed after the cancel", c.Name)
		}
	}
	if r, err := NewContext(context.Background(), settings, m, opts); err != nil || r.Programs[0].Results[0].Stats == nil {
		t.Fatalf("partial run, not cancelled: %v", err)
	}

	copts := stats.CompareOptions{Options: opts, Significance: 0.05, NoiseThreshold: 0.02}
	base, current := analyse(t, measured(env)), analyse(t, measured(env))
	if _, err := AgainstContext(cancelled, base, current, results.Files, copts); !errors.Is(err, context.Canceled) {
		t.Errorf("comparison, cancelled: %v; want %v", err, context.Canceled)
	}
	if _, err := AgainstContext(context.Background(), base, current, results.Files, copts); err != nil {
		t.Errorf("comparison, not cancelled: %v", err)
	}
}
