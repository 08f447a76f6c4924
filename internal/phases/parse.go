package phases

import (
	"encoding/json"
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/jsonsize"
	"github.com/xdpmicro/xdpmicro/stats"
)

// Bounds of a remembered level: a floor is an empty program's time per
// run, at least a thousandth of a nanosecond and at most stats.MaxSample;
// a relative half-width of more than maxHalf says nothing. A history
// whose floor read 1e-300 ns or 1.7e308 ns would scale every later run by
// a factor whose interval is infinite, which no report can hold.
const (
	minFloor = 1e-3
	maxHalf  = 10
)

// parse reads a history from data, the file at path; a history of
// another version is read as empty. A level that is no floor is
// ErrHistory, as a file that is no JSON.
func parse(path string, data []byte) (History, error) {
	h := History{Version: version, Levels: map[string][]Level{}}
	var read History
	// What it may take decoded: a real history's bound is 4.5 times its
	// size (internal/jsonsize counts each time generously), where 4 MiB
	// of empty levels ({}, {}, …) would have taken 160 MB.
	if err := jsonsize.Check(data, &read, 8*int64(len(data))+1<<20); err != nil {
		return h, fmt.Errorf("%w: %s: %v", ErrHistory, path, err)
	}
	if err := json.Unmarshal(data, &read); err != nil {
		return h, fmt.Errorf("%w: %s: %v", ErrHistory, path, err)
	}
	if read.Version != version || read.Levels == nil {
		return h, nil
	}
	for key, levels := range read.Levels {
		for i, l := range levels {
			if !(l.Floor >= minFloor && l.Floor <= stats.MaxSample) || !(l.Half >= 0 && l.Half <= maxHalf) {
				return h, fmt.Errorf("%w: %s: %q's level %d: a floor of %g ns ±%g: want %g to %g ns, ±0 to %g",
					ErrHistory, path, key, i, l.Floor, l.Half, minFloor, stats.MaxSample, float64(maxHalf))
			}
		}
	}
	return read, nil
}
