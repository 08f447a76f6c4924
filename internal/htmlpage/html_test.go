package htmlpage

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// withFloor adds a floor 5 ns a run below every case, in the same rounds.
func withFloor(res results.Raw) results.Raw {
	floor := runfixture.Derived(res.Programs[0], "", func(s float64) float64 { return s - 5 })
	floor.Info.Name = "empty_xdp"
	for i := range floor.Results {
		c := &floor.Results[i]
		if c.Wall != nil {
			c.Wall = slices.Clone(c.Wall)
			for k := range c.Wall {
				c.Wall[k] -= 5 * float64(c.Runs[k])
			}
		}
	}
	res.Floor = &floor
	return res
}

func htmlOptions() stats.Options {
	o := stats.DefaultOptions()
	o.Resamples = 500
	return o
}

// writePage writes r's page into a new directory and returns it with the
// page's text.
func writePage(t *testing.T, r *results.Run) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "report")
	if err := WriteHTML(dir, r); err != nil {
		t.Fatal(err)
	}
	return dir, readText(t, filepath.Join(dir, "index.html"))
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var svgText = regexp.MustCompile(`>([^<>]*)</text>`)

// texts are the texts an SVG figure draws, unescaped.
func texts(svg string) []string {
	var out []string
	for _, m := range svgText.FindAllStringSubmatch(svg, -1) {
		out = append(out, strings.NewReplacer("&#39;", "'", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`).Replace(m[1]))
	}
	return out
}

// A comparison's page opens with the change of every case, coloured by
// verdict, with the noise threshold's band, before any case's section;
// its table links to every section.
func TestHTMLComparisonSummaryFirst(t *testing.T) {
	res := runfixture.SpikeRun(t, 3, false)
	after := runfixture.Derived(res.Programs[0], "after", func(s float64) float64 { return s * 1.5 })
	after.Results[1] = res.Programs[0].Results[1] // c01 unchanged
	res.Programs[0].Label = "before"
	res.Programs = append(res.Programs, after)
	r := runfixture.Interleaved(t, res, htmlOptions())
	dir, page := writePage(t, r)
	first := strings.Index(page, "<img ")
	if first < 0 || !strings.HasPrefix(page[first:], `<img src="summary.svg"`) || first > strings.Index(page, `<details class="case"`) {
		t.Errorf("the page does not open with the summary figure:\n%s", page)
	}
	summary := strings.Join(texts(readText(t, filepath.Join(dir, "summary.svg"))), "\n")
	for _, want := range []string{"c00", "c01", "c02", "+50.00 %", "), regressed", "), no change", "noise threshold: a change counts beyond ±2 %", "improved", "within noise"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary figure lacks %q:\n%s", want, summary)
		}
	}
	for i := range 3 {
		if !strings.Contains(page, fmt.Sprintf(`<a href="#case-%d">c0%d</a>`, i, i)) || !strings.Contains(page, fmt.Sprintf(`id="case-%d"`, i)) {
			t.Errorf("no link to case %d's section", i)
		}
	}
	if !strings.Contains(page, `<td class="verdict regressed">regressed</td>`) || !strings.Contains(page, `<td class="verdict no_change">no change</td>`) {
		t.Error("the table does not colour the verdicts")
	}
	// A compare's table is wider than a 1280-pixel window: it scrolls in
	// its own box, never the page, and the packet column wraps, so the
	// verdict column shows.
	if !strings.Contains(page, `<div class="cases"><table class="cases">`) || !strings.Contains(page, `div.cases { max-width: 100%; overflow-x: auto;`) ||
		!strings.Contains(page, `<td class="muted packet">`) || !strings.Contains(page, `td.packet { white-space: normal;`) {
		t.Error("the cases table is not held within the page")
	}
	if !strings.Contains(page, "<h1>xdpmicro: ") || strings.Contains(page, "(bundled) (") {
		t.Error("the page's title")
	}
	// Legends name the case and the side, never the program.
	dist := strings.Join(texts(readText(t, filepath.Join(dir, "case-0-distribution.svg"))), "\n")
	if !strings.Contains(dist, "c00 before: mean") || !strings.Contains(dist, "c00 after: mean") || strings.Contains(dist, "xdp_prog_main") {
		t.Errorf("distribution legend:\n%s", dist)
	}
	samples := strings.Join(texts(readText(t, filepath.Join(dir, "case-0-samples.svg"))), "\n")
	if !strings.Contains(samples, "c00 before") || !strings.Contains(samples, "c00 after") || strings.Contains(samples, "xdp_prog_main") {
		t.Errorf("samples legend:\n%s", samples)
	}
}

// numbers are the texts of an SVG that are numbers: its tick labels.
func numbers(svg string) []float64 {
	var out []float64
	for _, s := range texts(svg) {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// One call of 170 ns does not stretch the axes: they end near the bulk,
// and the legend counts the value beyond, drawn at the edge.
func TestHTMLClippedAxes(t *testing.T) {
	for _, linear := range []bool{false, true} {
		t.Run(fmt.Sprintf("linear=%v", linear), func(t *testing.T) {
			r, err := engine.New(runfixture.SettingsFor(linear), runfixture.SpikeRun(t, 1, linear), htmlOptions())
			if err != nil {
				t.Fatal(err)
			}
			dir, _ := writePage(t, r)
			for _, fig := range []string{"case-0-distribution.svg", "case-0-samples.svg"} {
				svg := readText(t, filepath.Join(dir, fig))
				if top := slices.Max(numbers(svg)); fig == "case-0-distribution.svg" && top > 60 {
					t.Errorf("%s: the axis reaches %v", fig, top)
				}
				// The hiccup, and at most the 5 % of values the
				// axis may leave out.
				all := strings.Join(texts(svg), "\n")
				m := regexp.MustCompile(`c00: ([0-9]+) above [0-9.]+ ns of 200 off the axis, marked at its edge`).FindStringSubmatch(all)
				if m == nil {
					t.Fatalf("%s does not count the values beyond its axis:\n%s", fig, all)
				}
				if n, _ := strconv.Atoi(m[1]); n < 1 || n > 11 {
					t.Errorf("%s does not count the values beyond its axis:\n%s", fig, all)
				}
			}
			// The samples figure's value axis: labels up to the fence, not 170.
			svg := readText(t, filepath.Join(dir, "case-0-samples.svg"))
			var values []float64
			for _, v := range numbers(svg) {
				if v != math.Trunc(v) || v < 100 { // the sample axis runs to 200
					values = append(values, v)
				}
			}
			if slices.Max(values) > 60 {
				t.Errorf("the samples figure's axis reaches %v", slices.Max(values))
			}
		})
	}
}

// The kernel's whole ns are drawn as a histogram of 1 ns bins, linear
// sampling's continuous times per run as a curve of the bandwidth named.
func TestHTMLDensityKind(t *testing.T) {
	for _, linear := range []bool{false, true} {
		r, err := engine.New(runfixture.SettingsFor(linear), runfixture.SpikeRun(t, 1, linear), htmlOptions())
		if err != nil {
			t.Fatal(err)
		}
		dir, _ := writePage(t, r)
		dist := strings.Join(texts(readText(t, filepath.Join(dir, "case-0-distribution.svg"))), "\n")
		curve := strings.Contains(dist, "(curve: bandwidth")
		if curve != linear {
			t.Errorf("linear %v: a curve %v:\n%s", linear, curve, dist)
		}
		if linear && !strings.Contains(dist, "c00: slope 19.1") {
			t.Errorf("the slope is not marked:\n%s", dist)
		}
	}
}

// A lone program's summary gives each case's time, split at the floor,
// and the regression figure draws the floor's line.
func TestHTMLFloor(t *testing.T) {
	r, err := engine.New(results.Settings{Confidence: 0.95, Estimator: stats.Slope}, withFloor(runfixture.SpikeRun(t, 2, true)), htmlOptions())
	if err != nil {
		t.Fatal(err)
	}
	dir, page := writePage(t, r)
	summary := strings.Join(texts(readText(t, filepath.Join(dir, "summary.svg"))), "\n")
	for _, want := range []string{"c00", "c01", "slope per case", "net of the floor", "floor: the empty program", "ns, net 5.0"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary figure lacks %q:\n%s", want, summary)
		}
	}
	reg := strings.Join(texts(readText(t, filepath.Join(dir, "case-1-regression.svg"))), "\n")
	if !strings.Contains(reg, "floor (the empty program): 14.2") || !strings.Contains(reg, "c01: 19.2") {
		t.Errorf("regression figure:\n%s", reg)
	}
	if !strings.Contains(page, "<th>net of floor</th>") {
		t.Error("the table lacks the net of the floor")
	}
}

// Fifty cases: every one linked from the table, the sections collapsed,
// the summary figure tall enough for a row each.
func TestHTMLManyCases(t *testing.T) {
	r, err := engine.New(results.Settings{Confidence: 0.95}, runfixture.SpikeRun(t, 50, false), htmlOptions())
	if err != nil {
		t.Fatal(err)
	}
	dir, page := writePage(t, r)
	for i := range 50 {
		if !strings.Contains(page, fmt.Sprintf(`<a href="#case-%d">c%02d</a>`, i, i)) || !strings.Contains(page, fmt.Sprintf(`id="case-%d"`, i)) {
			t.Errorf("no link to case %d's section", i)
		}
	}
	if n := strings.Count(page, `<details class="case">`); n != 50 {
		t.Errorf("%d collapsed sections, want 50", n)
	}
	summary := texts(readText(t, filepath.Join(dir, "summary.svg")))
	for i := range 50 {
		if !slices.Contains(summary, fmt.Sprintf("c%02d", i)) {
			t.Errorf("summary figure has no row c%02d", i)
		}
	}
	// A few cases' sections are open.
	r, err = engine.New(results.Settings{Confidence: 0.95}, runfixture.SpikeRun(t, 3, false), htmlOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, page := writePage(t, r); strings.Count(page, `<details class="case" open>`) != 3 {
		t.Error("the sections of 3 cases are not open")
	}
}

// Every labelled tick of an axis has the same number of decimals, enough
// to tell its steps apart.
func TestEvenTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi   float64
		decimals int
	}{
		{18.3, 33.7, 0}, {0, 0.09, 2}, {19.21, 19.26, 2}, {19.211, 19.219, 3}, {-30.5, 2.1, 0}, {0, 1.2, 1}, {1, 20000, 0},
	} {
		var labels []string
		for _, tick := range (evenTicks{}).Ticks(tc.lo, tc.hi) {
			if tick.Label == "" {
				continue
			}
			labels = append(labels, tick.Label)
			decimals := 0
			if i := strings.IndexByte(tick.Label, '.'); i >= 0 {
				decimals = len(tick.Label) - i - 1
			}
			if decimals != tc.decimals || tick.Value < tc.lo || tick.Value > tc.hi {
				t.Errorf("[%v %v]: label %q at %v, want %d decimals inside the range", tc.lo, tc.hi, tick.Label, tick.Value, tc.decimals)
			}
		}
		if len(labels) < 3 || len(labels) > 11 || slices.Contains(labels, "-0") {
			t.Errorf("[%v %v]: labels %q", tc.lo, tc.hi, labels)
		}
	}
	for _, tick := range (integerTicks{}).Ticks(0, 4) {
		if tick.Value != math.Trunc(tick.Value) {
			t.Errorf("a count axis ticked at %v", tick.Value)
		}
	}
}

// The axis clips a machine's hiccups, not a clean sample's tails.
func TestBulkSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	clean := make([]float64, 2000)
	for i := range clean {
		clean[i] = 50 + r.NormFloat64()
	}
	s := bulkSpan([][]float64{clean}, 0)
	if below, above := s.beyond(clean); below+above != 0 {
		t.Errorf("a normal sample clipped: %d below, %d above %+v", below, above, s)
	}
	var spike []float64
	for i := range 99 {
		spike = append(spike, []float64{19, 19, 19, 19, 19, 19, 19, 20, 21, 24}[i%10])
	}
	spike = append(spike, 170)
	s = bulkSpan([][]float64{spike}, 1, 18.9, 19.1)
	if below, above := s.beyond(spike); below != 0 || above != 1 || s.hi > 30 || s.lo > 18 {
		t.Errorf("span %+v: %d below, %d above; want the 170 alone beyond", s, below, above)
	}
	// Marks, the estimates' intervals, stay in view.
	if s := bulkSpan([][]float64{spike}, 1, 40); !s.contains(40) {
		t.Errorf("span %+v hides a mark at 40", s)
	}
}

// A cancelled run can leave cases without statistics, or every case: the
// page is still written, and says so.
func TestHTMLPartial(t *testing.T) {
	res := runfixture.SpikeRun(t, 2, false)
	res.Partial = true
	res.Programs[0].Results[1].Samples = res.Programs[0].Results[1].Samples[:5]
	r, err := engine.New(results.Settings{Confidence: 0.95}, res, htmlOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, page := writePage(t, r); !strings.Contains(page, "too few samples to draw") || !strings.Contains(page, `href="#case-1"`) {
		t.Errorf("page of a partial run:\n%s", page)
	}
	res.Programs[0].Results[0].Samples = res.Programs[0].Results[0].Samples[:5]
	if r, err = engine.New(results.Settings{Confidence: 0.95}, res, htmlOptions()); err != nil {
		t.Fatal(err)
	}
	writePage(t, r)
}
