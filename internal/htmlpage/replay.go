package htmlpage

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// The page of `xdpmicro replay --report DIR`: the cost per packet over
// the sequence, the kinds of packets as bars of their shares of packets
// and of time, before and after where two were compared, a table of the
// kinds, and the report's table as the terminal has it.

const (
	replaySequenceFile = "sequence.svg"
	replayGroupsFile   = "groups.svg"
	// maxBarRows is the most kinds drawn as bars: the rest are in the
	// table.
	maxBarRows = 16
)

// WriteReplayHTML writes a replay's page and its figures into dir, each
// file atomically.
func WriteReplayHTML(dir string, r *results.Replay) error {
	d, err := safefs.OpenDir(dir, true)
	if err != nil {
		return fmt.Errorf("report directory: %w", err)
	}
	defer d.Close()
	var table bytes.Buffer
	out := report.Output{Format: report.Table, View: report.View{Wide: true}}
	if err := out.Write(&table, report.OfReplay(r)); err != nil {
		return err
	}
	page := replayPage{Title: replayTitle(r), Lede: replayLede(r), Table: table.String(),
		Sequence: replaySequenceFile, Groups: replayGroupsFile, Compared: r.Change != nil}
	page.Header, page.Rows = replayRows(r)
	if err := writeFigure(d, replaySequenceFile, sequenceFigure(r)); err != nil {
		return err
	}
	if err := writeFigure(d, replayGroupsFile, groupsFigure(r)); err != nil {
		return err
	}
	return writeIndex(d, replayTemplate, page)
}

func replayTitle(r *results.Replay) string {
	if r.Before != nil {
		before := r.Before.Object
		if c := r.Change; c != nil && c.Against != "lock-step" && c.Against != "" {
			before = c.Against
		}
		return fmt.Sprintf("xdpmicro replay: %s → %s on %s", printable.Line(before), printable.Line(r.Object), printable.Line(r.Capture))
	}
	return fmt.Sprintf("xdpmicro replay: %s in %s on %s", printable.Line(r.Program), printable.Line(r.Object), printable.Line(r.Capture))
}

// replayLede says in a line or two what the replay found.
func replayLede(r *results.Replay) string {
	interval := func(e results.Estimate) string {
		return fmt.Sprintf("%s ns [%s %s]", printable.NS(e.Point), printable.NS(e.Lower), printable.NS(e.Upper))
	}
	s := fmt.Sprintf("%d packets in their order, the maps carried, timed %d times (each a fresh load): mean per packet %s net of the floor, "+
		"p50 %s, p90 %s, p99 %s ns.", r.Packets, r.Replays, interval(r.Mean), printable.NS(r.P50), printable.NS(r.P90), printable.NS(r.P99))
	if c := r.Change; c != nil {
		against := "the two builds replayed in turns"
		if c.Against != "lock-step" {
			against = "against " + printable.Line(c.Against)
		}
		s = fmt.Sprintf("Before %s, after %s per packet, %s: %+.1f %% [%+.1f %+.1f], %s. ", interval(r.Before.Mean), interval(r.Mean),
			against, c.Mean.Point, c.Mean.Lower, c.Mean.Upper, c.Verdict) + s
	}
	return s
}

// replayRows are the kinds' table: each kind's shares and mean, or its
// change.
func replayRows(r *results.Replay) ([]string, [][]htmlCell) {
	interval := func(e results.Estimate) string {
		return fmt.Sprintf("%s [%s %s]", printable.NS(e.Point), printable.NS(e.Lower), printable.NS(e.Upper))
	}
	var rows [][]htmlCell
	if c := r.Change; c != nil {
		for _, k := range c.Kinds {
			cells := report.ReplayChangeCells(k)
			row := []htmlCell{{Text: printable.Line(k.Name)}}
			for _, text := range cells[1:6] {
				row = append(row, htmlCell{Text: text, Class: "num"})
			}
			rows = append(rows, append(row, htmlCell{Text: k.Verdict, Class: "verdict " + strings.ReplaceAll(k.Verdict, " ", "_")}))
		}
		return []string{"packets that (after)", "packets", "insns", "before, ns", "after, ns", "change % [95 % CI]", "verdict"}, rows
	}
	for _, k := range r.Kinds {
		rows = append(rows, []htmlCell{{Text: printable.Line(k.Name)}, {Text: fmt.Sprint(k.Packets), Class: "num"},
			{Text: fmt.Sprintf("%.1f %%", 100*k.PacketShare), Class: "num"}, {Text: fmt.Sprintf("%.1f %%", 100*k.TimeShare), Class: "num"},
			{Text: interval(k.Mean), Class: "num"}, {Text: fmt.Sprint(len(k.Paths)), Class: "num"}})
	}
	return []string{"packets that (action: map effects)", "packets", "of packets", "of time", "mean ns [next replay]", "paths"}, rows
}

// sequenceSide is one build's sequence as drawn.
type sequenceSide struct {
	name  string
	bins  []results.ReplayBin
	color color.NRGBA
}

// sequenceFigure draws the cost per packet over the sequence: each bin's
// mean over the replays as a line, the lowest and highest replay's as a
// band; two builds overlaid.
func sequenceFigure(r *results.Replay) *figure {
	sides := []sequenceSide{{name: "", bins: r.Sequence, color: sideColors[0]}}
	if r.Before != nil {
		sides = []sequenceSide{{"before", r.Before.Sequence, sideColors[0]}, {"after", r.Sequence, sideColors[1]}}
	}
	binSize := 1
	if len(r.Sequence) > 0 {
		binSize = r.Sequence[0].Packets
	}
	f := newFigure(fmt.Sprintf("cost per packet over the sequence: bins of %d packets, mean of %d replays", binSize, r.Replays))
	f.width, f.height = 24*vg.Centimeter, 10*vg.Centimeter
	p := f.plot
	p.X.Label.Text = "packet in the sequence"
	p.Y.Label.Text = "ns per packet, net of the floor"
	top, peak, low := 0.0, 0.0, 0.0
	for _, s := range sides {
		for _, b := range s.bins {
			top, peak, low = max(top, b.Mean), max(peak, b.High), min(low, b.Low, b.Mean)
		}
	}
	// A replay's bin that met an interrupt would flatten the rest: the
	// axis ends at twice the highest mean, and says what lies beyond.
	yMax := math.Max(math.Min(peak, 2*top), 1) * 1.05
	beyond := 0
	for _, s := range sides {
		band, line := sequencePoints(s.bins, yMax)
		for _, b := range s.bins {
			if b.High > yMax {
				beyond++
			}
		}
		name := s.name
		if name != "" {
			name += ": "
		}
		if poly, err := plotter.NewPolygon(band); err == nil && len(band) > 2 {
			poly.Color, poly.LineStyle.Width = withAlpha(s.color, bandAlpha), 0
			p.Add(poly)
			f.add(name+"lowest to highest replay", boxThumb{withAlpha(s.color, bandAlpha)})
		}
		f.add(name+"mean over the replays", addLine(p, line, s.color, vg.Points(1.2), false))
	}
	if beyond > 0 {
		f.add(fmt.Sprintf("%d bins' highest replay above %s ns, cut at the top", beyond, printable.NS(yMax)), boxThumb{color.White})
	}
	p.Y.Min, p.Y.Max = math.Min(low, 0), yMax
	p.Add(plotter.NewGrid())
	return f
}

// sequencePoints are a side's band (highs forward, lows back) and mean
// line, clipped at yMax.
func sequencePoints(bins []results.ReplayBin, yMax float64) (band, line plotter.XYs) {
	for _, b := range bins {
		x := float64(b.First) + float64(b.Packets)/2
		band = append(band, plotter.XY{X: x, Y: math.Min(b.High, yMax)})
		line = append(line, plotter.XY{X: x, Y: math.Min(b.Mean, yMax)})
	}
	for i := len(bins) - 1; i >= 0; i-- {
		b := bins[i]
		band = append(band, plotter.XY{X: float64(b.First) + float64(b.Packets)/2, Y: math.Min(b.Low, yMax)})
	}
	return band, line
}

// groupBar is a kind's row of bars: its shares and mean, and the
// before build's share of the time and mean, where it has the kind.
type groupBar struct {
	name          string
	packets, time float64
	mean          float64
	before        *float64
	beforeMean    float64
}

// groupBars are the kinds, the most packets first, with the before
// build's (or baseline's) kind of the same name.
func groupBars(r *results.Replay) []groupBar {
	var bars []groupBar
	for _, k := range r.Kinds {
		g := groupBar{name: printable.Line(k.Name), packets: k.PacketShare, time: k.TimeShare, mean: k.Mean.Point}
		if r.Before != nil {
			if i := slices.IndexFunc(r.Before.Kinds, func(b results.ReplayKind) bool { return b.Name == k.Name }); i >= 0 {
				b := r.Before.Kinds[i]
				g.beforeMean = b.Mean.Point
				share := b.TimeShare
				g.before = &share
			}
		}
		bars = append(bars, g)
	}
	if len(bars) > maxBarRows {
		bars = bars[:maxBarRows]
	}
	return bars
}

// groupsFigure draws each kind's share of the packets and of the time,
// and the before build's share of the time beside it.
func groupsFigure(r *results.Replay) *figure {
	bars := groupBars(r)
	rows := make([]summaryRow, len(bars))
	for i, b := range bars {
		rows[i] = summaryRow{name: shorten(b.name, 64)}
	}
	f := newFigure("kinds of packets: their shares of the packets and of the time")
	f.width, f.height = summarySize(len(rows))
	f.height += vg.Length(len(rows)) * 0.3 * vg.Centimeter
	p := f.plot
	p.X.Label.Text = "share (%)"
	p.Y.Tick.Marker = rowTicks(rows)
	var labels plotter.XYLabels
	var pk, tm, bt *plotter.Polygon
	timeColor := sideColors[0]
	if r.Before != nil {
		timeColor = sideColors[1]
	}
	for i, b := range bars {
		y := rowY(i, len(bars))
		pk = addBox(p, 0, 100*b.packets, y+0.08, y+0.36, withAlpha(floorColor, 160))
		tm = addBox(p, 0, 100*b.time, y-0.2, y+0.06, withAlpha(timeColor, 190))
		text := fmt.Sprintf("%.1f %% of packets, %.1f %% of time, %s ns", 100*b.packets, 100*b.time, printable.NS(b.mean))
		if b.before != nil {
			bt = addBox(p, 0, 100**b.before, y-0.42, y-0.22, withAlpha(sideColors[0], 190))
			text += fmt.Sprintf(" (before %.1f %% of time, %s ns)", 100**b.before, printable.NS(b.beforeMean))
		}
		labels.XYs = append(labels.XYs, plotter.XY{X: 100 * max(b.packets, b.time), Y: y})
		labels.Labels = append(labels.Labels, text)
	}
	addRowLabels(p, labels)
	if pk != nil {
		f.add("share of the packets", pk)
		f.add("share of the time, net of the floor", tm)
	}
	if bt != nil {
		f.add("before: share of the time", bt)
		tm.Color = withAlpha(sideColors[1], 190)
	}
	// Room on the right for the labels; ticks only where shares are.
	p.X.Min, p.X.Max = 0, 175
	p.X.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}}
	p.Y.Min, p.Y.Max = 0.4, float64(len(bars))+0.6
	p.Add(plotter.NewGrid())
	return f
}

// shorten cuts s to at most n runes, with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

type replayPage struct {
	Title, Lede      string
	Sequence, Groups string
	Compared         bool
	Header           []string
	Rows             [][]htmlCell
	Table            string
}

var replayTemplate = template.Must(template.New("replay").Parse(pageHead + `figure img { max-width: 100%; }
table.cases { border-collapse: collapse; font-size: 14px; margin: 1em 0; }
table.cases th, table.cases td { padding: 0.25em 0.6em; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
table.cases td.num { text-align: right; font-variant-numeric: tabular-nums; font-family: monospace; font-size: 13px; white-space: nowrap; }
td.verdict { font-weight: bold; }
td.improved { color: #2c7a2c; } td.regressed { color: #c62828; } td.no_change { color: #666; }
.muted { color: #666; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>{{.Lede}}</p>
<figure><img src="{{.Sequence}}" alt="cost per packet over the sequence{{if .Compared}}, before and after{{end}}"></figure>
<figure><img src="{{.Groups}}" alt="each kind of packets' share of the packets and of the time{{if .Compared}}, before and after{{end}}"></figure>
<table class="cases">
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td class="{{.Class}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<p class="muted">Times are the kernel's duration of each packet's run (one test run a packet), less the floor's empty program timed the same way.
The band around the sequence's line spans the lowest to the highest replay's mean in each bin; the kinds' means come with an interval meant to hold the next replay's (docs/replay.md).</p>
<details open>
<summary>The report as the terminal prints it</summary>
<pre>{{.Table}}</pre>
</details>
</body>
</html>
`))
