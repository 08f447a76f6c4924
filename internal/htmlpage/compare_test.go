package htmlpage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

func TestWriteHTML(t *testing.T) {
	r := runfixture.Interleaved(t, runfixture.TwoBuilds(t), stats.DefaultOptions())
	dir, page := writePage(t, r)
	for _, want := range []string{"<h2>fizz</h2>", "<h2>short</h2>", "Performance has regressed.", `src="case-0-distribution.svg"`, `src="case-1-samples.svg"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), "http://") || strings.Contains(string(page), "https://") || strings.Contains(string(page), "<script") {
		t.Error("the page must need no network and no JavaScript")
	}
	svg, err := os.ReadFile(filepath.Join(dir, "case-0-distribution.svg"))
	if err != nil {
		t.Fatal(err)
	}
	// Both programs are drawn, each with its legend entry naming the
	// case, the side and the estimator compared.
	if !strings.HasPrefix(string(svg), "<?xml") || !strings.Contains(string(svg), "fizz before: mean") || !strings.Contains(string(svg), "fizz after: mean") {
		t.Errorf("distribution figure lacks the two overlaid programs")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 6 {
		t.Errorf("%d files, want index.html, the summary and 4 figures", len(entries))
	}
}

// A linear run gets Criterion's regression figure per case: the calls, the
// levels' low quantiles and the fitted line, its slope in the legend.
func TestWriteHTMLLinear(t *testing.T) {
	res := runfixture.SampleResult(t)
	res.Environment.Sampling = results.Sampling{Mode: results.SamplingLinear, Step: 100, Levels: 2}
	for i := range res.Programs[0].Results {
		c := &res.Programs[0].Results[i]
		c.Runs, c.Wall = nil, nil
		for j := range c.Samples {
			runs := uint32(100 * (1 + j%2))
			c.Runs = append(c.Runs, runs)
			c.Wall = append(c.Wall, 900+c.Samples[j]*float64(runs))
		}
	}
	r, err := engine.New(results.Settings{Confidence: 0.95, Estimator: stats.Slope}, res, stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	dir, page := writePage(t, r)
	if !strings.Contains(string(page), `src="case-1-regression.svg"`) {
		t.Error("index.html lacks the regression figure")
	}
	svg, err := os.ReadFile(filepath.Join(dir, "case-1-regression.svg"))
	// short: 5 ns a run on every call, 900 ns a call.
	if err != nil || !strings.Contains(string(svg), "5.00 ns per run") || !strings.Contains(string(svg), "0.90 µs a call") {
		t.Errorf("regression figure: %v\n%.400s", err, svg)
	}
}
