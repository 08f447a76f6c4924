package phases

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/xdpmicro/xdpmicro/stats"
)

// FuzzParse: a phase history file from anywhere (another version, a
// hand's edit, a truncated write) is read as a history or refused as
// ErrHistory, never a panic; what it accepts gives every key a finite
// reference, one that scales a run to finite figures, and remembers
// another run and saves as JSON that reads back.
// testdata/phases.json is this machine's history after a few runs.
func FuzzParse(f *testing.F) {
	real, err := os.ReadFile("testdata/phases.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	for _, seed := range []string{
		`{"version": 1, "levels": {"b/cpu0/XDP": [{"at": "2026-11-25T12:00:00Z", "floor_ns": 27, "half": 0.01}]}}`,
		`{"version": 1, "levels": {"b/cpu0/XDP": [{"at": "2026-11-25T12:00:00Z", "floor_ns": 1e-300}, {"at": "2026-11-25T12:00:01Z", "floor_ns": 27}]}}`,
		`{"version": 1, "levels": {"b/cpu0/XDP": [{"at": "2026-11-25T12:00:00Z", "floor_ns": 1.7e308, "half": 1e308}]}}`,
		`{"version": 2, "levels": {}}`,
		`{"version": 1}`,
		`[1, 2]`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := parse("phases.json", data)
		if err != nil {
			if !errors.Is(err, ErrHistory) {
				t.Fatalf("error %q is not ErrHistory: the run would not go on", err)
			}
			return
		}
		k := Key{Boot: "b", CPU: 0, Type: "XDP"}
		for key, levels := range h.Levels {
			if len(levels) == 0 {
				continue
			}
			// Each key's levels, as this boot's, seen from their newest.
			latest := slices.MaxFunc(levels, func(a, b Level) int { return a.At.Compare(b.At) }).At
			one := History{Version: version, Levels: map[string][]Level{k.String(): levels}}
			ref, ok := one.Reference(k, latest, 0.95)
			if !ok {
				continue
			}
			// What a run makes of it: its largest time scaled by up to
			// ten (analysis.AtRecalled scales no further), the interval
			// widened by the reference's.
			scaled := stats.Estimate{Point: stats.MaxSample, Lower: stats.MaxSample, Upper: stats.MaxSample}.Scaled(10, math.Hypot(ref.RelHalf, math.Log(10)))
			if !(ref.Floor > 0 && finite(ref.Floor) && finite(scaled.Lower) && finite(scaled.Upper)) {
				t.Fatalf("%s: reference %+v scales a run to %+v", key, ref, scaled)
			}
		}
		h.Add(k, 20, 0.01, time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
		saved, err := json.Marshal(h)
		if err != nil {
			t.Fatalf("an accepted history does not save: %v", err)
		}
		if _, err := parse("saved.json", saved); err != nil {
			t.Fatalf("an accepted history, saved, reads back as %v", err)
		}
	})
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// A level that is no floor is refused, and the run starts the history
// anew (recall says so): 1.7e308 ns ±1e308 scaled every later run's
// interval to infinity.
func TestParseRefusesNoFloor(t *testing.T) {
	for _, level := range []string{`"floor_ns": 1.7e308`, `"floor_ns": 1e-300`, `"floor_ns": 27, "half": 1e308`, `"floor_ns": 27, "half": -1`} {
		data := `{"version": 1, "levels": {"b/cpu0/XDP": [{"at": "2026-11-25T12:00:00Z", ` + level + `}]}}`
		if h, err := parse("phases.json", []byte(data)); !errors.Is(err, ErrHistory) || len(h.Levels) != 0 {
			t.Errorf("%s: %v, %d keys; want ErrHistory and an empty history", level, err, len(h.Levels))
		}
	}
}
