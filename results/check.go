package results

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/xdpmicro/xdpmicro/stats"
)

// maxFigure bounds every number a saved result holds: 1e18 ns is 31
// years, and sums and products of a million such figures stay finite,
// where a file's 1.7e308 summed to +Inf and compared to NaN, which the
// JSON writer then refused.
const maxFigure = 1e18

// check refuses, as ErrBadResult, what a comparison or a table would
// index past or compute to a non-finite figure from: cases whose
// summaries, kernel figures and linear samples disagree on their counts,
// times that are no time, and numbers beyond maxFigure.
func check(path string, r *Run) error {
	for _, p := range allLoads(r) {
		for _, c := range p.Results {
			if err := checkCase(c); err != nil {
				return fmt.Errorf("%w: %s: case %q: %w", ErrBadResult, path, c.Name, err)
			}
		}
	}
	if err := checkFigures(reflect.ValueOf(r).Elem(), ""); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBadResult, path, err)
	}
	return nil
}

// allLoads is every load of every program of r, the floor's too.
func allLoads(r *Run) []Program {
	var out []Program
	add := func(p Program) {
		out = append(out, p)
		out = append(out, p.Placements...)
	}
	for _, p := range r.Programs {
		add(p)
	}
	if r.Floor != nil {
		add(*r.Floor)
	}
	return out
}

// checkCase refuses a case whose counts disagree, or whose samples are
// no time per run: negative, or beyond stats.MaxSample.
func checkCase(c Case) error {
	switch {
	case c.Name == "":
		return fmt.Errorf("no name")
	case c.Stats != nil && c.Stats.N != len(c.Samples):
		return fmt.Errorf("a summary of %d samples for %d", c.Stats.N, len(c.Samples))
	case len(c.Runs) != len(c.Wall):
		return fmt.Errorf("%d calls' repeats (runs) for %d wall times (wall_ns)", len(c.Runs), len(c.Wall))
	}
	for i, x := range c.Samples {
		if !(x >= 0 && x <= stats.MaxSample) {
			return fmt.Errorf("sample %d is %g ns a run: want 0 to %g", i, x, stats.MaxSample)
		}
	}
	for i, runs := range c.Runs {
		wall := c.Wall[i]
		if runs == 0 {
			return fmt.Errorf("call %d ran the program 0 times", i)
		}
		if !(wall >= 0 && wall <= stats.MaxSample*float64(runs)) {
			return fmt.Errorf("call %d of %d runs took %g ns: want 0 to %g a run", i, runs, wall, stats.MaxSample)
		}
	}
	return nil
}

// checkFigures refuses any number in v beyond ±maxFigure (JSON holds no
// NaN or infinity), naming it by its JSON path.
func checkFigures(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if x := v.Float(); !(math.Abs(x) <= maxFigure) {
			return fmt.Errorf("%s is %g: want a figure within ±%g", path, x, maxFigure)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return checkFigures(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := checkFigures(v.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if err := checkFigures(it.Value(), join(path, fmt.Sprint(it.Key()))); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			child := path // an embedded struct's fields are its parent's in JSON
			if !f.Anonymous || name != "" {
				child = join(path, cmp.Or(name, f.Name))
			}
			if err := checkFigures(v.Field(i), child); err != nil {
				return err
			}
		}
	}
	return nil
}

// join names a field of the value at path.
func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}
