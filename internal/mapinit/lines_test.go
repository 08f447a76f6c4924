package mapinit

import "testing"

// Runs are taken where entries are a line each, under a map's name, and
// nowhere else.
func TestLineRunsFound(t *testing.T) {
	for doc, want := range map[string]int{
		"maps:\n  ring:\n    - {key: 0, value: 7}\n    - {key: 1, value: 0x10}\n":                                 2,
		"maps:\n  ring:\n  - key: 0\n    value: 7\n  - key: 1\n    value: 8\n  flows:\n  - {key: 5, value: -3}\n": 3,
		"maps:\n  ring:\n    - {keys: {from: 0, to: 9}, value: 1}\n    - {key: 3, value: 2}\n":                    1,
		"maps:\n  ring:\n    - {key: 0, value: &a 1}\n    - {key: 1, value: *a}\n":                                0,
		"variables:\n  x: |\n    - {key: 0, value: 1}\nmaps:\n  ring:\n    - {key: 7, value: 1}\n":                1,
		"other:\n  ring:\n    - {key: 0, value: 1}\n":                                                             0,
		"maps:\n  ring:\n    - key: 0\n      value: 1\n      more\n":                                              0,
	} {
		_, runs, err := splitLineRuns("init.yaml", []byte(doc), false)
		got := 0
		for _, r := range runs {
			got += r.count
		}
		if err != nil || got != want {
			t.Errorf("%q: %d entries read a line each, %v; want %d", doc, got, err, want)
		}
	}
}
