package results

import (
	"bytes"
	"errors"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// FuzzParse: a saved result or baseline from anywhere (a file another
// user wrote, a truncated download) gives a report or an error that is
// bad input (exit 2), never a panic; what it accepts saves and reads back
// as itself. The seeds in testdata/fuzz/FuzzParse are real runs' JSON, a
// flat and a compared one.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"schema": "` + Schema + `", "programs": [{"program": {"name": "p", "type": "XDP"}, "cases": [{"name": "a", "samples_ns": [20, 21, 20]}]}]}`,
		`{"schema": "` + Schema + `", "programs": [{"cases": [{"name": "a", "stats": {"n": 2}, "samples_ns": [1]}]}]}`,
		`{"schema": "` + Schema + `", "partial": true, "programs": [{"cases": [{"name": "a"}]}]}`,
		`{"schema": "xdpmicro.bench/v1", "programs": [{"cases": [{"name": "a"}]}]}`,
		// The issue's: wall times shorter than the runs, samples whose
		// sums were +Inf.
		`{"schema": "` + Schema + `", "programs": [{"cases": [{"name": "a", "samples_ns": [20, 21], "runs": [100, 200], "wall_ns": [2000]}]}]}`,
		`{"schema": "` + Schema + `", "programs": [{"cases": [{"name": "a", "samples_ns": [1.7e308, 1.7e308]}]}]}`,
		`[1, 2, 3]`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("fuzz.json", data)
		if err != nil {
			if !errors.Is(err, badinput.Err) || !errors.Is(err, ErrBadResult) {
				t.Fatalf("error %q is not bad input: it would exit 1", err)
			}
			return
		}
		var saved bytes.Buffer
		if err := r.WriteJSON(&saved); err != nil {
			t.Fatalf("an accepted report does not save: %v", err)
		}
		back, err := Parse("saved.json", saved.Bytes())
		if err != nil {
			t.Fatalf("an accepted report, saved, reads back as %v:\n%s", err, saved.Bytes())
		}
		var again bytes.Buffer
		if err := back.WriteJSON(&again); err != nil || !bytes.Equal(saved.Bytes(), again.Bytes()) {
			t.Fatalf("saved twice, the report differs (%v):\n%s\n---\n%s", err, saved.Bytes(), again.Bytes())
		}
	})
}
