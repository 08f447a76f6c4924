package htmlpage

import (
	"math"
	"testing"
)

// The bulk keeps a clean sample whole and leaves a far hiccup out; the
// density of a sample integrates to about one.
func TestBulkAndDensity(t *testing.T) {
	var clean []float64
	for i := range 100 {
		clean = append(clean, 19+float64(i%10)/10)
	}
	if lo, hi := Bulk(clean, 1); lo != 19 || hi != 19.9 {
		t.Errorf("clean sample: bulk [%v %v], want its extremes [19 19.9]", lo, hi)
	}
	hiccup := append(append([]float64(nil), clean...), 170)
	if _, hi := Bulk(hiccup, 1); hi >= 170 || hi < 19.9 {
		t.Errorf("a 170 ns hiccup: bulk up to %v, want it left out and the sample kept", hi)
	}
	const points = 1000
	xs := make([]float64, points+1)
	for i := range xs {
		xs[i] = 15 + 10*float64(i)/points
	}
	d, h := Density(clean, xs, 19, 19.9, 0.01)
	area := 0.0
	for _, y := range d {
		area += y * 10 / points
	}
	if !(h > 0) || math.Abs(area-1) > 0.05 {
		t.Errorf("density: bandwidth %v, area %.3f, want about 1", h, area)
	}
}
