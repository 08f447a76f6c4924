package results

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/stats"
)

func sampleReplay() *Replay {
	return &Replay{Schema: ReplaySchema, Program: "flowtable", Packets: 10, Replays: 2, Traffic: "ab12", ReplayMeans: []float64{100, 110},
		Mean:     stats.Estimate{Point: 105, Lower: 90, Upper: 120},
		Kinds:    []ReplayKind{{Name: "XDP_TX: flows: hit", Packets: 10, ReplayMeans: []float64{100, 110}}},
		Sequence: []ReplayBin{{First: 0, Packets: 10, Mean: 105, Low: 100, High: 110}}}
}

// A replay saved as a baseline reads back as it was, named apart from
// bench's; one never saved, or that cannot stand as a baseline, is bad
// input.
func TestReplayBaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	r := sampleReplay()
	path, err := r.SaveBaseline(dir, "main")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "main.replay.json" {
		t.Errorf("saved as %s", path)
	}
	back, err := LoadReplayBaseline(dir, "main")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("read back %+v, want %+v", back, r)
	}
	if _, err := LoadReplayBaseline(dir, "never"); !errors.Is(err, ErrNoBaseline) {
		t.Errorf("never saved: %v", err)
	}
	cmp := sampleReplay()
	cmp.Change, cmp.Before = &ReplayChange{}, sampleReplay()
	if _, err := cmp.SaveBaseline(dir, "cmp"); err != nil {
		t.Fatal(err)
	}
	if back, err := LoadReplayBaseline(dir, "cmp"); err != nil || back.Change != nil || back.Before != nil || cmp.Change == nil {
		t.Errorf("a comparison saved as a baseline: %v; it keeps the replay alone, and the comparison is left as it was", err)
	}
	for name, bad := range map[string]string{
		"bench's":         `{"schema": "xdpmicro.bench/v2", "programs": []}`,
		"no schema":       `{"packets": 3}`,
		"a comparison":    `{"schema": "xdpmicro.replay/v1", "packets": 10, "traffic": "a", "replays": 2, "replay_means_ns": [1, 2], "change": {}}`,
		"means missing":   `{"schema": "xdpmicro.replay/v1", "packets": 10, "traffic": "a", "replays": 3, "replay_means_ns": [1, 2]}`,
		"no digest":       `{"schema": "xdpmicro.replay/v1", "packets": 10, "replays": 2, "replay_means_ns": [1, 2]}`,
		"kind's means":    `{"schema": "xdpmicro.replay/v1", "packets": 10, "traffic": "a", "replays": 2, "replay_means_ns": [1, 2], "kinds": [{"replay_means_ns": [1, 2, 3]}]}`,
		"a huge figure":   `{"schema": "xdpmicro.replay/v1", "packets": 10, "traffic": "a", "replays": 2, "replay_means_ns": [1, 1e300]}`,
		"not JSON at all": `replay`,
	} {
		if _, err := ParseReplay(name, []byte(bad)); !errors.Is(err, ErrBadResult) || !errors.Is(err, badinput.Err) {
			t.Errorf("%s: %v, want a bad saved result", name, err)
		}
	}
}
