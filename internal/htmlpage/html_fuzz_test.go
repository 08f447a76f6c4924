package htmlpage

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/results"
)

// renamed is a copy of base with its program, object and cases named
// from a fuzzer, and a note beside; base stays as it was.
func renamed(base *results.Run, program, object, case1, case2, note string) *results.Run {
	r := *base
	caseName := func(j int) string {
		if j%2 == 0 {
			return case1
		}
		return case2
	}
	r.Programs = slices.Clone(base.Programs)
	for i := range r.Programs {
		p := &r.Programs[i]
		p.Info.Name, p.Object = program, object
		p.Results = slices.Clone(p.Results)
		for j := range p.Results {
			p.Results[j].Name = caseName(j)
			p.Results[j].Summary = note
		}
	}
	r.Environment.Notes = append(slices.Clip(base.Environment.Notes), note)
	if base.Comparison != nil {
		c := *base.Comparison
		c.Before, c.After = program+" in "+object, object
		c.Cases = slices.Clone(c.Cases)
		for j := range c.Cases {
			c.Cases[j].Name = caseName(j)
		}
		c.Warnings = append(slices.Clip(c.Warnings), note)
		r.Comparison = &c
	}
	return &r
}

// markup is, for each file of a page's directory, how many tags it has
// ('<' counted): what the page is made of, whatever its names say.
func markup(t *testing.T, dir string) map[string]int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = strings.Count(string(data), "<")
	}
	return out
}

// The fixtures, made once: a run of two cases and a comparison of two
// builds, each with the markup of its page under plain names.
var (
	htmlFixturesOnce sync.Once
	htmlFixtures     [2]*results.Run
	htmlMarkup       [2]map[string]int
)

// FuzzWriteHTML: a run's and a comparison's page, its program, object,
// cases and notes named from a fuzzer: written without error, with the
// same files, each with no more tags than under plain names: no name adds
// markup to the page or its SVG figures (an SVG opened on its own runs
// what it holds), or a line of its own to a figure's text.
func FuzzWriteHTML(f *testing.F) {
	for _, seed := range [][5]string{
		{"fizzbuzz", "v4 (bundled)", "fizz", "short", "a note"},
		{"<script>alert(1)</script>", "o\"><svg onload=x>", "</text><a href='x'>", "a&amp;b", "]]><!--"},
		{"p\nq", "o\r\n", "line\u2028sep", "tab\there", "\x1b]0;t\a"},
		{"p", "o", "two\nlines", "c\r", "n\nn"},
		{"", "", "", " ", ""},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], false)
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], true)
	}
	f.Fuzz(func(t *testing.T, program, object, case1, case2, note string, compared bool) {
		if case1 == case2 {
			return // a run's cases have names of their own
		}
		htmlFixturesOnce.Do(func() {
			flat, err := engine.New(results.Settings{Confidence: 0.95}, runfixture.SampleResult(t), htmlOptions())
			if err != nil {
				t.Fatal(err)
			}
			// Whole nanoseconds on both sides, drawn as bins: a curve's
			// bandwidth took 70 % of an input's time, for no name.
			res := runfixture.SampleResult(t)
			res.Programs[0].Label = "before"
			res.Programs = append(res.Programs, runfixture.Derived(res.Programs[0], "after", func(s float64) float64 { return s + 5 }))
			htmlFixtures = [2]*results.Run{flat, runfixture.Interleaved(t, res, htmlOptions())}
			for i, r := range htmlFixtures {
				dir := filepath.Join(t.TempDir(), "plain")
				if err := WriteHTML(dir, renamed(r, "prog", "obj", "c0", "c1", "note")); err != nil {
					t.Fatal(err)
				}
				htmlMarkup[i] = markup(t, dir)
			}
		})
		which := 0
		if compared {
			which = 1
		}
		dir := filepath.Join(t.TempDir(), "report")
		if err := WriteHTML(dir, renamed(htmlFixtures[which], program, object, case1, case2, note)); err != nil {
			t.Fatalf("the page does not write: %v", err)
		}
		got, want := markup(t, dir), htmlMarkup[which]
		for name, n := range want {
			if got[name] > n { // an empty name draws no text: fewer
				data, _ := os.ReadFile(filepath.Join(dir, name))
				t.Fatalf("%s: %d tags, %d under plain names:\n%s", name, got[name], n, data)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("files %v, under plain names %v", got, want)
		}
	})
}
