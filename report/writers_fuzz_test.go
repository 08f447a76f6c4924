package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"golang.org/x/perf/benchfmt"

	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// fuzzNames are the names a run takes from files and flags: an object's
// program, the object, the two packet cases, and a line that reaches the
// notes, the warnings and the kernel's name.
type fuzzNames struct {
	program, object, case1, case2, note string
}

// named is a copy of base with the names of n, base left as it was.
func named(base *results.Run, n fuzzNames) *results.Run {
	r := *base
	rename := func(p *results.Program) {
		p.Info.Name, p.Object = n.program, n.object
		p.Results = slices.Clone(p.Results)
		for j := range p.Results {
			p.Results[j].Name = caseName(n, j)
		}
	}
	r.Programs = slices.Clone(base.Programs)
	for i := range r.Programs {
		p := &r.Programs[i]
		rename(p)
		p.Placements = slices.Clone(p.Placements)
		for k := range p.Placements {
			rename(&p.Placements[k])
		}
	}
	r.Environment.Notes = append(slices.Clip(base.Environment.Notes), n.note)
	r.Environment.Kernel = n.note
	if base.Comparison != nil {
		c := *base.Comparison
		c.Before, c.After = n.program+" in "+n.object, n.object
		c.Cases = slices.Clone(c.Cases)
		for j := range c.Cases {
			c.Cases[j].Name = caseName(n, j)
		}
		c.Warnings = append(slices.Clip(c.Warnings), n.note)
		r.Comparison = &c
	}
	return &r
}

// caseName is the j-th case's name: the fixtures have two cases.
func caseName(n fuzzNames, j int) string {
	if j%2 == 0 {
		return n.case1
	}
	return n.case2
}

// The fixtures, made once: a run of two cases, and a comparison of two
// builds sampled together.
var (
	fixturesOnce     sync.Once
	flatFixture      *results.Run
	comparedFixture  *results.Run
	markdownMention  = regexp.MustCompile(`@[^\x{2060}]|@$`)
	markdownLinkLike = regexp.MustCompile(`(?i)://|www\.`)
)

// unsafeInText says whether a rune of a text format would act as layout
// or on a terminal: a control character other than the line feed (tab
// included), a line or paragraph separator, a bidirectional control.
func unsafeInText(r rune) bool {
	return r != '\n' && unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp, unicode.Bidi_Control)
}

// FuzzWriters: a run and a comparison whose program, object, cases,
// notes and kernel have hostile names, in every format a run is written
// in, each view: no panic, and
//   - table and Markdown: no control character (tab, CR, ESC, C1), line
//     or paragraph separator, or bidirectional control, and each table
//     exactly its header, its rule and a line per case: a name cannot
//     start a row;
//   - Markdown: a table row's cells are the header's; outside the
//     fenced notes, no HTML of a name's, no '@' that GitHub would take
//     for a mention, no "://" or "www." that it would link;
//   - gobench: benchfmt reads every sample back, each case under a name
//     of its own, none read as a GOMAXPROCS suffix;
//   - BMF and JSON: valid JSON, BMF a benchmark per case.
func FuzzWriters(f *testing.F) {
	for _, n := range []fuzzNames{
		{"fizzbuzz", "v4 (bundled)", "fizz", "short", "a note"},
		{"evil|prog\x1b]0;pwned\a", "obj.o", "a|b [x](javascript:y) *b* <script>", "tab\there", "``` fence"},
		{"@octocat cc @github/security", "https://evil.example/x", "www.example.com", "#123", "mail me@example.com"},
		{"p", "o", "a\n│ fake │ row │", "line\u2028sep\u2029para", "note\nwith lines"},
		{"p\u202eevil", "o\u009b2J", "udp-2", "udp_2", "\r\n"},
		{"", "", "", " ", ""},
		{"x", "y", "1:tcp 192.0.2.10>198.51.100.20", "3:ip6/41 a", "kernel 6.1"},
	} {
		f.Add(n.program, n.object, n.case1, n.case2, n.note, false)
		f.Add(n.program, n.object, n.case1, n.case2, n.note, true)
	}
	f.Fuzz(func(t *testing.T, program, object, case1, case2, note string, compared bool) {
		if case1 == case2 {
			return // a run's cases have names of their own
		}
		fixturesOnce.Do(func() {
			flatFixture = newReport(t)
			comparedFixture = runfixture.Interleaved(t, runfixture.TwoBuilds(t), stats.DefaultOptions())
		})
		base := flatFixture
		if compared {
			base = comparedFixture
		}
		r := named(base, fuzzNames{program, object, case1, case2, note})
		cases := len(r.Measured().Results)
		for _, format := range KindRun.Formats() {
			for _, view := range []View{{}, {Wide: true, Verbose: true}} {
				var out bytes.Buffer
				if err := (Output{Format: Format(format), View: view}).Write(&out, OfRun(r)); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				checkWritten(t, Format(format), out.String(), r, cases)
			}
		}
	})
}

// checkWritten checks what one format wrote of r, whose cases are named
// from a fuzzer.
func checkWritten(t *testing.T, format Format, out string, r *results.Run, cases int) {
	t.Helper()
	switch format {
	case Table:
		if i := strings.IndexFunc(out, unsafeInText); i >= 0 {
			t.Fatalf("the table holds %q:\n%s", []rune(out[i:])[0], out)
		}
		for _, table := range blocks(out, func(l string) bool { return strings.HasPrefix(l, "┌") }, func(l string) bool { return strings.HasPrefix(l, "└") }) {
			// top rule, header, rule, a line per case, bottom rule
			if len(table) != cases+4 {
				t.Fatalf("a table of %d lines for %d cases:\n%s", len(table), cases, strings.Join(table, "\n"))
			}
		}
	case Markdown:
		if i := strings.IndexFunc(out, unsafeInText); i >= 0 {
			t.Fatalf("the markdown holds %q:\n%s", []rune(out[i:])[0], out)
		}
		var text []string // outside the fenced notes, which GitHub shows as they are
		fenced := ""
		for _, l := range strings.Split(out, "\n") {
			switch {
			case fenced == "" && strings.HasPrefix(l, "```"):
				fenced = strings.TrimRight(l, "texyml")
			case fenced != "" && l == fenced:
				fenced = ""
			case fenced == "":
				text = append(text, strings.TrimPrefix(l, "> ")) // a quoted warning
			}
		}
		rows := 0
		bars := 0
		for _, l := range text {
			if !strings.HasPrefix(l, "|") {
				if rows > 0 && rows != cases+2 {
					t.Fatalf("a markdown table of %d lines for %d cases:\n%s", rows, cases, out)
				}
				rows = 0
				continue
			}
			n := strings.Count(l, "|") - strings.Count(l, `\|`)
			if rows == 0 {
				bars = n
			} else if n != bars {
				t.Fatalf("a row of %d cells' bars under a header of %d: %q", n, bars, l)
			}
			rows++
		}
		plain := strings.Join(text, "\n")
		for _, tag := range []string{"<details>", "</details>", "<summary>", "</summary>"} {
			plain = strings.ReplaceAll(plain, tag, "")
		}
		if strings.ContainsAny(plain, "<>") {
			t.Fatalf("markdown outside its fences holds markup:\n%s", out)
		}
		if m := markdownMention.FindString(plain); m != "" {
			t.Fatalf("markdown outside its fences holds a mention (%q):\n%s", m, out)
		}
		if m := markdownLinkLike.FindString(plain); m != "" {
			t.Fatalf("markdown outside its fences holds a link (%q):\n%s", m, out)
		}
	case GoBench:
		checkGoBench(t, out, r)
	case BMF, JSON:
		if !json.Valid([]byte(out)) {
			t.Fatalf("%s: not JSON:\n%s", format, out)
		}
		if format == BMF {
			var bmf map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &bmf); err != nil {
				t.Fatal(err)
			}
			if len(bmf) != cases {
				t.Fatalf("BMF: %d benchmarks for %d cases:\n%s", len(bmf), cases, out)
			}
		}
	}
}

// checkGoBench reads gobench's output back as benchstat does: every
// sample of every case, each case's under a name of its own within its
// build (a comparison writes both programs, told apart by "build:").
func checkGoBench(t *testing.T, out string, r *results.Run) {
	t.Helper()
	var want []int // samples per case, of each program
	for _, p := range r.Programs {
		for _, c := range p.Results {
			want = append(want, len(c.Samples))
		}
	}
	byName := map[string]int{}
	reader := benchfmt.NewReader(strings.NewReader(out), "gobench")
	for reader.Scan() {
		switch rec := reader.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("gobench: %v:\n%s", rec, out)
		case *benchfmt.Result:
			// The program's name, then /case=NAME and maybe /size=N: a
			// name's '/' or trailing -N would add a part.
			_, parts := rec.Name.Parts()
			if len(parts) == 0 || len(parts) > 2 || !bytes.HasPrefix(parts[0], []byte("/case=")) {
				t.Fatalf("gobench: %q reads as parts %q", rec.Name, parts)
			}
			byName[rec.GetConfig("build")+"\x00"+string(rec.Name)]++
		}
	}
	if err := reader.Err(); err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, n := range byName {
		got = append(got, n)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("gobench: samples per benchmark %v, per case %v:\n%s", got, want, out)
	}
}

// blocks are the runs of lines of s from a line first takes to the next
// line last takes, both included.
func blocks(s string, first, last func(string) bool) [][]string {
	var out [][]string
	var cur []string
	for _, l := range strings.Split(s, "\n") {
		switch {
		case cur == nil && first(l):
			cur = []string{l}
		case cur != nil:
			cur = append(cur, l)
			if last(l) {
				out = append(out, cur)
				cur = nil
			}
		}
	}
	return out
}
