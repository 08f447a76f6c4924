package results

import (
	"errors"
	"strings"
	"testing"
)

// A profile read back, from a file or a --kernel guest, is refused where
// a renderer would index past it: a difference with one profile made the
// text read a second one that was not there.
func TestParseProfile(t *testing.T) {
	const one = `{"object": "v4", "program": "fizzbuzz", "source": [], "cases": [{"name": "fizz", "instructions": 3, "lines": [], "functions": []}]}`
	const diff = `"diff": {"before": "v3", "after": "v4", "cases": [{"name": "fizz", "before": 3, "after": 2, "lines": [], "functions": []}]}`
	for name, data := range map[string]string{
		"a diff of one":   `{"profiles": [` + one + `], ` + diff + `}`,
		"a diff of three": `{"profiles": [` + one + `,` + one + `,` + one + `], ` + diff + `}`,
		"three":           `{"profiles": [` + one + `,` + one + `,` + one + `]}`,
		"none":            `{"profiles": []}`,
		"empty":           `{}`,
		"null profile":    `{"profiles": [null]}`,
		"null":            `null`,
		"not JSON":        `{"profiles": [`,
		"empty cases":     `{"profiles": [{"cases": [` + strings.Repeat("{},", 100000) + `{}]}]}`,
	} {
		if _, err := ParseProfile("reply", []byte(data)); !errors.Is(err, ErrBadResult) {
			t.Errorf("%s: %v, want ErrBadResult", name, err)
		}
	}
	for name, data := range map[string]string{
		"one":         `{"profiles": [` + one + `]}`,
		"two":         `{"profiles": [` + one + `,` + one + `]}`,
		"two, a diff": `{"profiles": [` + one + `,` + one + `], ` + diff + `}`,
	} {
		if rep, err := ParseProfile("reply", []byte(data)); err != nil || rep.Check() != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
