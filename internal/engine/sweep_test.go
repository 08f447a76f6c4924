package engine

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// Every array and number of a saved slope run, cut or set in turn to
// what a tool or a hand could have written, goes through FuzzCompare's
// checks (every comparison path, the table and the JSON written, errors
// bad input): what random mutation of JSON text seldom reaches, a file
// whose numbers disagree with each other. The seed is small (one load,
// the paths by slopes); the fuzz target's seeds hold the rest.
func TestEverySavedNumberEdited(t *testing.T) {
	data, err := os.ReadFile("testdata/one-load.json")
	if err != nil {
		t.Fatal(err)
	}
	last := edit(data, 1<<30, 0, 0) // data as edit writes it, unedited
	edits := []struct {
		cut   int
		value float64
	}{{0, 0}, {1, -1}, {2, 1e17}, {3, 1e-300}}
	n := 0
	for at := 1; ; at++ {
		if bytes.Equal(edit(data, at, 0, 12345), last) {
			break // past the last array or number
		}
		for _, e := range edits {
			n++
			fail := func(format string, args ...any) {
				t.Fatalf("array or number %d cut to %d or set to %g: %s", at, e.cut, e.value, fmt.Sprintf(format, args...))
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						fail("panic: %v", r)
					}
				}()
				sweepOne(fail, data, data, at, e.cut, e.value)
				sweepOne(fail, edit(data, at, e.cut, e.value), data, 0, 0, 0)
			}()
		}
	}
	if n < 500 {
		t.Fatalf("only %d edits: the seed is not the saved run it was", n)
	}
}
