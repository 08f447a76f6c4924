package htmlpage

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/results"
)

// Colours of the sides of a comparison (or of a lone program), and of the
// verdicts. No side is red or green: those are the verdicts'.
var (
	sideColors = []color.NRGBA{{R: 31, G: 119, B: 180, A: 255}, {R: 148, G: 103, B: 189, A: 255}}
	floorColor = color.NRGBA{R: 150, G: 150, B: 150, A: 255}
	bandAlpha  = uint8(50)

	verdictColors = map[results.Verdict]color.NRGBA{
		results.Improved:    {R: 44, G: 160, B: 44, A: 255},
		results.Regressed:   {R: 214, G: 39, B: 40, A: 255},
		results.NoChange:    {R: 110, G: 110, B: 110, A: 255},
		results.WithinNoise: {R: 230, G: 145, B: 0, A: 255},
	}
	verdictOrder = []results.Verdict{results.Improved, results.Regressed, results.NoChange, results.WithinNoise}
)

func withAlpha(c color.NRGBA, a uint8) color.NRGBA {
	c.A = a
	return c
}

// figure is a plot and its legend, drawn below the axes so that it never
// hides the data.
type figure struct {
	plot          *plot.Plot
	legend        plot.Legend
	entries       int
	width, height vg.Length
}

func newFigure(title string) *figure {
	p := plot.New()
	p.Title.Text = title
	p.X.Tick.Marker, p.Y.Tick.Marker = evenTicks{}, evenTicks{}
	l := plot.NewLegend()
	l.Left, l.Top = true, true
	l.TextStyle.Font.Size = vg.Points(10)
	l.Padding = vg.Points(3)
	return &figure{plot: p, legend: l, width: 16 * vg.Centimeter, height: 9 * vg.Centimeter}
}

// add adds a legend entry.
func (f *figure) add(text string, thumbs ...plot.Thumbnailer) {
	f.legend.Add(text, thumbs...)
	f.entries++
}

// svg draws the figure, its legend in a strip below the axes.
func (f *figure) svg() ([]byte, error) {
	var strip vg.Length
	if f.entries > 0 {
		strip = vg.Length(f.entries)*(f.legend.TextStyle.Height("Xg")+f.legend.Padding) + vg.Points(10)
	}
	c := vgsvg.New(f.width, f.height+strip)
	dc := draw.New(c)
	f.plot.Draw(draw.Crop(dc, 0, 0, strip, 0))
	if strip > 0 {
		f.legend.Draw(draw.Crop(dc, vg.Points(8), 0, vg.Points(4), -(f.height + vg.Points(4))))
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeFigure(d *safefs.Dir, name string, f *figure) error {
	data, err := f.svg()
	if err != nil {
		return err
	}
	if err := d.WriteFile(name, data); err != nil {
		return fmt.Errorf("write figure: %w", err)
	}
	return nil
}

// arrowGlyph is a filled triangle pointing along (dx, dy): the mark of
// values beyond an axis, drawn at its edge.
type arrowGlyph struct{ dx, dy float64 }

var (
	arrowRight = arrowGlyph{dx: 1}
	arrowLeft  = arrowGlyph{dx: -1}
	arrowUp    = arrowGlyph{dy: 1}
	arrowDown  = arrowGlyph{dy: -1}
)

func (a arrowGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	tip := vg.Point{X: pt.X + vg.Length(a.dx)*r, Y: pt.Y + vg.Length(a.dy)*r}
	// The base is perpendicular to the direction, behind the point.
	px, py := vg.Length(-a.dy)*r, vg.Length(a.dx)*r
	back := vg.Point{X: pt.X - vg.Length(a.dx)*r, Y: pt.Y - vg.Length(a.dy)*r}
	var p vg.Path
	p.Move(tip)
	p.Line(vg.Point{X: back.X + px, Y: back.Y + py})
	p.Line(vg.Point{X: back.X - px, Y: back.Y - py})
	p.Close()
	c.SetColor(sty.Color)
	c.Fill(p)
}

// addLine adds a polyline, dashed or not. The adders return what they
// added, for a legend's thumbnail: never nil, though a NaN point, which
// plotter refuses, leaves it out of the plot.
func addLine(p *plot.Plot, xys plotter.XYs, c color.Color, width vg.Length, dashed bool) *plotter.Line {
	l, err := plotter.NewLine(xys)
	if err != nil {
		l = &plotter.Line{}
	} else {
		p.Add(l)
	}
	l.Color, l.Width = c, width
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	return l
}

// addBox adds a filled rectangle.
func addBox(p *plot.Plot, x0, x1, y0, y1 float64, c color.Color) *plotter.Polygon {
	box, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	if err != nil {
		box = &plotter.Polygon{}
	} else {
		p.Add(box)
	}
	box.Color = c
	box.LineStyle.Width = 0
	return box
}

// addMarks adds a glyph at each point.
func addMarks(p *plot.Plot, xys plotter.XYs, c color.Color, shape draw.GlyphDrawer, radius vg.Length) *plotter.Scatter {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		s = &plotter.Scatter{}
	} else {
		p.Add(s)
	}
	s.Color, s.Shape, s.Radius = c, shape, radius
	return s
}

// glyphThumb is a legend thumbnail of one glyph.
type glyphThumb struct{ style draw.GlyphStyle }

func (g glyphThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(g.style, c.Center())
}

// intervalThumb is a legend thumbnail of an interval: a line with caps.
type intervalThumb struct{ color color.Color }

func (t intervalThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	h := (c.Max.Y - c.Min.Y) / 3
	sty := draw.LineStyle{Color: t.color, Width: vg.Points(1.2)}
	c.StrokeLine2(sty, c.Min.X+2, y, c.Max.X-2, y)
	c.StrokeLine2(sty, c.Min.X+2, y-h, c.Min.X+2, y+h)
	c.StrokeLine2(sty, c.Max.X-2, y-h, c.Max.X-2, y+h)
}

// boxThumb is a legend thumbnail of a filled box.
type boxThumb struct{ color color.Color }

func (b boxThumb) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(b.color, c.ClipPolygonXY(pts))
}

// beyondText says how many of n values lie off the axis on either side.
func beyondText(below, above, n int, s span, unit string) string {
	var parts []string
	if below > 0 {
		parts = append(parts, fmt.Sprintf("%d below %s %s", below, printable.NS(s.lo), unit))
	}
	if above > 0 {
		parts = append(parts, fmt.Sprintf("%d above %s %s", above, printable.NS(s.hi), unit))
	}
	return fmt.Sprintf("%s of %d off the axis, marked at its edge", strings.Join(parts, " and "), n)
}

// estimateText is a legend's "slope 19.20 ns [19.19 19.21]".
func estimateText(what results.Estimator, e results.Estimate) string {
	return fmt.Sprintf("%s %s ns [%s %s]", what, printable.NS(e.Point), printable.NS(e.Lower), printable.NS(e.Upper))
}

// distributionFigure draws each side's values: a histogram of the quantum
// where they are whole quanta (the kernel's figures), else a density
// curve whose bandwidth keeps a sub-nanosecond spike; each side's
// estimate and interval marked, the axis clipped to the bulk.
func distributionFigure(c caseFigures) *figure {
	f := newFigure(c.name + ": distribution of " + c.quantity.noun)
	p := f.plot
	p.X.Label.Text = c.quantity.unit
	p.Y.Label.Text = "density (share per ns)"
	s := c.span
	peak := 0.0
	for _, sd := range c.sides {
		sorted := slices.Sorted(slices.Values(sd.values))
		if q := c.lattice; q > 0 {
			hist := latticeHistogram(sorted, q, s)
			hist.FillColor = withAlpha(sd.color, 110)
			hist.LineStyle.Color = sd.color
			hist.LineStyle.Width = vg.Points(0.5)
			p.Add(hist)
			for _, b := range hist.Bins {
				peak = max(peak, b.Weight)
			}
			f.add(sd.name+": "+estimateText(sd.what, sd.est), boxThumb{withAlpha(sd.color, 110)})
		} else {
			const points = 400
			xs := make([]float64, points+1)
			for i := range xs {
				xs[i] = s.lo + (s.hi-s.lo)*float64(i)/points
			}
			d, h := Density(sorted, xs, s.lo, s.hi, c.quantity.resolution)
			xys := make(plotter.XYs, len(xs))
			for i := range xs {
				xys[i] = plotter.XY{X: xs[i], Y: d[i]}
				peak = max(peak, d[i])
			}
			l := addLine(p, xys, sd.color, vg.Points(1.2), false)
			l.FillColor = withAlpha(sd.color, 40)
			f.add(fmt.Sprintf("%s: %s (curve: bandwidth %.2g ns)", sd.name, estimateText(sd.what, sd.est), h), l)
		}
	}
	top := peak * 1.08
	for _, sd := range c.sides {
		addBox(p, max(sd.est.Lower, s.lo), min(sd.est.Upper, s.hi), 0, top, withAlpha(sd.color, bandAlpha))
		addLine(p, plotter.XYs{{X: sd.est.Point, Y: 0}, {X: sd.est.Point, Y: top}}, sd.color, vg.Points(1), true)
	}
	for k, sd := range c.sides {
		below, above := s.beyond(sd.values)
		if below+above == 0 {
			continue
		}
		y := top * (0.04 + 0.06*float64(k))
		glyph := draw.GlyphStyle{Color: sd.color, Radius: vg.Points(4), Shape: arrowRight}
		if above > 0 {
			addMarks(p, plotter.XYs{{X: s.hi, Y: y}}, sd.color, arrowRight, vg.Points(4))
		}
		if below > 0 {
			addMarks(p, plotter.XYs{{X: s.lo, Y: y}}, sd.color, arrowLeft, vg.Points(4))
			if above == 0 {
				glyph.Shape = arrowLeft
			}
		}
		f.add(sd.name+": "+beyondText(below, above, len(sd.values), s, "ns"), glyphThumb{glyph})
	}
	p.X.Min, p.X.Max = s.lo, s.hi
	p.Y.Min, p.Y.Max = 0, top
	return f
}

// latticeHistogram bins values that are whole quanta, one bin per
// quantum centred on it, as a density; bins outside s are left out.
func latticeHistogram(sorted []float64, quantum float64, s span) *plotter.Histogram {
	counts := map[float64]int{}
	for _, v := range sorted {
		counts[math.Round(v/quantum)]++
	}
	h := &plotter.Histogram{Width: quantum}
	for k, n := range counts {
		x := k * quantum
		if !s.contains(x) {
			continue
		}
		h.Bins = append(h.Bins, plotter.HistogramBin{Min: x - quantum/2, Max: x + quantum/2, Weight: float64(n) / float64(len(sorted)) / quantum})
	}
	slices.SortFunc(h.Bins, func(a, b plotter.HistogramBin) int { return int(math.Round((a.Min - b.Min) / quantum)) })
	return h
}

// samplesFigure draws the values in the order taken, to show drift and
// regimes; values beyond the axis are drawn at its edge as arrows.
func samplesFigure(c caseFigures) *figure {
	f := newFigure(fmt.Sprintf("%s: %s in the order taken (%s)", c.name, c.quantity.noun, c.quantity.repeats))
	p := f.plot
	p.X.Label.Text = c.quantity.index
	p.Y.Label.Text = c.quantity.unit
	p.X.Tick.Marker = integerTicks{}
	s := c.span
	n := 0
	for _, sd := range c.sides {
		var in, high, low plotter.XYs
		for i, v := range sd.values {
			x := float64(i + 1)
			switch {
			case v > s.hi:
				high = append(high, plotter.XY{X: x, Y: s.hi})
			case v < s.lo:
				low = append(low, plotter.XY{X: x, Y: s.lo})
			default:
				in = append(in, plotter.XY{X: x, Y: v})
			}
		}
		n = max(n, len(sd.values))
		addMarks(p, in, withAlpha(sd.color, 170), draw.CircleGlyph{}, vg.Points(1.3))
		f.add(sd.name, glyphThumb{draw.GlyphStyle{Color: sd.color, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}})
		if len(high) > 0 {
			addMarks(p, high, sd.color, arrowUp, vg.Points(3))
		}
		if len(low) > 0 {
			addMarks(p, low, sd.color, arrowDown, vg.Points(3))
		}
		if len(high)+len(low) > 0 {
			shape := arrowUp
			if len(high) == 0 {
				shape = arrowDown
			}
			f.add(sd.name+": "+beyondText(len(low), len(high), len(sd.values), s, "ns"),
				glyphThumb{draw.GlyphStyle{Color: sd.color, Radius: vg.Points(3), Shape: shape}})
		}
	}
	for _, sd := range c.sides {
		addLine(p, plotter.XYs{{X: 0, Y: sd.est.Point}, {X: float64(n + 1), Y: sd.est.Point}}, sd.color, vg.Points(1), true)
	}
	p.X.Min, p.X.Max = 0, float64(n+1)
	p.Y.Min, p.Y.Max = s.lo, s.hi
	p.Add(plotter.NewGrid())
	return f
}

// regressionFigure is Criterion's regression figure: every call's wall
// time against its repeat, each level's low quantile, and the robust line
// through them with the band its slope's interval spans; the floor's line
// too, where it was measured.
func regressionFigure(c caseFigures) *figure {
	f := newFigure(c.name + ": wall time of each call against its repeat")
	p := f.plot
	p.X.Label.Text = "runs per call"
	p.Y.Label.Text = "µs per call"
	p.X.Tick.Marker = integerTicks{}
	const perMicrosecond = 1e3
	// Calls the machine held up for milliseconds would squash the line:
	// the axis ends at half again the fitted time of the longest level.
	top, right := 0.0, 0.0
	fits := c.sides
	if c.floor != nil {
		fits = append(slices.Clone(fits), *c.floor)
	}
	for _, s := range fits {
		if s.fit != nil {
			last := s.fit.Levels[len(s.fit.Levels)-1]
			top = max(top, 1.5*(s.fit.Intercept.Point+s.fit.Slope.Upper*last.Runs)/perMicrosecond)
			right = max(right, last.Runs)
		}
	}
	for _, s := range fits {
		if s.fit == nil {
			continue
		}
		var calls, beyond plotter.XYs
		for i, r := range s.runs {
			if y := s.wall[i] / perMicrosecond; y > top {
				beyond = append(beyond, plotter.XY{X: float64(r), Y: top})
			} else {
				calls = append(calls, plotter.XY{X: float64(r), Y: y})
			}
		}
		addMarks(p, calls, withAlpha(s.color, 70), draw.CircleGlyph{}, vg.Points(1))
		if len(beyond) > 0 {
			addMarks(p, beyond, withAlpha(s.color, 160), arrowUp, vg.Points(2.5))
		}
		levels := make(plotter.XYs, len(s.fit.Levels))
		for i, l := range s.fit.Levels {
			levels[i] = plotter.XY{X: l.Runs, Y: l.Total / perMicrosecond}
		}
		marks := addMarks(p, levels, s.color, draw.CrossGlyph{}, vg.Points(3))
		at := func(slope, x float64) float64 { return (s.fit.Intercept.Point + slope*x) / perMicrosecond }
		band, err := plotter.NewPolygon(plotter.XYs{
			{X: 0, Y: at(s.fit.Slope.Lower, 0)}, {X: right, Y: at(s.fit.Slope.Lower, right)},
			{X: right, Y: at(s.fit.Slope.Upper, right)}, {X: 0, Y: at(s.fit.Slope.Upper, 0)},
		})
		if err == nil {
			band.Color = withAlpha(s.color, bandAlpha)
			band.LineStyle.Width = 0
			p.Add(band)
		}
		line := addLine(p, plotter.XYs{{X: 0, Y: at(s.fit.Slope.Point, 0)}, {X: right, Y: at(s.fit.Slope.Point, right)}}, s.color, vg.Points(1.5), false)
		f.add(fmt.Sprintf("%s: %s ns per run [%s %s] + %.2f µs a call",
			s.name, printable.NS(s.fit.Slope.Point), printable.NS(s.fit.Slope.Lower), printable.NS(s.fit.Slope.Upper), s.fit.Intercept.Point/perMicrosecond), line, marks)
		if len(beyond) > 0 {
			f.add(fmt.Sprintf("%s: %d of %d calls above %.0f µs, marked at the edge", s.name, len(beyond), len(s.runs), top),
				glyphThumb{draw.GlyphStyle{Color: s.color, Radius: vg.Points(3), Shape: arrowUp}})
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, right*1.02, 0, top
	p.Add(plotter.NewGrid())
	return f
}

// summaryRow is one row of a summary figure.
type summaryRow struct {
	// name is the case's, escaped to one line (printable.Line): gonum
	// draws a newline as a line of its own, which a name could use to
	// put a label of its making beside the figures'.
	name string
	// A comparison's row: the relative change and its verdict.
	change        results.Estimate
	diff          results.Estimate
	verdict       results.Verdict
	actionChanged bool
	// A program's row: the estimate, and the floor's and the net, if
	// measured.
	est        results.Estimate
	floor, net *results.Estimate
}

// summarySize is a summary figure's size for rows rows.
func summarySize(rows int) (vg.Length, vg.Length) {
	return 24 * vg.Centimeter, 3*vg.Centimeter + vg.Length(rows)*0.55*vg.Centimeter
}

// rowTicks labels rows, the first at the top.
func rowTicks(rows []summaryRow) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(rows))
	for i, r := range rows {
		ticks[i] = plot.Tick{Value: rowY(i, len(rows)), Label: r.name}
	}
	return ticks
}

func rowY(i, n int) float64 { return float64(n - i) }

// changeFigure is a comparison's summary: each case's change with its
// interval, coloured by verdict, with the band of changes too small to
// count (the noise threshold).
func changeFigure(c *results.Comparison, rows []summaryRow, confidence float64) *figure {
	f := newFigure(fmt.Sprintf("change of the %s per case, with its %g %% interval", c.Estimator, 100*confidence))
	f.width, f.height = summarySize(len(rows))
	p := f.plot
	p.X.Label.Text = "change (%)"
	p.Y.Tick.Marker = rowTicks(rows)
	lo, hi := -100*c.NoiseThreshold, 100*c.NoiseThreshold
	for _, r := range rows {
		lo, hi = min(lo, 100*r.change.Lower), max(hi, 100*r.change.Upper)
	}
	pad := (hi - lo) * 0.05
	// Room on the right for each row's figures.
	lo, hi = lo-pad, hi+(hi-lo)*0.3
	n := float64(len(rows))
	band := addBox(p, -100*c.NoiseThreshold, 100*c.NoiseThreshold, 0.4, n+0.6, color.NRGBA{R: 120, G: 120, B: 120, A: 45})
	addLine(p, plotter.XYs{{X: 0, Y: 0.4}, {X: 0, Y: n + 0.6}}, color.NRGBA{A: 255}, vg.Points(0.6), false)
	var labels plotter.XYLabels
	for i, r := range rows {
		y := rowY(i, len(rows))
		col := verdictColors[r.verdict]
		addLine(p, plotter.XYs{{X: 100 * r.change.Lower, Y: y}, {X: 100 * r.change.Upper, Y: y}}, col, vg.Points(2), false)
		for _, x := range []float64{r.change.Lower, r.change.Upper} {
			addLine(p, plotter.XYs{{X: 100 * x, Y: y - 0.18}, {X: 100 * x, Y: y + 0.18}}, col, vg.Points(1.2), false)
		}
		addMarks(p, plotter.XYs{{X: 100 * r.change.Point, Y: y}}, col, draw.CircleGlyph{}, vg.Points(3.5))
		labels.XYs = append(labels.XYs, plotter.XY{X: 100 * r.change.Upper, Y: y})
		text := fmt.Sprintf("%+.2f %% (%+.2f ns), %s", 100*r.change.Point, r.diff.Point, printable.VerdictText(r.verdict, false))
		if r.actionChanged {
			text += "; ACTION CHANGED"
		}
		labels.Labels = append(labels.Labels, text)
	}
	addRowLabels(p, labels)
	for _, v := range verdictOrder {
		f.add(printable.VerdictText(v, false), glyphThumb{draw.GlyphStyle{Color: verdictColors[v], Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}})
	}
	f.add(fmt.Sprintf("noise threshold: a change counts beyond ±%g %% (and one quantum, %.3g ns)", 100*c.NoiseThreshold, c.Quantum), band)
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = 0.4, n+0.6
	p.Add(plotter.NewGrid())
	return f
}

// estimateFigure is a lone program's summary: each case's time per run
// with its interval, from zero; where the floor was measured, the bar is
// split at it, the floor grey and the case's own time, net of it, in
// colour.
func estimateFigure(rows []summaryRow, what results.Estimator, confidence float64) *figure {
	f := newFigure(fmt.Sprintf("%s per case, with its %g %% interval", what, 100*confidence))
	f.width, f.height = summarySize(len(rows))
	p := f.plot
	p.X.Label.Text = "ns per run"
	p.Y.Tick.Marker = rowTicks(rows)
	hi := 0.0
	for _, r := range rows {
		hi = max(hi, r.est.Upper)
	}
	col := sideColors[0]
	var labels plotter.XYLabels
	var floorBox, netBox, totalBox *plotter.Polygon
	for i, r := range rows {
		y := rowY(i, len(rows))
		from := 0.0
		text := printable.NS(r.est.Point) + " ns"
		if r.floor != nil {
			from = r.floor.Point
			floorBox = addBox(p, 0, from, y-0.3, y+0.3, withAlpha(floorColor, 120))
			if r.net != nil {
				text += fmt.Sprintf(", net %s [%s %s]", printable.NS(r.net.Point), printable.NS(r.net.Lower), printable.NS(r.net.Upper))
			}
			netBox = addBox(p, from, r.est.Point, y-0.3, y+0.3, withAlpha(col, 150))
		} else {
			totalBox = addBox(p, 0, r.est.Point, y-0.3, y+0.3, withAlpha(col, 150))
		}
		addLine(p, plotter.XYs{{X: r.est.Lower, Y: y}, {X: r.est.Upper, Y: y}}, color.Black, vg.Points(1.2), false)
		for _, x := range []float64{r.est.Lower, r.est.Upper} {
			addLine(p, plotter.XYs{{X: x, Y: y - 0.2}, {X: x, Y: y + 0.2}}, color.Black, vg.Points(1), false)
		}
		labels.XYs = append(labels.XYs, plotter.XY{X: r.est.Upper, Y: y})
		labels.Labels = append(labels.Labels, text)
	}
	addRowLabels(p, labels)
	if totalBox != nil {
		f.add(fmt.Sprintf("time per run (%s)", what), totalBox)
	}
	if netBox != nil {
		f.add(fmt.Sprintf("time per run (%s) net of the floor", what), netBox)
	}
	if floorBox != nil {
		f.add("floor: the empty program of the same type, measured with each case in the same rounds", floorBox)
	}
	f.add(fmt.Sprintf("%g %% interval of the time per run", 100*confidence), intervalThumb{color.Black})
	n := float64(len(rows))
	p.X.Min, p.X.Max = 0, hi*1.45
	p.Y.Min, p.Y.Max = 0.4, n+0.6
	p.Add(plotter.NewGrid())
	return f
}

// seriesFigure draws each case's estimate by frame size, for --size.
func seriesFigure(programs []seriesSide, what results.Estimator) *figure {
	f := newFigure(fmt.Sprintf("%s by frame size", what))
	f.width, f.height = 24*vg.Centimeter, 10*vg.Centimeter
	p := f.plot
	p.X.Label.Text = "frame size (bytes)"
	p.Y.Label.Text = "ns per run"
	p.X.Tick.Marker = integerTicks{}
	palette := []color.NRGBA{{R: 31, G: 119, B: 180, A: 255}, {R: 255, G: 127, B: 14, A: 255}, {R: 44, G: 160, B: 44, A: 255},
		{R: 214, G: 39, B: 40, A: 255}, {R: 148, G: 103, B: 189, A: 255}, {R: 140, G: 86, B: 75, A: 255},
		{R: 227, G: 119, B: 194, A: 255}, {R: 127, G: 127, B: 127, A: 255}, {R: 188, G: 189, B: 34, A: 255}, {R: 23, G: 190, B: 207, A: 255}}
	k := 0
	for _, ps := range programs {
		for _, s := range ps.series {
			col := palette[k%len(palette)]
			k++
			xys := make(plotter.XYs, len(s.Points))
			for i, pt := range s.Points {
				xys[i] = plotter.XY{X: float64(pt.Size), Y: pt.Estimate.Point}
				addLine(p, plotter.XYs{{X: float64(pt.Size), Y: pt.Estimate.Lower}, {X: float64(pt.Size), Y: pt.Estimate.Upper}}, col, vg.Points(1.5), false)
			}
			line := addLine(p, xys, col, vg.Points(1.2), false)
			marks := addMarks(p, xys, col, draw.CircleGlyph{}, vg.Points(2.5))
			f.add(printable.Line(strings.TrimSpace(s.Case+" "+ps.side)), line, marks)
		}
	}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	return f
}

// seriesSide is one program's series, named by its side.
type seriesSide struct {
	side   string
	series []results.Series
}

// addRowLabels writes a summary's labels right of each row's interval.
func addRowLabels(p *plot.Plot, labels plotter.XYLabels) {
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(9)
		l.TextStyle[i].YAlign = draw.YCenter
	}
	l.Offset = vg.Point{X: vg.Points(6)}
	p.Add(l)
}
