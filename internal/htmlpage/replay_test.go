package htmlpage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// replayOf is a replay of n bins whose kind and program have the name.
func replayOf(name string, bins int, level float64) *results.Replay {
	r := &results.Replay{Schema: results.ReplaySchema, Program: name, Object: name + ".o", Capture: name + ".pcap", Packets: bins * 1000, Replays: 3,
		Mean: stats.Estimate{Point: level, Lower: level - 10, Upper: level + 10}, ReplayMeans: []float64{level - 5, level, level + 5}}
	for i := range bins {
		r.Sequence = append(r.Sequence, results.ReplayBin{First: i * 1000, Packets: 1000, Mean: level + float64(i%7), Low: level - 3, High: level + 20})
	}
	r.Kinds = []results.ReplayKind{{Name: "XDP_TX: " + name, Packets: bins * 900, PacketShare: 0.9, TimeShare: 0.5, Mean: r.Mean},
		{Name: "XDP_DROP: " + name, Packets: bins * 100, PacketShare: 0.1, TimeShare: 0.5, Mean: r.Mean}}
	return r
}

// The replay's page: its page and two figures written, every name
// escaped, the before side drawn where a comparison has one.
func TestWriteReplayHTML(t *testing.T) {
	hostile := `<script>alert(1)</script>`
	dir := t.TempDir()
	if err := WriteReplayHTML(dir, replayOf(hostile, results.MaxReplayBins, 100)); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(dir, "index.html"))
	if strings.Contains(page, hostile) || !strings.Contains(page, "&lt;script&gt;") {
		t.Errorf("a hostile name is not escaped on the page")
	}
	seq := readFile(t, filepath.Join(dir, replaySequenceFile))
	if strings.Contains(seq, "<script") || strings.Contains(seq, "before:") {
		t.Errorf("the sequence of a lone replay: a script, or a before side")
	}
	if strings.Contains(readFile(t, filepath.Join(dir, replayGroupsFile)), "<script") {
		t.Errorf("a hostile name in the groups' figure")
	}
	after := replayOf("flowtable", 10, 150)
	after.Before = replayOf("flowtable", 10, 100)
	after.Change = &results.ReplayChange{Against: "baseline main", Verdict: string(results.Regressed),
		Kinds: []results.ReplayPathChange{{Name: "XDP_TX: flowtable", Verdict: string(results.Regressed)}}}
	dir = t.TempDir()
	if err := WriteReplayHTML(dir, after); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, replaySequenceFile)), "before: mean over the replays") {
		t.Errorf("the compared sequence draws no before side")
	}
	if page := readFile(t, filepath.Join(dir, "index.html")); !strings.Contains(page, "baseline main →") || !strings.Contains(page, `class="verdict regressed"`) {
		t.Errorf("the compared page names no baseline, or no verdict")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
