package object

import (
	"errors"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// FuzzParseMapInit: any --map-init file gives an error that is bad input
// (exit 2) or entries that resolve against a real object without
// panicking, each value the size of its map's.
func FuzzParseMapInit(f *testing.F) {
	f.Add([]byte(configInit))
	f.Add([]byte("maps:\n  lengths:\n    - {key_hex: '3c000000', value_hex: '0100000000000000'}\n"))
	f.Add([]byte("maps:\n  config:\n    - {key: 0, value: {port: [1, 2]}}\n"))
	spec, _, _, err := readTestObject(f, "maps.o").choose("", Settings{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		init, err := ParseMapInit("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("error %q is not bad input: it would exit 1", err)
			}
			return
		}
		updates, _, err := init.Resolve(spec, nil, Settings{})
		if err != nil {
			// An entry that does not fit its map is the file's fault too.
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("resolving: error %q is not bad input: it would exit 1", err)
			}
			return
		}
		for _, u := range updates {
			ms := spec.Maps[u.mapName]
			if uint32(len(u.value)) != ms.ValueSize {
				t.Fatalf("map %s: resolved a value of %d bytes, the map's are %d", u.mapName, len(u.value), ms.ValueSize)
			}
		}
	})
}
