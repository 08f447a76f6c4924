package engine

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// The corpus: runs recorded on other hosts (testdata/corpus/HOST/*.json.gz,
// each folder's README says where and how), trimmed to what they measured.
// An estimator is judged on every host the corpus holds, not only on the
// host at hand: each run analysed again by today's analysis, as
// `xdpmicro analyze` does, and consecutive pairs compared as `xdpmicro
// compare` does (issue 61).
//
// What a good estimator gives on every host: these are the targets, which
// TestJudgeCorpus holds each host to when XDPMICRO_JUDGE_CORPUS=1 (and
// logs either way).
const (
	// minCoverage: per case, the share of runs whose interval holds the
	// median of the runs' estimates.
	minCoverage = 0.9
	// maxMedianHalfWidth: per case, the median of the runs' intervals'
	// relative half-widths.
	maxMedianHalfWidth = 0.05
	// maxFalseClaims: the share of the verdicts of saved pairs of the same
	// build (A/A) that claim a change, improved or regressed.
	maxFalseClaims = 1.0 / 20
)

// What today's estimator holds on every host of the corpus, which
// TestCorpusTruth fails below: the truth first (an interval that the next
// runs' median falls outside of in more than 3 runs of 20, or saved A/A
// pairs that claim a change in more than 1 verdict of 20, are what the
// tool must never give), and no wider than this on any host. The targets
// above are where the estimator is to go.
const (
	truthCoverage    = 0.85
	truthMedianHalf  = 0.10
	truthFalseClaims = 1.0 / 20
)

// truthMedianHalfOf bounds a host's median half-width where truthMedianHalf
// cannot hold: on epyc-half-slow the runs stood at two speeds, fizz ×1.25
// apart, about half each, so an interval that holds the next run's figure
// spans both.
var truthMedianHalfOf = map[string]float64{"epyc-half-slow": 0.25}

// corpusDir holds a folder of runs per host.
const corpusDir = "testdata/corpus"

// judgeEnv, set to 1, makes TestJudgeCorpus fail a host whose figures
// miss the targets; else it skips, with the figures.
const judgeEnv = "XDPMICRO_JUDGE_CORPUS"

var updateCorpus = flag.String("update-corpus", "", "trim the runs of `DIR` (*.json.xz, *.json) into testdata/corpus/<DIR's name>/*.json.gz")

// caseFigures are one case's figures over a host's runs.
type caseFigures struct {
	Name string
	// Runs analysed, and how many of their intervals hold Median, the
	// median of their estimates.
	Runs, Holding int
	Median        float64
	// MedianHalf and WidestHalf are the median and the largest relative
	// half-width of the runs' intervals.
	MedianHalf, WidestHalf float64
}

// corpusFigures are a host's figures over its runs.
type corpusFigures struct {
	Host string
	Runs int
	// Refused names the runs the analysis or the comparison refused, with
	// the error.
	Refused []string
	Cases   []caseFigures
	// Claims are the A/A comparisons' verdicts that claim a change, of
	// Verdicts, over Pairs pairs.
	Claims, Verdicts, Pairs int
}

// corpusAnalysis is how `xdpmicro analyze` analyses a run given no flag
// (xdpmicro.Analyze's defaults): at the run's own confidence, resamples
// and estimator, the default seed, the low quantile recorded or else the
// default one, standing on its own.
func corpusAnalysis(saved *results.Run) Reanalysis {
	def := stats.DefaultOptions()
	s := stats.Options{Confidence: saved.Settings.Confidence, Resamples: saved.Settings.Resamples, Seed: def.Seed, LowQuantile: stats.DefaultLowQuantile}
	if s.Confidence == 0 {
		s.Confidence = def.Confidence
	}
	if s.Resamples == 0 {
		s.Resamples = def.Resamples
	}
	if q, ok := RecordedLowQuantile(saved); ok {
		s.LowQuantile = q
	}
	return Reanalysis{Stats: s}
}

// savedCompareOptions are `xdpmicro compare`'s options given no flag, as
// xdpmicro.CompareSaved completes them: the files decide the estimator,
// the noise threshold is the one across runs.
func savedCompareOptions() stats.CompareOptions {
	o := stats.DefaultOptions()
	o.LowQuantile = stats.DefaultLowQuantile
	return stats.CompareOptions{Options: o, Significance: stats.DefaultSignificance, Quantum: testrun.Resolution,
		NoiseThreshold: stats.DefaultNoiseThreshold("", false), ThresholdChosen: true}
}

// corpusHosts are the host folders of the corpus.
func corpusHosts(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, e := range entries {
		if e.IsDir() {
			hosts = append(hosts, filepath.Join(corpusDir, e.Name()))
		}
	}
	if len(hosts) == 0 {
		t.Fatalf("no host folder in %s", corpusDir)
	}
	return hosts
}

// namedRun is a corpus run and its file's name.
type namedRun struct {
	name string
	run  *results.Run
}

// readCorpusRuns reads a host folder's runs, in the order of their names.
func readCorpusRuns(t testing.TB, dir string) []namedRun {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	var runs []namedRun
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		data, err := io.ReadAll(io.LimitReader(gz, results.MaxSaved+1))
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		r, err := results.Parse(path, data)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, namedRun{strings.TrimSuffix(filepath.Base(path), ".json.gz"), r})
	}
	if len(runs) == 0 {
		t.Fatalf("no run in %s", dir)
	}
	return runs
}

// judged caches judgeCorpus's figures by folder: each test of the corpus
// reads them, and analysing every run takes seconds.
var judged sync.Map

// judgeCorpus analyses every run of the host folder dir again, as
// `xdpmicro analyze` does, and compares its runs in consecutive pairs
// (the first with the second, the third with the fourth, …), as
// `xdpmicro compare` does: the figures an estimator is judged by.
func judgeCorpus(t testing.TB, dir string) corpusFigures {
	t.Helper()
	if f, ok := judged.Load(dir); ok {
		return f.(corpusFigures)
	}
	runs := readCorpusRuns(t, dir)
	fig := corpusFigures{Host: filepath.Base(dir), Runs: len(runs)}
	estimates := map[string][]stats.Estimate{}
	var names []string
	for _, nr := range runs {
		rep, err := Reanalyze(context.Background(), nr.run, corpusAnalysis(nr.run), nil)
		if err != nil {
			fig.Refused = append(fig.Refused, fmt.Sprintf("%s: %v", nr.name, err))
			continue
		}
		for _, c := range rep.Measured().Results {
			if c.Stats == nil {
				fig.Refused = append(fig.Refused, fmt.Sprintf("%s: case %s has no figures", nr.name, c.Name))
				continue
			}
			if _, ok := estimates[c.Name]; !ok {
				names = append(names, c.Name)
			}
			estimates[c.Name] = append(estimates[c.Name], c.Stats.Of(shownEstimator(rep)))
		}
	}
	for _, name := range names {
		fig.Cases = append(fig.Cases, figuresOf(name, estimates[name]))
	}
	opts := savedCompareOptions()
	for i := 0; i+1 < len(runs); i += 2 {
		rep, err := CompareSaved(runs[i].run, runs[i+1].run, opts)
		if err != nil {
			fig.Refused = append(fig.Refused, fmt.Sprintf("%s against %s: %v", runs[i].name, runs[i+1].name, err))
			continue
		}
		fig.Pairs++
		for _, cc := range rep.Comparison.Cases {
			fig.Verdicts++
			if cc.Verdict == stats.Improved || cc.Verdict == stats.Regressed {
				fig.Claims++
			}
		}
	}
	judged.Store(dir, fig)
	return fig
}

// shownEstimator is the estimator whose figures the table shows
// (report's tableView): the run's, or low where every case was sampled
// one run a call.
func shownEstimator(rep *results.Run) stats.Estimator {
	all := true
	for _, p := range rep.Programs {
		for _, c := range p.Results {
			all = all && c.Single
		}
	}
	if all {
		return stats.Low
	}
	return rep.Settings.ChosenEstimator()
}

// figuresOf are a case's figures over its runs' estimates.
func figuresOf(name string, es []stats.Estimate) caseFigures {
	points, halves := make([]float64, len(es)), make([]float64, len(es))
	for i, e := range es {
		points[i], halves[i] = e.Point, e.RelativeHalfWidth()
	}
	f := caseFigures{Name: name, Runs: len(es), Median: median(points), MedianHalf: median(halves), WidestHalf: slices.Max(halves)}
	for _, e := range es {
		if e.Lower <= f.Median && f.Median <= e.Upper {
			f.Holding++
		}
	}
	return f
}

// median is the median of xs, the mean of the middle two of an even
// number.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// table is the figures as a small table, for the log.
func (f corpusFigures) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d runs analysed again\n", f.Host, f.Runs)
	fmt.Fprintf(&b, "  %-10s %9s %8s %12s %8s\n", "case", "median", "holding", "half median", "widest")
	for _, c := range f.Cases {
		fmt.Fprintf(&b, "  %-10s %6.2f ns %5d/%-2d %10.1f %% %6.1f %%\n", c.Name, c.Median, c.Holding, c.Runs, 100*c.MedianHalf, 100*c.WidestHalf)
	}
	fmt.Fprintf(&b, "  A/A, %d saved pairs: %d of %d verdicts claim a change", f.Pairs, f.Claims, f.Verdicts)
	return b.String()
}

// misses says how the figures miss the targets, a phrase each; none
// where they meet them.
func (f corpusFigures) misses() []string {
	var out []string
	for _, c := range f.Cases {
		if float64(c.Holding) < minCoverage*float64(c.Runs) {
			out = append(out, fmt.Sprintf("%s: %d of %d intervals hold the median, want %.0f %%", c.Name, c.Holding, c.Runs, 100*minCoverage))
		}
		if c.MedianHalf > maxMedianHalfWidth {
			out = append(out, fmt.Sprintf("%s: median half-width ±%.1f %%, want at most ±%.0f %%", c.Name, 100*c.MedianHalf, 100*maxMedianHalfWidth))
		}
	}
	if f.Verdicts == 0 || float64(f.Claims) > maxFalseClaims*float64(f.Verdicts) {
		out = append(out, fmt.Sprintf("A/A: %d of %d verdicts claim a change, want at most %.0f %%", f.Claims, f.Verdicts, 100*maxFalseClaims))
	}
	return out
}

// On every host of the corpus, today's analysis keeps the truth: each
// case's intervals hold the runs' median in at least truthCoverage of the
// runs, at a median half-width of at most truthMedianHalf, and saved
// pairs of one build claim a change in at most truthFalseClaims of their
// verdicts.
func TestCorpusTruth(t *testing.T) {
	for _, dir := range corpusHosts(t) {
		f := judgeCorpus(t, dir)
		widest := truthMedianHalf
		if w, ok := truthMedianHalfOf[f.Host]; ok {
			widest = w
		}
		for _, c := range f.Cases {
			if float64(c.Holding) < truthCoverage*float64(c.Runs) || c.MedianHalf > widest {
				t.Errorf("%s, %s: %d of %d intervals hold the median, median half-width ±%.1f %%: want %.0f %% at most ±%.0f %%",
					f.Host, c.Name, c.Holding, c.Runs, 100*c.MedianHalf, 100*truthCoverage, 100*widest)
			}
		}
		if f.Verdicts == 0 || float64(f.Claims) > truthFalseClaims*float64(f.Verdicts) {
			t.Errorf("%s: A/A, %d of %d verdicts claim a change, want at most %.0f %%", f.Host, f.Claims, f.Verdicts, 100*truthFalseClaims)
		}
	}
}

// Every run of the corpus is accepted: read, analysed again, and compared
// with its neighbour.
func TestCorpusAccepted(t *testing.T) {
	for _, dir := range corpusHosts(t) {
		f := judgeCorpus(t, dir)
		for _, r := range f.Refused {
			t.Errorf("%s: %s", f.Host, r)
		}
		if len(f.Cases) == 0 || f.Pairs != f.Runs/2 {
			t.Errorf("%s: %d cases, %d pairs compared of %d runs", f.Host, len(f.Cases), f.Pairs, f.Runs)
		}
	}
}

// Today's analysis, judged over every host of the corpus: per case, the
// runs' intervals hold the median of their estimates (minCoverage), and
// narrowly (maxMedianHalfWidth); saved runs of one build compared claim
// no change (maxFalseClaims). Until XDPMICRO_JUDGE_CORPUS=1, a host that
// misses them is skipped with its figures, which are logged either way.
func TestJudgeCorpus(t *testing.T) {
	for _, dir := range corpusHosts(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f := judgeCorpus(t, dir)
			t.Log("\n" + f.table())
			misses := f.misses()
			switch {
			case len(misses) == 0:
			case os.Getenv(judgeEnv) != "1":
				t.Skipf("misses the targets (%s=1 fails on it): %s", judgeEnv, strings.Join(misses, "; "))
			default:
				t.Errorf("misses the targets: %s", strings.Join(misses, "; "))
			}
		})
	}
}

// TestUpdateCorpus, given -update-corpus DIR, writes each run of DIR
// (xz-compressed, as recorded, or plain JSON) into the corpus trimmed
// (corpusTrimmed), as compact JSON compressed by gzip, under DIR's name,
// having checked that the trimmed run, read back, analyses as the whole
// one does:
//
//	go test ./internal/engine -run '^TestUpdateCorpus$' -update-corpus ../shared/runs/xeon-steal
func TestUpdateCorpus(t *testing.T) {
	if *updateCorpus == "" {
		t.Skip("-update-corpus DIR writes DIR's runs into the corpus")
	}
	paths, err := filepath.Glob(filepath.Join(*updateCorpus, "*.json*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no run in %s (%v)", *updateCorpus, err)
	}
	out := filepath.Join(corpusDir, filepath.Base(filepath.Clean(*updateCorpus)))
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, path := range paths {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".xz"), ".json")
		whole := readRecorded(t, path)
		data, err := json.Marshal(corpusTrimmed(t, whole))
		if err != nil {
			t.Fatal(err)
		}
		back, err := results.Parse(name, data)
		if err != nil {
			t.Fatal(err)
		}
		sameAnalysis(t, name, whole, back)
		n := writeGzip(t, filepath.Join(out, name+".json.gz"), data)
		t.Logf("%s: %d bytes", name, n)
		total += n
	}
	t.Logf("%d runs, %d bytes in %s", len(paths), total, out)
}

// readRecorded reads a recorded run, xz-decompressed where it is.
func readRecorded(t *testing.T, path string) *results.Run {
	t.Helper()
	var data []byte
	var err error
	if strings.HasSuffix(path, ".xz") {
		data, err = exec.Command("xz", "-dc", path).Output()
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	r, err := results.Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// corpusTrimmed is saved without what the analysis finds again (each
// case's summary and net, the series, the comparison): its settings,
// environment, programs and floor, every load's samples.
func corpusTrimmed(t *testing.T, saved *results.Run) *results.Run {
	t.Helper()
	raw, ok := rawOf(saved)
	if !ok {
		t.Fatalf("the run holds no raw samples")
	}
	return &results.Run{Schema: saved.Schema, Settings: saved.Settings, Environment: raw.Environment,
		Programs: raw.Programs, Floor: raw.Floor}
}

// sameAnalysis fails unless whole and its trimmed copy, read back,
// analyse to the same figures.
func sameAnalysis(t *testing.T, name string, whole, trimmed *results.Run) {
	t.Helper()
	var got [2][]byte
	for i, r := range []*results.Run{whole, trimmed} {
		rep, err := Reanalyze(context.Background(), r, corpusAnalysis(whole), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got[i], err = json.Marshal([]any{rep.Programs, rep.Floor}); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Fatalf("%s: the trimmed run analyses otherwise than the whole one", name)
	}
}

// writeGzip writes data gzip-compressed to path, and returns its size.
func writeGzip(t *testing.T, path string, data []byte) int {
	t.Helper()
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gz.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return buf.Len()
}
