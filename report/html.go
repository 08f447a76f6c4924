package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/google/renameio/v2"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/xdpmicro/xdpmicro/stats"
)

// Colours of the first and second program; the second is the "after" build.
var (
	programColors = []color.NRGBA{{R: 31, G: 119, B: 180, A: 255}, {R: 214, G: 39, B: 40, A: 255}}
	bandAlpha     = uint8(50)
)

// WriteHTML writes a static page into dir: index.html and an SVG per
// figure, drawn with gonum/plot. It needs no network and no JavaScript.
// Per case: the distribution of the samples (histogram of whole
// nanoseconds and a density curve) with the estimate and its interval marked,
// and the samples in the order taken, to show drift and regimes; the
// programs of a comparison are overlaid. Every file is written atomically.
func (r *Report) WriteHTML(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report directory: %w", err)
	}
	// A page has room for every column.
	wide := *r
	wide.Wide = true
	var table bytes.Buffer
	if err := wide.writeTable(&table); err != nil {
		return err
	}
	page := htmlPage{Title: r.title(), Table: table.String()}
	for i, c := range r.Programs[0].Results {
		sides := r.sidesOf(i)
		dist, strip := fmt.Sprintf("case-%d-distribution.svg", i), fmt.Sprintf("case-%d-samples.svg", i)
		if err := writeSVG(filepath.Join(dir, dist), distributionPlot(c.Name, sides)); err != nil {
			return err
		}
		if err := writeSVG(filepath.Join(dir, strip), samplesPlot(c.Name, sides, r.Environment.Repeat)); err != nil {
			return err
		}
		hc := htmlCase{Name: c.Name, Summary: c.Summary, Distribution: dist, Samples: strip}
		if slices.ContainsFunc(sides, func(s side) bool { return s.fit != nil }) {
			hc.Regression = fmt.Sprintf("case-%d-regression.svg", i)
			if err := writeSVG(filepath.Join(dir, hc.Regression), regressionPlot(c.Name, sides)); err != nil {
				return err
			}
		}
		page.Cases = append(page.Cases, hc)
	}
	var out bytes.Buffer
	if err := pageTemplate.Execute(&out, page); err != nil {
		return err
	}
	if err := renameio.WriteFile(filepath.Join(dir, "index.html"), out.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func (r *Report) title() string {
	if c := r.Comparison; c != nil {
		return "xdpmicro: " + c.Before + " → " + c.After
	}
	p := r.Programs[len(r.Programs)-1]
	return "xdpmicro: " + p.Info.Name + " in " + p.Object
}

// side is one program's samples of a case, as drawn.
type side struct {
	label   string
	samples []float64
	what    stats.Estimator
	est     stats.Estimate
	color   color.NRGBA
	// runs and wall are linear sampling's calls, fit their fit.
	runs []uint32
	wall []float64
	fit  *stats.Fit
}

// sidesOf returns the case of index i in every program that has it.
func (r *Report) sidesOf(i int) []side {
	name := r.Programs[0].Results[i].Name
	var sides []side
	for pi, p := range r.Programs {
		j := slices.IndexFunc(p.Results, func(c Case) bool { return c.Name == name })
		if j < 0 || p.Results[j].Stats == nil {
			continue
		}
		label := p.Label
		if label == "" {
			label = p.Info.Name
		}
		c := p.Results[j]
		sides = append(sides, side{label: label, samples: c.Samples, what: r.Settings.estimator(), est: c.Stats.Of(r.Settings.estimator()),
			color: programColors[pi%len(programColors)], runs: c.Runs, wall: c.Wall, fit: c.Stats.Fit})
	}
	return sides
}

func distributionPlot(name string, sides []side) *plot.Plot {
	p := plot.New()
	p.Title.Text = name + ": distribution of samples"
	p.X.Label.Text = "ns per run"
	p.Y.Label.Text = "density"
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range sides {
		lo, hi = min(lo, slices.Min(s.samples)), max(hi, slices.Max(s.samples))
	}
	lo, hi = math.Floor(lo)-2, math.Ceil(hi)+2
	var points []float64
	for x := lo; x <= hi; x += (hi - lo) / 200 {
		points = append(points, x)
	}
	peak := 0.0
	for _, s := range sides {
		hist := wholeNanosecondBins(s.samples)
		hist.FillColor = withAlpha(s.color, 90)
		hist.LineStyle.Width = 0
		p.Add(hist)
		density := stats.Density(s.samples, points, 0.5)
		xys := make(plotter.XYs, len(points))
		for i := range points {
			xys[i] = plotter.XY{X: points[i], Y: density[i]}
			peak = max(peak, density[i])
		}
		for _, b := range hist.Bins {
			peak = max(peak, b.Weight)
		}
		line, _ := plotter.NewLine(xys)
		line.Color = s.color
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s: %s %.2f ns [%.2f %.2f]", s.label, s.what, s.est.Point, s.est.Lower, s.est.Upper), line)
	}
	for _, s := range sides {
		band, _ := plotter.NewPolygon(plotter.XYs{{X: s.est.Lower, Y: 0}, {X: s.est.Upper, Y: 0}, {X: s.est.Upper, Y: peak * 1.05}, {X: s.est.Lower, Y: peak * 1.05}})
		band.Color = withAlpha(s.color, bandAlpha)
		band.LineStyle.Width = 0
		p.Add(band)
		point, _ := plotter.NewLine(plotter.XYs{{X: s.est.Point, Y: 0}, {X: s.est.Point, Y: peak * 1.05}})
		point.Color = s.color
		point.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(point)
	}
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, peak*1.25
	return p
}

// wholeNanosecondBins bins samples per nanosecond, the kernel's quantum,
// normalised to a density.
func wholeNanosecondBins(samples []float64) *plotter.Histogram {
	counts := map[float64]int{}
	for _, s := range samples {
		counts[math.Floor(s)]++
	}
	h := &plotter.Histogram{Width: 1}
	for x, n := range counts {
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: x - 0.5, Max: x + 0.5, Weight: float64(n) / float64(len(samples))})
	}
	slices.SortFunc(h.Bins, func(a, b plotter.HistogramBin) int { return int(a.Min - b.Min) })
	return h
}

func samplesPlot(name string, sides []side, repeat uint32) *plot.Plot {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: samples in the order taken (%d runs each)", name, repeat)
	p.X.Label.Text = "sample"
	p.Y.Label.Text = "ns per run"
	for _, s := range sides {
		xys := make(plotter.XYs, len(s.samples))
		for i, v := range s.samples {
			xys[i] = plotter.XY{X: float64(i + 1), Y: v}
		}
		line, points, _ := plotter.NewLinePoints(xys)
		line.Color = withAlpha(s.color, 120)
		points.Color = s.color
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(2)
		p.Add(line, points)
		p.Legend.Add(s.label, line, points)
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// regressionPlot is Criterion's regression figure: every call's wall time
// against its repeat, each level's low quantile, and the robust line
// through them with the band its slope's interval spans.
func regressionPlot(name string, sides []side) *plot.Plot {
	p := plot.New()
	p.Title.Text = name + ": wall time of each call against its repeat"
	p.X.Label.Text = "runs per call"
	p.Y.Label.Text = "µs per call"
	const perMicrosecond = 1e3
	// Calls the machine held up for milliseconds would squash the line:
	// the axis ends at half again the fitted time of the longest level,
	// and the title counts the calls beyond.
	top, beyond := 0.0, 0
	for _, s := range sides {
		if s.fit != nil {
			last := s.fit.Levels[len(s.fit.Levels)-1]
			top = max(top, 1.5*(s.fit.Intercept.Point+s.fit.Slope.Upper*last.Runs)/perMicrosecond)
		}
	}
	for _, s := range sides {
		if s.fit == nil {
			continue
		}
		for _, w := range s.wall {
			if w/perMicrosecond > top {
				beyond++
			}
		}
		calls := make(plotter.XYs, len(s.runs))
		for i, r := range s.runs {
			calls[i] = plotter.XY{X: float64(r), Y: s.wall[i] / perMicrosecond}
		}
		scatter, _ := plotter.NewScatter(calls)
		scatter.Color = withAlpha(s.color, 70)
		scatter.Shape = draw.CircleGlyph{}
		scatter.Radius = vg.Points(1)
		p.Add(scatter)

		levels := make(plotter.XYs, len(s.fit.Levels))
		for i, l := range s.fit.Levels {
			levels[i] = plotter.XY{X: l.Runs, Y: l.Total / perMicrosecond}
		}
		marks, _ := plotter.NewScatter(levels)
		marks.Color = s.color
		marks.Shape = draw.CrossGlyph{}
		marks.Radius = vg.Points(3)
		p.Add(marks)

		lo, hi := levels[0].X, levels[len(levels)-1].X
		at := func(slope, x float64) float64 { return (s.fit.Intercept.Point + slope*x) / perMicrosecond }
		band, _ := plotter.NewPolygon(plotter.XYs{
			{X: 0, Y: at(s.fit.Slope.Lower, 0)}, {X: hi, Y: at(s.fit.Slope.Lower, hi)},
			{X: hi, Y: at(s.fit.Slope.Upper, hi)}, {X: 0, Y: at(s.fit.Slope.Upper, 0)},
		})
		band.Color = withAlpha(s.color, bandAlpha)
		band.LineStyle.Width = 0
		p.Add(band)
		line, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: at(s.fit.Slope.Point, 0)}, {X: hi, Y: at(s.fit.Slope.Point, hi)}})
		line.Color = s.color
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s: %.2f ns per run [%.2f %.2f] + %.2f µs a call (levels %g…%g)",
			s.label, s.fit.Slope.Point, s.fit.Slope.Lower, s.fit.Slope.Upper, s.fit.Intercept.Point/perMicrosecond, lo, hi), line, marks)
	}
	if beyond > 0 {
		p.Title.Text += fmt.Sprintf(" (%d beyond the axis)", beyond)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.X.Min, p.Y.Min, p.Y.Max = 0, 0, top
	p.Add(plotter.NewGrid())
	return p
}

func withAlpha(c color.NRGBA, a uint8) color.NRGBA {
	c.A = a
	return c
}

func writeSVG(path string, p *plot.Plot) error {
	w, err := p.WriterTo(16*vg.Centimeter, 9*vg.Centimeter, "svg")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return err
	}
	if err := renameio.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write figure: %w", err)
	}
	return nil
}

type htmlCase struct {
	Name, Summary         string
	Distribution, Samples string
	Regression            string // empty unless sampled linearly
}

type htmlPage struct {
	Title string
	Table string
	Cases []htmlCase
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
pre { font-size: 12px; line-height: 1.25; overflow-x: auto; background: #f7f7f7; padding: 1em; }
section { margin-top: 2em; }
.figures { display: flex; flex-wrap: wrap; gap: 1em; }
.figures img { width: 560px; max-width: 100%; border: 1px solid #ddd; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<pre>{{.Table}}</pre>
{{range .Cases}}<section>
<h2>{{.Name}}</h2>
<p>{{.Summary}}</p>
<div class="figures">
<img src="{{.Distribution}}" alt="distribution of the samples of {{.Name}}">
<img src="{{.Samples}}" alt="samples of {{.Name}} in the order taken">
{{if .Regression}}<img src="{{.Regression}}" alt="wall time of each call of {{.Name}} against its repeat, with the fitted line">{{end}}
</div>
</section>
{{end}}</body>
</html>
`))
