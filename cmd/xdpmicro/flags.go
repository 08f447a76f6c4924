package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/internal/htmlpage"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// outputFlags are shared by the commands that write a report.
type outputFlags struct {
	confidence float64
	resamples  int
	format     string
	output     string
	html       string
	wide       bool
	verbose    bool
	estimator  string
	// quantile is --low-quantile, registered by bench only: compare
	// takes the quantile its files were measured with.
	quantile *float64
}

func (o *outputFlags) register(fl *pflag.FlagSet) {
	o.registerBootstrap(fl)
	fl.StringVar(&o.format, "format", string(report.Table), "write the report in `FORMAT`: "+report.KindRun.Help())
	fl.StringVarP(&o.output, "output", "o", "", "write the report to `FILE`, atomically, instead of standard output")
	fl.StringVar(&o.html, "report", "", "also write a static HTML page with plots into `DIR`")
	fl.BoolVar(&o.wide, "wide", false, "every column (source address, the kernel's figure, std dev, …) "+
		"and Criterion's verdict sentences; else the table fits 100 columns")
	fl.BoolVarP(&o.verbose, "verbose", "v", false, "the method (estimator, levels, clock, anchoring, floor, insns) and every note under the table; "+
		"else only the notes that matter")
	o.registerEstimator(fl)
}

// registerBootstrap adds --confidence and --resamples, the intervals'
// level and how they are computed.
func (o *outputFlags) registerBootstrap(fl *pflag.FlagSet) {
	def := xdpmicro.Defaults().Stats
	fl.Float64Var(&o.confidence, "confidence", def.Confidence, "the intervals' confidence level `C`, in (0, 1)")
	fl.IntVar(&o.resamples, "resamples", def.Resamples, fmt.Sprintf("`N` bootstrap resamples per estimate, %d to %d", xdpmicro.MinResamples, xdpmicro.MaxResamples))
}

// registerEstimator adds --estimator.
func (o *outputFlags) registerEstimator(fl *pflag.FlagSet) {
	fl.StringVar(&o.estimator, "estimator", "", "estimate by `NAME`: "+joinEstimators(stats.FitEstimators())+", "+
		"or of the kernel's figures "+joinEstimators(stats.Estimators()))
	describeDefault(fl, "estimator", fmt.Sprintf("%s with linear sampling, %s with flat",
		xdpmicro.DefaultEstimator(testrun.SamplingLinear), xdpmicro.DefaultEstimator(testrun.SamplingFlat)))
}

// registerLowQuantile adds --low-quantile.
func (o *outputFlags) registerLowQuantile(fl *pflag.FlagSet) {
	o.quantile = fl.Float64("low-quantile", xdpmicro.Defaults().Stats.LowQuantile, "the quantile `Q` that the low estimate and each slope level stand for, in (0, 0.5); "+
		"compare takes its files'")
}

// estimatorValue is the --estimator asked for, or empty if none was: the
// options' default (xdpmicro.DefaultEstimator).
func (o *outputFlags) estimatorValue() (stats.Estimator, error) {
	if o.estimator == "" {
		return "", nil
	}
	e, err := stats.ParseEstimator(o.estimator)
	if err != nil {
		return "", usageError(fmt.Errorf("--estimator: %w", err))
	}
	return e, nil
}

// statsOptions are --confidence, --resamples and --low-quantile as the
// options take them; the rest is the options' default.
func (o *outputFlags) statsOptions() (stats.Options, error) {
	opts := stats.Options{Confidence: o.confidence, Resamples: o.resamples}
	if err := checkCount("resamples", o.resamples, xdpmicro.MinResamples, xdpmicro.MaxResamples); err != nil {
		return opts, err
	}
	if err := opts.Validate(); err != nil {
		return opts, usageError(fmt.Errorf("--confidence %g / --resamples %d: %w", o.confidence, o.resamples, err))
	}
	if o.quantile == nil {
		return opts, nil
	}
	// 0 would silently mean the default.
	if q := *o.quantile; !(q > 0 && q < 0.5) {
		return opts, usageError(fmt.Errorf("--low-quantile %g: want a quantile in (0, 0.5), e.g. 0.02", q))
	}
	opts.LowQuantile = *o.quantile
	return opts, nil
}

// checkTargets refuses, before anything is measured, a format or a place
// to write that the end of the run would fail on.
func (o *outputFlags) checkTargets() error {
	if _, err := report.KindRun.Parse(o.format); err != nil {
		return usageError(fmt.Errorf("--format: %w", err))
	}
	if err := checkFileTarget("output", o.output); err != nil {
		return err
	}
	return checkDirTarget("report", o.html)
}

// view is how much --wide and --verbose have a table show.
func (o *outputFlags) view() report.View { return report.View{Wide: o.wide, Verbose: o.verbose} }

// target is where --format and --output say a report goes.
func (o *outputFlags) target() report.Output {
	return report.Output{Format: report.Format(o.format), Path: o.output, View: o.view()}
}

// write puts a complete report where it was asked for, and the HTML page;
// if the page cannot be written, a report gone to a file reaches standard
// output too.
func (o *outputFlags) write(cmd *cobra.Command, rep *results.Run) error {
	out := o.target()
	if err := out.Write(cmd.OutOrStdout(), report.OfRun(rep)); err != nil {
		return err
	}
	if o.html != "" {
		if err := htmlpage.WriteHTML(o.html, rep); err != nil {
			if o.output != "" {
				out.Fallback(cmd.OutOrStdout(), report.OfRun(rep))
			}
			return err
		}
	}
	return nil
}

// asides prints on stderr the notes and comparison warnings that a table
// on standard output has under it, where the table is not what reaches
// the terminal: each said once.
func (o *outputFlags) asides(cmd *cobra.Command, rep *results.Run) {
	if !o.target().NotesOnStderr() {
		return
	}
	printNotes(cmd, rep.Environment.Notes)
	if rep.Comparison != nil {
		for _, w := range rep.Comparison.Warnings {
			fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: warning: "+report.PrintableLine(w)) // names from files, each on its line
		}
	}
}

// compareFlags are shared by the commands that compare.
type compareFlags struct {
	significance     float64
	noiseThreshold   threshold
	failOnRegression bool
	failOn           []string // what a regression is judged by: time, insns
}

func (c *compareFlags) register(fl *pflag.FlagSet) {
	fl.Float64Var(&c.significance, "significance", xdpmicro.Defaults().Compare.Significance, "the p-value `A` below which a change is distinguishable from none")
	c.noiseThreshold = autoThreshold
	fl.Var(&c.noiseThreshold, "noise-threshold", fmt.Sprintf(
		"relative change `T` (0.03: 3 %%) a change's whole interval must exceed; "+
			"auto: %s or %s interleaved, %s between runs over several loads each, else %s",
		percent(stats.InterleavedSlopeNoiseThreshold), percent(stats.InterleavedNoiseThreshold), percent(stats.AcrossLoadsNoiseThreshold), percent(stats.AcrossRunsNoiseThreshold)))
	fl.BoolVar(&c.failOnRegression, "fail-on-regression", false, "exit 3 when any case regressed, or changed action; stderr names the cases")
	fl.StringSliceVar(&c.failOn, "fail-on", nil, "judge regressions by `J`, implying --fail-on-regression: time (the verdicts), "+
		"insns (more instructions), and the verifier's verified-insns, states or jit-size, each with an optional growth "+
		"allowed (verified-insns:+10%); a comma list judges by each")
	describeDefault(fl, "fail-on", judgeTime)
}

// percent writes a fraction as a percentage: 0.0025 is "0.25 %".
func percent(f float64) string {
	return strconv.FormatFloat(f*100, 'g', 3, 64) + " %"
}

// options are the comparison options as the root's options take them:
// auto is their zero, the default that xdpmicro.Options.Complete chooses
// (it depends on the estimator and on whether the sides were sampled
// together), and 0 is xdpmicro.NoNoiseThreshold.
func (c *compareFlags) options(base stats.Options, est stats.Estimator) (stats.CompareOptions, error) {
	var threshold float64
	switch c.noiseThreshold {
	case autoThreshold:
	case 0:
		threshold = xdpmicro.NoNoiseThreshold
	default:
		threshold = float64(c.noiseThreshold)
	}
	for _, f := range c.failOn {
		if _, err := parseJudge(f); err != nil {
			return stats.CompareOptions{}, usageError(err)
		}
	}
	opts := stats.CompareOptions{Options: base, Significance: c.significance, NoiseThreshold: threshold, Estimator: est}
	check := opts
	check.NoiseThreshold = max(threshold, 0) // auto's and none's values are checked by Complete
	if err := check.Validate(); err != nil {
		return opts, usageError(fmt.Errorf("--significance %g / --noise-threshold %s: %w", c.significance, c.noiseThreshold.String(), err))
	}
	return opts, nil
}

// threshold is a relative noise threshold in [0, 1), or "auto".
type threshold float64

const autoThreshold threshold = -1

func (t *threshold) String() string {
	if *t == autoThreshold {
		return "auto"
	}
	return strconv.FormatFloat(float64(*t), 'g', -1, 64)
}

func (t *threshold) Set(s string) error {
	if s == "auto" {
		*t = autoThreshold
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0 && v < 1) {
		return fmt.Errorf("want auto or a fraction in [0, 1), e.g. 0.03 for 3 %%")
	}
	*t = threshold(v)
	return nil
}

func (t *threshold) Type() string { return "threshold" }

// What --fail-on judges.
const (
	judgeTime  = "time"
	judgeInsns = "insns"
)

// judge is one --fail-on: what a regression is judged by, and for the
// verifier's figures the growth allowed, a fraction.
type judge struct {
	by      string
	allowed float64
}

// allowedText says what growth the judge allowed.
func (j judge) allowedText() string {
	if j.allowed == 0 {
		return "where it allows none"
	}
	return fmt.Sprintf("past the +%g %% it allows", 100*j.allowed)
}

// parseJudge reads time, insns, or a verifier figure with an optional
// growth allowed: verified-insns, states:+20%, jit-size:5%.
func parseJudge(s string) (judge, error) {
	name, limit, hasLimit := strings.Cut(s, ":")
	if name == judgeTime || name == judgeInsns {
		if hasLimit {
			return judge{}, fmt.Errorf("--fail-on %q: %s takes no threshold (time has --noise-threshold; instructions are exact)", s, name)
		}
		return judge{by: name}, nil
	}
	if !slices.Contains(results.VerifierFigures, name) {
		return judge{}, fmt.Errorf("--fail-on %q: want %s, %s, or the verifier's %s with an optional growth allowed (verified-insns:+10%%)",
			s, judgeTime, judgeInsns, strings.Join(results.VerifierFigures, ", "))
	}
	j := judge{by: name}
	if hasLimit {
		pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(limit, "+"), "%"), 64)
		if err != nil || !strings.HasSuffix(limit, "%") || !(pct >= 0 && pct <= 1000) {
			return judge{}, fmt.Errorf("--fail-on %q: the growth allowed is a percentage from 0 to 1000, e.g. %s:+10%%", s, name)
		}
		j.allowed = pct / 100
	}
	return j, nil
}

// verdict turns a regression into exit code 3 when asked to. Judged by
// instructions, a case without counts on both sides fails the run: an
// exact gate must not pass by default; so does a verifier figure
// without the verifier's statistics on both sides.
func (c *compareFlags) verdict(rep *results.Run) error {
	cmp := rep.Comparison
	if !c.failOnRegression && len(c.failOn) == 0 || cmp == nil {
		return nil
	}
	judges := c.failOn
	if len(judges) == 0 {
		judges = []string{judgeTime}
	}
	for _, f := range judges {
		j, err := parseJudge(f)
		if err != nil {
			return usageError(err)
		}
		if j.by != judgeTime && j.by != judgeInsns {
			if cmp.Verifier == nil {
				return fmt.Errorf("--fail-on %s: no verifier statistics on both sides (a report saved before they were, or a program loaded by another)", f)
			}
			if how, grew := cmp.Verifier.Grew(j.by, j.allowed); grew {
				return fmt.Errorf("%w: %s %s of %s, %s", errGrew, j.by, how, cmp.After, j.allowedText())
			}
			continue
		}
		switch j := j.by; {
		case j == judgeTime && cmp.Regressed():
			return fmt.Errorf("%w: %s", errRegression, strings.Join(cmp.RegressedCases(), ", "))
		case j == judgeInsns:
			if un := cmp.Uncounted(); len(un) > 0 {
				return fmt.Errorf("--fail-on insns: no instruction count on both sides for %s (see the notes)", strings.Join(un, ", "))
			}
			if cmp.InsnsRegressed() {
				return fmt.Errorf("%w: instructions of %s", errRegression, strings.Join(cmp.InsnsRegressedCases(), ", "))
			}
		}
	}
	return nil
}

// cpuFlag is --cpu, the same for every command that measures.
type cpuFlag int

func (c *cpuFlag) register(fl *pflag.FlagSet) {
	*c = cpuFlag(testrun.AnyCPU)
	fl.IntVar((*int)(c), "cpu", testrun.AnyCPU, "pin the measuring threads to CPU `N`, one this process may run on, waiting out another xdpmicro run there; "+
		"-1 picks a quiet one and says why")
}

// option is --cpu as the options take it: nil for any CPU.
func (c cpuFlag) option() *int {
	if int(c) == testrun.AnyCPU {
		return nil
	}
	n := int(c)
	return &n
}

// registerTimer adds --timer, the same for every command that measures.
func registerTimer(fl *pflag.FlagSet, timer *testrun.Timer) {
	fl.StringVar((*string)(timer), "timer", string(testrun.TimerKernel), "time runs with `TIMER`: kernel (BPF_PROG_TEST_RUN's figure) "+
		"or stats (BPF_ENABLE_STATS: finer, timing every run)")
}

func (c cpuFlag) check() error {
	if c < testrun.AnyCPU {
		return usageError(fmt.Errorf("--cpu %d: want a CPU number, or -1 to choose", c))
	}
	return nil
}

// maxDuration bounds every duration flag, as it bounds the options'.
const maxDuration = xdpmicro.MaxDuration

// checkDuration refuses the duration flag name's d outside (0,
// maxDuration], or [0, maxDuration] when zero says something.
func checkDuration(name string, d time.Duration, zero bool, example string) error {
	if d < 0 || d == 0 && !zero || d > maxDuration {
		lower := "a positive duration"
		if zero {
			lower = "a duration"
		}
		return usageError(fmt.Errorf("--%s %s: want %s up to %s, e.g. %s", name, shortDuration(d), lower, shortDuration(maxDuration), example))
	}
	return nil
}

// checkCount refuses the count flag name's n outside [least, most].
func checkCount(name string, n, least, most int) error {
	if n < least || n > most {
		return usageError(fmt.Errorf("--%s %d: want %d to %d", name, n, least, most))
	}
	return nil
}

// shortDuration writes d without its zero minutes and seconds: 24h, not
// 24h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if trimmed, ok := strings.CutSuffix(s, "m0s"); ok {
		s = trimmed + "m"
	}
	if trimmed, ok := strings.CutSuffix(s, "h0m"); ok {
		s = trimmed + "h"
	}
	return s
}

// joinEstimators lists estimators' names, as stats lists them, for help.
func joinEstimators(es []stats.Estimator) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}
