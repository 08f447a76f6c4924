package phases

import (
	"errors"
	"gonum.org/v1/gonum/stat"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The reference is the median of the runs within PhaseTolerance of the
// fastest; slow runs, other keys and runs past MaxAge do not count.
func TestReference(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	k, other := Key{Boot: "b", CPU: 1, Type: "XDP"}, Key{Boot: "c", CPU: 1, Type: "XDP"}
	var h History
	h.Add(k, 20, 0.01, now.Add(-25*time.Hour)) // past MaxAge
	for i, f := range []float64{27, 36, 26, 28, 35} {
		h.Add(k, f, 0.01, now.Add(time.Duration(i-10)*time.Minute))
	}
	h.Add(other, 10, 0.01, now)
	ref, ok := h.Reference(k, now, 0.95)
	if !ok || ref.Floor != 27 || ref.Runs != 3 || ref.All != 5 {
		t.Fatalf("reference %+v, %v; want the median 27 of 26, 27, 28, of 5 runs", ref, ok)
	}
	// sd 1 over 3 runs: t(2) 4.3027 × 1/√3, of 27.
	if want := 4.302652729911275 / math.Sqrt(3) / 27; math.Abs(ref.RelHalf-want) > 1e-9 {
		t.Errorf("relative half-width %g, want %g", ref.RelHalf, want)
	}
	var one History
	one.Add(k, 27, 0.02, now)
	if ref, ok := one.Reference(k, now, 0.95); !ok || ref.RelHalf != 0.02 {
		t.Errorf("one run: %+v, want its own half-width 0.02", ref)
	}
	if _, ok := h.Reference(Key{Boot: "b", CPU: 0, Type: "XDP"}, now, 0.95); ok {
		t.Error("another CPU's runs were taken")
	}
	if _, ok := h.Reference(k, now.Add(MaxAge+time.Hour), 0.95); ok {
		t.Error("runs past MaxAge were taken")
	}
}

// One run that misread its phase low does not become the fast phase for
// every run after it: the fastest floor a quorum of runs read does.
func TestReferenceNeedsQuorum(t *testing.T) {
	now := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	k := Key{Boot: "b", CPU: 1, Type: "XDP"}
	var h History
	for i, f := range []float64{5.45, 5.25, 5.3, 9.5, 4.12, 5.4, 9.2, 5.2, 4.31, 5.35, 5.5, 9.3} {
		h.Add(k, f, 0.02, now.Add(time.Duration(i-20)*time.Minute))
	}
	ref, ok := h.Reference(k, now, 0.95)
	if !ok || ref.Floor < 5.2 || ref.Floor > 5.5 {
		t.Errorf("reference %+v: want the 5.2 to 5.5 ns that seven runs read, not 4.12 or 4.31", ref)
	}
	var few History
	few.Add(k, 9.3, 0.02, now.Add(-2*time.Minute))
	few.Add(k, 5.3, 0.02, now.Add(-time.Minute))
	if ref, ok := few.Reference(k, now, 0.95); !ok || ref.Floor != 5.3 {
		t.Errorf("two runs: %+v, want the faster, 5.3", ref)
	}
}

// A few runs as fast as the machine once was do not stand for its phase
// while most of the runs since read slower: the fast phase is the one
// half the remembered runs met.
func TestReferenceFollowsTheMachine(t *testing.T) {
	now := time.Date(2026, 11, 28, 15, 40, 0, 0, time.UTC)
	k := Key{Boot: "b", CPU: 1, Type: "XDP"}
	var h History
	floors := []float64{5.47, 5.54, 5.87}
	for i := range kept - len(floors) {
		floors = append(floors, 6.3+0.03*float64(i%10))
	}
	for i, f := range floors {
		h.Add(k, f, 0.012, now.Add(time.Duration(i-len(floors))*30*time.Second))
	}
	ref, ok := h.Reference(k, now, 0.95)
	if !ok || ref.Floor < 6.3 || ref.Floor > 6.6 {
		t.Errorf("reference %+v: want the 6.3 to 6.6 ns most runs read, not the 5.5 of two early ones", ref)
	}
}

// The fast phase's drift is its runs' floors' spread beyond what each
// one's own interval says, from minDriftRuns runs on.
func TestReferenceDrift(t *testing.T) {
	now := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	k := Key{Boot: "b", CPU: 1, Type: "XDP"}
	var steady, moving, few History
	for i := range 6 {
		at := now.Add(time.Duration(i-10) * time.Minute)
		steady.Add(k, 5.3+0.01*float64(i%2), 0.02, at)
		moving.Add(k, 5.1+0.4*float64(i%2), 0.001, at)
		if i < minDriftRuns-1 {
			few.Add(k, 5.1+0.4*float64(i%2), 0.001, at)
		}
	}
	if ref, _ := steady.Reference(k, now, 0.95); !ref.DriftKnown || ref.Drift != 0 {
		t.Errorf("floors within their own noise: drift %g (%v), want 0", ref.Drift, ref.DriftKnown)
	}
	logs := []float64{}
	for i := range 6 {
		logs = append(logs, math.Log(5.1+0.4*float64(i%2)))
	}
	if ref, _ := moving.Reference(k, now, 0.95); !ref.DriftKnown || math.Abs(ref.Drift-stat.Variance(logs, nil)) > 1e-6 {
		t.Errorf("floors 5.1 and 5.5 ±0.1 %%: drift %g, want about their variance %g", ref.Drift, stat.Variance(logs, nil))
	}
	if ref, _ := few.Reference(k, now, 0.95); ref.DriftKnown {
		t.Errorf("%d runs: drift taken as known", minDriftRuns-1)
	}
}

// Floors within the tolerance of each other are one phase; a change
// measured at another phase is widened, either way.
func TestSamePhase(t *testing.T) {
	for _, c := range []struct {
		run, recalled float64
		want          bool
	}{{5.5, 5.3, false}, {5.0, 5.3, false}, {4.0, 5.3, true}, {5.8, 5.3, true}, {9.3, 5.3, true}, {9.3, 0, false}, {0, 5.3, false}} {
		if got := SamePhase(c.run, c.recalled); got == c.want && c.run > 0 && c.recalled > 0 {
			t.Errorf("SamePhase(%v, %v) = %v", c.run, c.recalled, got)
		}
		if spread := ChangeSpread(c.run, c.recalled, ChangeTransfer); (spread > 1) != c.want {
			t.Errorf("ChangeSpread(%v, %v) = %v: widens %v, want %v", c.run, c.recalled, spread, spread > 1, c.want)
		}
	}
}

// A floor known to worse than MaxHalf is neither remembered nor, in a
// file written before the rule, recalled: it would stand for every run
// after it, as the fastest.
func TestImpreciseFloorIgnored(t *testing.T) {
	now := time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)
	k := Key{Boot: "b", CPU: 1, Type: "XDP"}
	var h History
	h.Add(k, 5.5, 0.03, now.Add(-3*time.Minute))
	h.Add(k, 2.06, 0.19, now.Add(-2*time.Minute)) // ten samples' floor
	h.Add(k, 5.3, 0.03, now.Add(-time.Minute))
	if n := len(h.Levels[k.String()]); n != 2 {
		t.Errorf("%d floors remembered, want the 2 precise ones", n)
	}
	h.Levels[k.String()] = append(h.Levels[k.String()], Level{At: now.Add(-30 * time.Second), Floor: 2.06, Half: 0.19})
	ref, ok := h.Reference(k, now, 0.95)
	if !ok || ref.All != 2 || ref.Floor < 5.3 || ref.Floor > 5.5 {
		t.Errorf("reference %+v, %v; want the median of the 2 precise floors, 5.3 to 5.5", ref, ok)
	}
}

// Add keeps the newest runs of a key, and forgets keys with none recent.
func TestAddForgets(t *testing.T) {
	now := time.Now()
	k := Key{Boot: "b", CPU: 1, Type: "XDP"}
	var h History
	h.Add(Key{Boot: "old"}, 30, 0.01, now.Add(-2*MaxAge))
	for i := range kept + 10 {
		h.Add(k, float64(30+i), 0.01, now.Add(time.Duration(i)*time.Second))
	}
	if n := len(h.Levels[k.String()]); n != kept {
		t.Errorf("%d runs kept, want %d", n, kept)
	}
	if h.Levels[k.String()][0].Floor != 40 {
		t.Errorf("oldest kept %v, want the 11th run's 40", h.Levels[k.String()][0])
	}
	if _, ok := h.Levels[Key{Boot: "old"}.String()]; ok {
		t.Error("a key with no recent run is kept")
	}
}

// A history saved loads back; a missing file is empty; a file that is not
// one is an error, and an empty history with it.
func TestLoadSave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "phases.json")
	if h, err := Load(path); err != nil || len(h.Levels) != 0 {
		t.Fatalf("missing file: %+v, %v", h, err)
	}
	now := time.Now().Round(0)
	k := Key{Boot: "b", CPU: 1, Type: "XDP"}
	var h History
	h.Add(k, 27.5, 0.01, now)
	if err := h.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil || len(back.Levels[k.String()]) != 1 || back.Levels[k.String()][0].Floor != 27.5 {
		t.Fatalf("loaded %+v, %v", back, err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err := Load(path); !errors.Is(err, ErrHistory) || len(h.Levels) != 0 {
		t.Errorf("corrupt file: %+v, %v; want ErrHistory and an empty history", h, err)
	}
}

// Floors read from other frames are another key's: the set of frames
// names it, in whatever order the cases came.
func TestKeyFrames(t *testing.T) {
	udp, icmp := []string{"0a", "0b", "0c"}, []string{"0d"}
	if NewFrames(udp) != NewFrames([]string{"0c", "0a", "0b"}) {
		t.Error("the same frames in another order named apart")
	}
	if NewFrames(udp) == NewFrames(icmp) || NewFrames(udp) == NewFrames(udp[:2]) {
		t.Error("other frames named alike")
	}
	now := time.Date(2026, 11, 28, 16, 0, 0, 0, time.UTC)
	a := Key{Boot: "b", CPU: 1, Type: "XDP", Design: "1x2+1", Frames: NewFrames(udp)}
	b := a
	b.Frames = NewFrames(icmp)
	var h History
	for i := range 5 {
		h.Add(a, 6.2, 0.01, now.Add(time.Duration(i-5)*time.Minute))
	}
	if _, ok := h.Reference(b, now, 0.95); ok {
		t.Error("a floor read from other frames recalled the bundled frames' history")
	}
	if ref, ok := h.Reference(a, now, 0.95); !ok || ref.Floor != 6.2 {
		t.Errorf("reference %+v, %v; want 6.2", ref, ok)
	}
}

// A history that would decode into far more than its size is refused
// before it is decoded: 4 MiB of empty levels took 160 MB.
func TestParseBoundsMemory(t *testing.T) {
	empty := `{"version": 1, "levels": {"k": [` + strings.Repeat("{},", 1<<20) + `{}]}}`
	if _, err := parse("phases.json", []byte(empty)); !errors.Is(err, ErrHistory) || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a million empty levels: %v, want ErrHistory, too large", err)
	}
	real, err := os.ReadFile("testdata/phases.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parse("phases.json", real); err != nil {
		t.Errorf("a real history: %v", err)
	}
}
