package htmlpage

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// WriteHTML writes a static page into dir: index.html and an SVG per
// figure, drawn with gonum/plot. It needs no network and no JavaScript.
//
// The page opens with a summary figure (a comparison's change per case,
// coloured by verdict, with the noise threshold's band; a lone program's
// time per case, split at the floor where it was measured) and a table
// whose rows link to each case's section. A section holds the
// distribution of the case's samples, the samples in the order taken,
// and, with linear sampling, Criterion's regression figure; the sides of
// a comparison are overlaid. Sections are open for a few cases and
// collapsed for many. Every file is written atomically.
// WriteHTML writes the report's page and plots into dir.
func WriteHTML(dir string, r *results.Run) error { return doc{r}.writeHTML(dir) }

func (r doc) writeHTML(dir string) error {
	d, err := safefs.OpenDir(dir, true)
	if err != nil {
		return fmt.Errorf("report directory: %w", err)
	}
	defer d.Close()
	// A page has room for every column, and every line under the table.
	var table bytes.Buffer
	if err := report.Write(&table, r.Run, report.Table, report.View{Wide: true, Verbose: true}); err != nil {
		return err
	}
	page := htmlPage{Title: r.title(), Table: table.String(), Lede: r.lede(), Summary: summaryFile, Header: r.summaryHeader()}
	rows := r.summaryRows()
	page.Open = len(r.Measured().Results) <= openSections
	var summary *figure
	if c := r.Comparison; c != nil {
		summary = changeFigure(c, rows, r.Settings.Confidence)
		page.Compared = true
	} else {
		summary = estimateFigure(rows, r.caseEstimator(), r.Settings.Confidence)
	}
	if err := writeFigure(d, summaryFile, summary); err != nil {
		return err
	}
	if series := r.seriesSides(); len(series) > 0 {
		page.Series = seriesFile
		if err := writeFigure(d, seriesFile, seriesFigure(series, r.caseEstimator())); err != nil {
			return err
		}
	}
	bins, curves := false, false
	for i, c := range r.Measured().Results {
		hc := htmlCase{ID: fmt.Sprintf("case-%d", i), Name: c.Name, Summary: c.Summary}
		hc.Row = r.summaryCells(i)
		hc.Headline = headline(hc.Row, page.Compared)
		cf, ok := r.caseFigures(i)
		if !ok {
			hc.Note = "too few samples to draw"
			page.Cases = append(page.Cases, hc)
			continue
		}
		hc.Figures = append(hc.Figures,
			htmlFigure{File: fmt.Sprintf("case-%d-distribution.svg", i), Alt: "distribution of " + cf.quantity.noun + " of " + c.Name, fig: distributionFigure(cf)},
			htmlFigure{File: fmt.Sprintf("case-%d-samples.svg", i), Alt: cf.quantity.noun + " of " + c.Name + " in the order taken", fig: samplesFigure(cf)})
		if slices.ContainsFunc(cf.sides, func(s side) bool { return s.fit != nil }) {
			hc.Figures = append(hc.Figures, htmlFigure{File: fmt.Sprintf("case-%d-regression.svg", i),
				Alt: "wall time of each call of " + c.Name + " against its repeat, with the fitted line", fig: regressionFigure(cf)})
		}
		for _, f := range hc.Figures {
			if err := writeFigure(d, f.File, f.fig); err != nil {
				return err
			}
		}
		hc.Notes = cf.notes
		page.Cases = append(page.Cases, hc)
		if cf.lattice > 0 {
			bins = true
		} else {
			curves = true
		}
	}
	page.Reading = r.reading(bins, curves)
	return writeIndex(d, pageTemplate, page)
}

const (
	summaryFile = "summary.svg"
	seriesFile  = "series.svg"
	// openSections is the most cases whose sections the page shows open:
	// beyond, the summary and its table are the page, and a case's
	// section opens on demand.
	openSections = 12
)

func (r doc) title() string {
	if c := r.Comparison; c != nil {
		return "xdpmicro: " + c.Before + " → " + c.After
	}
	p := r.Measured()
	return "xdpmicro: " + report.Title(*p)
}

// lede says in a line what the page shows.
func (r doc) lede() string {
	n := len(r.Measured().Results)
	how := "sampled flat: one figure per run of each call"
	if r.linear() {
		how = "sampled linearly: the slope of each call's wall time over its repeat"
	}
	if c := r.Comparison; c != nil {
		return fmt.Sprintf("%d cases compared by the %s (%s): %s.", len(c.Cases), c.Estimator, how, c.Tally())
	}
	return fmt.Sprintf("%d cases, %s; the %s stands for each case.", n, how, r.caseEstimator())
}

// caseEstimator is the estimator the report's figures stand by: a slope
// needs linear samples.
func (r doc) caseEstimator() results.Estimator {
	est := r.Settings.ChosenEstimator()
	if est.Fitted() && !r.linear() {
		return results.Low
	}
	return est
}

// linear says the run was sampled linearly: its cases have calls of
// several repeats.
func (r doc) linear() bool {
	for _, p := range r.Programs {
		for _, c := range p.Results {
			if len(c.Runs) > 0 {
				return true
			}
		}
	}
	return false
}

// summaryRows are the summary figure's rows, one per case: its change
// in a comparison, its time per run (and the floor's) otherwise.
func (r doc) summaryRows() []summaryRow {
	var rows []summaryRow
	if c := r.Comparison; c != nil {
		for _, cc := range c.Cases {
			rows = append(rows, summaryRow{name: printable.Line(cc.Name), change: cc.Change, diff: cc.Difference, verdict: cc.Verdict, actionChanged: cc.ActionChanged()})
		}
		return rows
	}
	p := r.Measured()
	for _, c := range p.Results {
		if c.Stats == nil {
			continue
		}
		row := summaryRow{name: printable.Line(c.Name), est: r.estimateOf(c), net: c.Net}
		if f := r.floorOf(c.Name); f != nil && f.Stats != nil {
			e := r.estimateOf(*f)
			row.floor = &e
		}
		rows = append(rows, row)
	}
	return rows
}

// estimateOf is a case's estimate as the table gives it: the low one of a
// case sampled one run a call.
func (r doc) estimateOf(c results.Case) results.Estimate {
	if c.Single {
		return c.Stats.Of(results.Low)
	}
	return c.Stats.Of(r.caseEstimator())
}

// floorOf is the floor's case of that name, if the floor was measured.
func (r doc) floorOf(name string) *results.Case {
	if r.Floor == nil {
		return nil
	}
	i := slices.IndexFunc(r.Floor.Results, func(c results.Case) bool { return c.Name == name })
	if i < 0 {
		return nil
	}
	return &r.Floor.Results[i]
}

// summaryCells are a case's cells in the page's summary table.
func (r doc) summaryCells(i int) []htmlCell {
	name := r.Measured().Results[i].Name
	interval := func(e results.Estimate) string {
		return fmt.Sprintf("%s [%s %s] ns", printable.NS(e.Point), printable.NS(e.Lower), printable.NS(e.Upper))
	}
	if c := r.Comparison; c != nil {
		j := slices.IndexFunc(c.Cases, func(cc results.ComparedCase) bool { return cc.Name == name })
		if j < 0 {
			return []htmlCell{{Text: "not compared"}}
		}
		cc := c.Cases[j]
		verdict := htmlCell{Text: printable.VerdictText(cc.Verdict, false), Class: "verdict " + string(cc.Verdict)}
		if cc.ActionChanged() {
			verdict.Text += "; ACTION CHANGED: " + cc.ActionBefore + " → " + cc.ActionAfter
			verdict.Class = "verdict " + string(results.Regressed)
		}
		return []htmlCell{
			{Text: interval(cc.Before), Class: "num"}, {Text: interval(cc.After), Class: "num"},
			{Text: fmt.Sprintf("%+.2f %% [%+.2f %+.2f]", 100*cc.Change.Point, 100*cc.Change.Lower, 100*cc.Change.Upper), Class: "num"},
			{Text: fmt.Sprintf("%+.2f ns", cc.Difference.Point), Class: "num"},
			{Text: printable.PValue(cc.P, c.Significance), Class: "num"},
			verdict,
		}
	}
	p := r.Measured()
	j := slices.IndexFunc(p.Results, func(c results.Case) bool { return c.Name == name })
	if j < 0 || p.Results[j].Stats == nil {
		return []htmlCell{{Text: "too few samples"}}
	}
	c := p.Results[j]
	cells := []htmlCell{{Text: interval(r.estimateOf(c)), Class: "num"}}
	if r.Floor != nil {
		net := "—"
		if c.Net != nil {
			net = interval(*c.Net)
		}
		cells = append(cells, htmlCell{Text: net, Class: "num"})
	}
	return append(cells, htmlCell{Text: fmt.Sprint(c.Stats.N), Class: "num"})
}

// headline is what a collapsed section shows beside the case's name:
// its change and verdict, or its estimate.
func headline(row []htmlCell, compared bool) string {
	switch {
	case compared && len(row) == 6:
		return row[2].Text + ", " + row[5].Text
	case len(row) > 0:
		return row[0].Text
	}
	return ""
}

// reading says how to read a case's figures: bins and curves say
// whether some distributions were drawn as histograms, some as curves.
func (r doc) reading(bins, curves bool) string {
	var parts []string
	switch {
	case r.linear():
		parts = append(parts, "Each case's figures show its calls' times per run (a call's wall time less the fitted cost of a call, over its repeat): "+
			"their distribution, the calls in the order taken, and the wall time of each call against its repeat, "+
			"whose fitted slope is the estimate; the floor's line is grey where it was measured.")
	case r.Environment.Timer == "" || r.Environment.Timer == "kernel":
		parts = append(parts, "Each case's figures show the kernel's figures, whole ns per run: their distribution and the samples in the order taken.")
	default:
		parts = append(parts, "Each case's figures show the samples' times per run: their distribution and the samples in the order taken.")
	}
	if bins {
		parts = append(parts, "Values that are all whole ns are binned by the ns.")
	}
	if curves {
		parts = append(parts, "Curves are kernel densities, of Sheather and Jones's bandwidth where the values are dense and wider where they are sparse.")
	}
	parts = append(parts, "Dashed lines and bands are the estimates and their intervals.",
		"Axes end at Tukey's outer fences (3 IQR beyond the quartiles) of each side's values, or at their 5th and 95th percentiles where those lie further out: "+
			"the legends count the values beyond, drawn as arrows at the edge.")
	return strings.Join(parts, " ")
}

// summaryHeader names the summary table's columns after the case's.
func (r doc) summaryHeader() []string {
	if c := r.Comparison; c != nil {
		return []string{"before (" + c.Estimator + ")", "after (" + c.Estimator + ")",
			fmt.Sprintf("change [%g %% CI]", 100*r.Settings.Confidence), "Δ", "p", "verdict"}
	}
	h := []string{fmt.Sprintf("%s [%g %% CI]", r.caseEstimator(), 100*r.Settings.Confidence)}
	if r.Floor != nil {
		h = append(h, "net of floor")
	}
	return append(h, "samples")
}

// seriesSides are the programs' series by frame size, for --size.
func (r doc) seriesSides() []seriesSide {
	var out []seriesSide
	for i, p := range r.Programs {
		if len(p.Series) > 0 {
			out = append(out, seriesSide{side: r.sideName(i), series: p.Series})
		}
	}
	return out
}

// sideName is "before" or "after" in a comparison, a program's label
// when several were measured, and nothing for a lone program: legends
// name the case and the side, never the program, whose name can be a
// case's ("fizzbuzz").
func (r doc) sideName(i int) string {
	switch {
	case r.Comparison != nil && len(r.Programs) == 2:
		return []string{"before", "after"}[i]
	case len(r.Programs) > 1:
		if l := r.Programs[i].Label; l != "" {
			return l
		}
		return fmt.Sprintf("program %d", i+1)
	}
	return ""
}

// side is one program's samples of a case, as drawn.
type side struct {
	name string // the case and the side: "fizz before"
	// values are what the distribution and the samples figures draw, in
	// the order taken.
	values []float64
	what   results.Estimator
	est    results.Estimate
	color  color.NRGBA
	// runs and wall are linear sampling's calls, fit their fit.
	runs []uint32
	wall []float64
	fit  *results.Fit
}

// quantity says what a case's values are.
type quantity struct {
	noun    string // "the kernel's figures", "each call's time per run"
	unit    string // the axis label
	index   string // what one value is: a sample, a call
	repeats string // the runs behind each value
	// resolution is the values' own quantum: no density is finer.
	resolution float64
}

// caseFigures is what a case's figures draw.
type caseFigures struct {
	name     string // escaped to one line, as summaryRow's
	sides    []side
	floor    *side // the floor's fit, drawn in the regression figure
	quantity quantity
	span     span
	// lattice is the quantum of values that are all whole quanta (the
	// kernel's whole nanoseconds): they are drawn as a histogram of it.
	// Zero for continuous values, drawn as a density curve.
	lattice float64
	notes   []string
}

// caseFigures gathers the case of index i in every program that has it;
// ok is false when none has statistics.
func (r doc) caseFigures(i int) (caseFigures, bool) {
	name := r.Measured().Results[i].Name
	cf := caseFigures{name: printable.Line(name)}
	linear, loads := false, 1
	for pi, p := range r.Programs {
		j := slices.IndexFunc(p.Results, func(c results.Case) bool { return c.Name == name })
		if j < 0 || p.Results[j].Stats == nil {
			continue
		}
		c := p.Results[j]
		s := side{name: printable.Line(strings.TrimSpace(name + " " + r.sideName(pi))), what: r.caseEstimator(),
			color: sideColors[pi%len(sideColors)], runs: c.Runs, wall: c.Wall, fit: c.Stats.Fit}
		if cc := r.comparedCase(name); cc != nil && cc.Estimator != "" {
			s.what = cc.Estimator
		}
		if c.Single || (s.what.Fitted() && s.fit == nil) {
			s.what = results.Low
		}
		s.est = c.Stats.Of(s.what)
		if s.what.Fitted() {
			// Each call's time per run, less the call's fitted fixed
			// cost: continuous, and centred where the slope is.
			linear = true
			s.values = printable.CallTimes(c)
		} else {
			s.values = c.Samples
		}
		cf.sides = append(cf.sides, s)
		loads = max(loads, 1+len(p.Placements))
	}
	if loads > 1 {
		cf.notes = append(cf.notes, fmt.Sprintf("The figures draw the first of the %d loads of each build; the estimates compared are over all of them.", loads))
	}
	if len(cf.sides) == 0 {
		return cf, false
	}
	env := r.Environment
	cf.quantity = quantity{noun: "the samples", unit: "ns per run", index: "sample", resolution: env.Resolution,
		repeats: fmt.Sprintf("%d runs each", env.Repeat)}
	switch {
	case linear:
		cf.quantity.noun = "each call's time per run"
		cf.quantity.index = "call"
		cf.quantity.repeats = "repeats " + printable.Repeats(env)
		cf.quantity.resolution = 0 // a wall clock's ns over thousands of runs
	case env.Timer == "" || env.Timer == "kernel":
		cf.quantity.noun = "the kernel's figures"
	}
	if c := r.Measured().Results[i]; c.Single {
		cf.quantity.repeats = printable.RepeatsOf(env, c)
	}
	var sets [][]float64
	var marks []float64
	for _, s := range cf.sides {
		sets = append(sets, s.values)
		marks = append(marks, s.est.Lower, s.est.Upper)
	}
	cf.lattice = latticeOf(sets, cf.quantity.resolution)
	cf.span = bulkSpan(sets, cf.lattice, marks...)
	if f := r.floorOf(name); f != nil && f.Stats != nil && f.Stats.Fit != nil && (r.Comparison == nil || r.Comparison.Mode == results.Interleaved) {
		cf.floor = &side{name: "floor (the empty program)", color: floorColor, runs: f.Runs, wall: f.Wall, fit: f.Stats.Fit}
	}
	return cf, true
}

// comparedCase is the comparison's case of that name, if any.
func (r doc) comparedCase(name string) *results.ComparedCase {
	if r.Comparison == nil {
		return nil
	}
	i := slices.IndexFunc(r.Comparison.Cases, func(cc results.ComparedCase) bool { return cc.Name == name })
	if i < 0 {
		return nil
	}
	return &r.Comparison.Cases[i]
}

// latticeOf is the quantum every value is a whole multiple of, when it is
// coarse enough to see (the kernel's whole nanoseconds): the resolution
// given, or 1 ns, the kernel's figure's. Zero when the values are
// continuous at the scale drawn.
func latticeOf(sets [][]float64, resolution float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, values := range sets {
		for _, v := range values {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	for _, q := range []float64{1, resolution} {
		if !(q > 0) {
			continue
		}
		whole := true
		for _, values := range sets {
			for _, v := range values {
				if k := v / q; math.Abs(k-math.Round(k)) > 1e-6 {
					whole = false
					break
				}
			}
		}
		// A quantum the axis would show as 400 bins or more is no lattice
		// to see: draw a curve.
		if whole && (hi-lo)/q < 400 {
			return q
		}
	}
	return 0
}

type htmlFigure struct {
	File, Alt string
	fig       *figure
}

type htmlCell struct{ Text, Class string }

type htmlCase struct {
	ID, Name, Summary string
	Headline          string // beside the name, in the section's summary line
	Row               []htmlCell
	Figures           []htmlFigure
	Notes             []string
	Note              string // why there are no figures
}

type htmlPage struct {
	Title, Lede    string
	Reading        string // how to read a case's figures
	Summary        string
	Series         string
	Compared, Open bool
	Header         []string
	Table          string
	Cases          []htmlCase
}

// pageHead opens every page the package writes: its title and the style
// both pages share, the rest of each page's style to follow.
const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1400px; }
pre { font-size: 12px; line-height: 1.25; overflow-x: auto; background: #f7f7f7; padding: 1em; }
figure { margin: 1em 0; }
`

var pageTemplate = template.Must(template.New("page").Parse(pageHead + `figure.summary img { max-width: 100%; }
div.cases { max-width: 100%; overflow-x: auto; margin: 1em 0; }
table.cases { border-collapse: collapse; font-size: 14px; }
table.cases th, table.cases td { padding: 0.25em 0.6em; border-bottom: 1px solid #ddd; text-align: left; white-space: nowrap; vertical-align: top; }
table.cases td.packet { white-space: normal; min-width: 10em; max-width: 16em; }
table.cases td.num { text-align: right; font-variant-numeric: tabular-nums; font-family: monospace; font-size: 13px; }
td.verdict { font-weight: bold; }
td.improved { color: #2c7a2c; } td.regressed { color: #c62828; } td.no_change { color: #666; } td.within_noise { color: #b36b00; }
details.case { margin-top: 1em; border-top: 1px solid #ccc; padding-top: 0.5em; }
details.case > summary { cursor: pointer; }
details.case > summary h2 { display: inline; font-size: 1.3em; margin-right: 0.5em; }
.figures { display: flex; flex-wrap: wrap; gap: 1em; }
.figures img { width: 640px; max-width: 100%; border: 1px solid #ddd; }
.muted { color: #666; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>{{.Lede}}</p>
<figure class="summary" id="summary">
<img src="{{.Summary}}" alt="summary: {{if .Compared}}the change of every case, coloured by verdict{{else}}the time per run of every case{{end}}">
</figure>
{{if .Series}}<figure class="summary"><img src="{{.Series}}" alt="each case's time per run by frame size"></figure>
{{end}}<div class="cases"><table class="cases">
<thead><tr><th>case</th><th>packet</th>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Cases}}<tr><td><a href="#{{.ID}}">{{.Name}}</a></td><td class="muted packet">{{.Summary}}</td>{{range .Row}}<td class="{{.Class}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
<details{{if .Open}} open{{end}}>
<summary>The table and notes as the terminal prints them</summary>
<pre>{{.Table}}</pre>
</details>
<p class="muted">{{.Reading}}</p>
{{range .Cases}}<details class="case"{{if $.Open}} open{{end}}>
<summary><h2>{{.Name}}</h2>{{.Headline}} <span class="muted">· {{.Summary}}</span></summary>
<div id="{{.ID}}">
{{if .Note}}<p>{{.Note}}</p>{{end}}{{range .Notes}}<p class="muted">{{.}}</p>
{{end}}<div class="figures">
{{range .Figures}}<img src="{{.File}}" alt="{{.Alt}}" loading="lazy">
{{end}}</div>
<p><a href="#summary">back to the summary</a></p>
</div>
</details>
{{end}}</body>
</html>
`))

// doc is a report as this package renders it.
type doc struct{ *results.Run }

// writeIndex writes page through t as d's index.html.
func writeIndex(d *safefs.Dir, t *template.Template, page any) error {
	var out bytes.Buffer
	if err := t.Execute(&out, page); err != nil {
		return err
	}
	if err := d.WriteFile("index.html", out.Bytes()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
