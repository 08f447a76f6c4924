package report

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/stats"
	"golang.org/x/sync/errgroup"
)

// Schema identifies the JSON document's layout; bump it when a field's
// meaning changes, so that a reader of saved results can refuse old ones.
const Schema = "xdpmicro.bench/v2"

// Settings are the choices the run was made with, echoed into reports.
type Settings struct {
	Object     string   `json:"object"`
	Before     string   `json:"before,omitempty"` // the old build of a before/after run
	Program    string   `json:"program,omitempty"`
	Cases      []string `json:"cases"`
	Sizes      []int    `json:"sizes,omitempty"` // frame sizes every case was padded to
	CPU        int      `json:"cpu"`             // as asked; -1 for the tool's choice
	Samples    int      `json:"samples"`
	Repeat     uint32   `json:"repeat"`
	Warmup     string   `json:"warmup"`
	Confidence float64  `json:"confidence"`
	Resamples  int      `json:"resamples"`
	// Estimator is the statistic that stands for each case.
	Estimator stats.Estimator `json:"estimator"`
	// Precision and Budget are adaptive sampling's target (relative
	// half-width of the estimator's interval) and time limit; zero when
	// the number of samples was fixed.
	Precision float64 `json:"precision,omitempty"`
	Budget    string  `json:"time_budget,omitempty"`
}

// estimator is the report's estimator.
func (s Settings) estimator() stats.Estimator {
	if s.Estimator == "" {
		return stats.DefaultEstimator
	}
	return s.Estimator
}

// Report is everything one bench run found.
type Report struct {
	Schema      string      `json:"schema"`
	Settings    Settings    `json:"config"`
	Environment Environment `json:"environment"`
	Partial     bool        `json:"partial,omitempty"`
	Programs    []Program   `json:"programs"`
	// Floor is the empty program measured with every case, if it was.
	Floor      *Program    `json:"floor,omitempty"`
	Comparison *Comparison `json:"comparison,omitempty"`
}

// Program is one measured program.
type Program struct {
	Label   string      `json:"label,omitempty"`
	Object  string      `json:"object"`
	Info    ProgramInfo `json:"program"`
	Results []Case      `json:"cases"`
	// Placements are the program's other loads, measured in the same
	// rounds: comparisons of builds use them all.
	Placements []Program `json:"placements,omitempty"`
	// Series holds each case's mean by frame size, when --size was given.
	Series []Series `json:"series,omitempty"`
}

// Series is the cost of one case at each frame size.
type Series struct {
	Case   string        `json:"case"`
	Points []SeriesPoint `json:"points"`
}

// SeriesPoint is the estimated time per run at one frame size.
type SeriesPoint struct {
	Size     int            `json:"size"`
	Estimate stats.Estimate `json:"estimate"`
}

// Case is one packet case's measurement and its statistics.
type Case struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	Source  string `json:"source,omitempty"`
	Length  int    `json:"frame_length"`
	Frame   string `json:"frame_hex"`
	Return  uint32 `json:"return"`
	Action  string `json:"action"`
	Retries int    `json:"retries"`
	// Effects are the changes the checking run made to maps.
	Effects []Effect `json:"effects,omitempty"`
	// Single says the case was sampled one run a call, on a fresh frame
	// each, as its program changes the frame: its estimate is the low one
	// of the kernel's figures, whatever the estimator.
	Single bool `json:"single_run,omitempty"`
	// Restored says the case was sampled as repeats through xdpmicro's
	// restorer, every run on a fresh copy of the frame: its samples, and
	// the floor's, hold the restoring, which the net leaves out.
	Restored bool `json:"restored,omitempty"`
	// OutputFrame is the frame as the checking run left it, in hex, when
	// the program changed it: every later run of a call saw that instead.
	OutputFrame string `json:"output_frame_hex,omitempty"`
	// OutputSummary describes that frame in a line, OutputChanges how it
	// differs from the input.
	OutputSummary string `json:"output_frame_summary,omitempty"`
	OutputChanges string `json:"output_changes,omitempty"`
	// OtherReturns counts the samples whose call ended with another action
	// than the checking run's, OtherAction the first of them.
	OtherReturns int    `json:"other_returns,omitempty"`
	OtherAction  string `json:"other_action,omitempty"`
	// Instructions is the number of BPF instructions the checking run
	// executed; zero when not counted, and NoCount says why.
	Instructions uint64    `json:"instructions,omitempty"`
	NoCount      string    `json:"instructions_unknown,omitempty"`
	Samples      []float64 `json:"samples_ns"`
	// Runs and Wall are linear sampling's repeat and wall time (ns) of
	// each sample's call.
	Runs []uint32  `json:"runs,omitempty"`
	Wall []float64 `json:"wall_ns,omitempty"`
	// Net is the estimated time per run less the floor's, sampled in the
	// same rounds, with its paired bootstrap interval; nil without a floor.
	Net *stats.Estimate `json:"net,omitempty"`
	// Enough says adaptive sampling reached the asked precision.
	Enough bool `json:"enough,omitempty"`
	// Stats is nil when a cancelled run left too few samples.
	Stats *stats.Summary `json:"stats"`

	// Context is the context the case's runs were given, "mark=0x2a,...";
	// ContextChanges what the checking run's program changed of it.
	Context        string          `json:"context,omitempty"`
	ContextChanges []ContextChange `json:"context_changes,omitempty"`
}

// New computes the statistics of every case of a run.
func New(settings Settings, m Measured, opts stats.Options) (*Report, error) {
	r := &Report{Schema: Schema, Settings: settings, Environment: m.Environment, Partial: m.Partial}
	if settings.estimator().Fitted() && m.Environment.Sampling.Mode != samplingLinear {
		// Linear sampling was refused (the footer says why): the kernel's
		// figures stand for the cases.
		r.Settings.Estimator, settings.Estimator = stats.Low, stats.Low
	}
	// Every load flat, the floor first, each program's placements after it.
	var loads []Program
	if m.Floor != nil {
		loads = append(loads, *m.Floor)
	}
	for _, p := range m.Programs {
		loads = append(loads, p)
		loads = append(loads, p.Placements...)
	}
	for i := range loads {
		loads[i].Results = slices.Clone(loads[i].Results)
		loads[i].Placements = nil
	}
	if err := summarize(loads, m.Partial, opts); err != nil {
		return nil, err
	}
	for i := range loads {
		if len(settings.Sizes) > 0 {
			loads[i].Series = series(loads[i].Results, settings.estimator())
		}
	}
	if m.Floor != nil {
		r.Floor, loads = &loads[0], loads[1:]
	}
	for _, p := range m.Programs {
		prog := loads[0]
		prog.Placements, loads = loads[1:1+len(p.Placements)], loads[1+len(p.Placements):]
		r.Programs = append(r.Programs, prog)
	}
	if r.Floor != nil {
		if err := subtractFloor(r.Programs, *r.Floor, settings.estimator(), opts); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// summarize computes the summary of every case of every program, in
// place. The bootstraps of thousands of samples take tens of milliseconds
// each: one per core, over all programs, as a validation has one case per
// program. A case a cancelled run left with too few samples has none.
func summarize(programs []Program, partial bool, opts stats.Options) error {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range programs {
		for j := range programs[i].Results {
			c := &programs[i].Results[j]
			if partial && len(c.Samples) < stats.MinSamples {
				continue
			}
			g.Go(func() error {
				s, err := stats.Summarize(c.Samples, opts)
				if err != nil {
					return fmt.Errorf("case %s: %w", c.Name, err)
				}
				if len(c.Runs) > 0 {
					fit, err := stats.FitLinear(timings(c.Runs, c.Wall), stats.FitOptions{Options: opts})
					if partial && errors.Is(err, stats.ErrTimings) {
						return nil // too few calls of some level: as too few samples
					}
					if err != nil {
						return fmt.Errorf("case %s: %w", c.Name, err)
					}
					s.Fit = &fit
				}
				c.Stats = &s
				return nil
			})
		}
	}
	return g.Wait()
}

// subtractFloor sets each case's time net of the floor's in the same
// rounds, one case per core.
func subtractFloor(programs []Program, floor Program, est stats.Estimator, opts stats.Options) error {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for p := range programs {
		for i := range programs[p].Results {
			c, f := &programs[p].Results[i], floor.Results[i]
			n := min(len(c.Samples), len(f.Samples)) // an interrupted round
			if c.Stats == nil || n < stats.MinSamples {
				continue
			}
			g.Go(func() error {
				net, err := netOf(*c, f, n, est, opts)
				if errors.Is(err, stats.ErrTimings) && n < len(c.Samples) {
					// A cancelled run that sampled the case but not the
					// floor in its last rounds: too few of those to fit.
					return nil
				}
				if err != nil {
					return fmt.Errorf("case %s net of the floor: %w", c.Name, err)
				}
				c.Net = &net
				return nil
			})
		}
	}
	return g.Wait()
}

// netOf is the difference of c's estimate from the floor's f over the
// first n rounds, paired by round.
func netOf(c, f Case, n int, est stats.Estimator, opts stats.Options) (stats.Estimate, error) {
	switch {
	case c.Single:
		return stats.PairedDifference(f.Samples[:n], c.Samples[:n], stats.Low, opts)
	case !est.Fitted():
		return stats.PairedDifference(f.Samples[:n], c.Samples[:n], est, opts)
	}
	return fitDifference(f, c, n, est, opts)
}

// PairedDifference is after's estimate less before's, paired by round
// over the rounds both have samples of: of their slopes when est is one.
func PairedDifference(before, after Case, est stats.Estimator, opts stats.Options) (stats.Estimate, error) {
	n := min(len(before.Samples), len(after.Samples))
	if !est.Fitted() {
		return stats.PairedDifference(before.Samples[:n], after.Samples[:n], est, opts)
	}
	return fitDifference(before, after, n, est, opts)
}

// fitDifference is the paired difference of two cases' slopes over their
// first n rounds: from the fits' own resamples when they drew alike.
func fitDifference(before, after Case, n int, est stats.Estimator, opts stats.Options) (stats.Estimate, error) {
	if before.Stats != nil && after.Stats != nil && before.Stats.Fit != nil && after.Stats.Fit != nil {
		if d, ok := after.Stats.Fit.Minus(before.Stats.Fit, est == stats.OLS, opts.Confidence); ok {
			return d, nil
		}
	}
	fc, err := stats.CompareFits(before.timings(n), after.timings(n), est == stats.OLS, stats.FitOptions{Options: opts})
	return fc.Difference, err
}

// timings are the first n of a case's linear samples.
func (c Case) timings(n int) stats.Timings { return timings(c.Runs[:n], c.Wall[:n]) }

func timings(runs []uint32, wall []float64) stats.Timings {
	t := stats.Timings{Runs: make([]float64, len(runs)), Total: wall}
	for i, r := range runs {
		t.Runs[i] = float64(r)
	}
	return t
}

// series groups cases padded to several sizes, named <case>@<size>, by
// case, in the order they first appear.
func series(results []Case, est stats.Estimator) []Series {
	var out []Series
	index := map[string]int{}
	for _, c := range results {
		base, _, found := strings.Cut(c.Name, "@")
		if !found || c.Stats == nil {
			continue
		}
		i, ok := index[base]
		if !ok {
			i = len(out)
			index[base] = i
			out = append(out, Series{Case: base})
		}
		out[i].Points = append(out[i].Points, SeriesPoint{Size: c.Length, Estimate: c.Stats.Of(est)})
	}
	return out
}
