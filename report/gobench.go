package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
)

// goBenchUnits are the units' metadata, written once before the
// benchmark lines in the form benchfmt reads (a key=value pair or several
// after the unit): an instruction count is exact, so benchstat shows it
// without a spread or a test, and for both units lower is better.
var goBenchUnits = []struct{ unit, metadata string }{
	{"insns/op", "assume=exact better=lower"},
	{"ns/op", "better=lower"},
}

// writeGoBench writes Go benchmark result lines, one per sample, that
// benchstat reads: `benchstat old.txt new.txt`. Each line carries the
// case's BPF instruction count too, as insns/op, where it was counted. A before/after run labels
// its programs with the configuration key "build" (`benchstat -col build`).
// Only keys that should match between runs are written, since benchstat
// puts results whose configurations differ in separate tables.
//
// A line's ns/op is its sample's time per run: with linear sampling that
// call's own, from the wall clock (callTimes), to 0.0001 ns, with the call's
// repeat as the line's iterations; with flat sampling, or one run a call,
// the kernel's whole-ns figure. The kernel's figures of a linear case are
// not written beside it (as, say, kernel-ns/op): benchstat would make a
// second table of time per run from them, of whole ns over repeats that
// differ call to call, which could disagree with the first, and the
// default view is better for one table of time and one of instructions.
// The JSON output keeps them.
func (r doc) writeGoBench(w io.Writer) error {
	for _, u := range goBenchUnits {
		if _, err := fmt.Fprintf(w, "Unit %s %s\n", u.unit, u.metadata); err != nil {
			return err
		}
	}
	bw := benchfmt.NewWriter(w)
	env := r.Environment
	for _, p := range r.Programs {
		// A value from a saved file stays on its line, as text.
		config := []benchfmt.Config{
			{Key: "goos", Value: []byte("linux"), File: true},
			{Key: "goarch", Value: []byte(printableLine(env.Arch)), File: true},
			{Key: "cpu", Value: []byte(printableLine(env.CPUModel)), File: true},
			{Key: "kernel", Value: []byte(printableLine(env.Kernel)), File: true},
		}
		if p.Label != "" {
			config = append(config, benchfmt.Config{Key: "build", Value: []byte(printableLine(p.Label)), File: true})
		}
		names := goBenchNames(benchmarkName(p.Info.Name), p.Results, len(r.Settings.Sizes) > 0)
		for i, c := range p.Results {
			perRun, calls := c.Samples, printable.CallTimes(c)
			if calls != nil {
				perRun = make([]float64, len(calls))
				for k, v := range calls {
					perRun[k] = roundNs(v)
				}
			}
			for k, s := range perRun {
				iters := int(env.Repeat)
				if calls != nil {
					iters = int(c.Runs[k])
				}
				values := []benchfmt.Value{{Value: s, Unit: "ns/op"}}
				if c.Instructions > 0 {
					// The same on every line: exact (goBenchUnits).
					values = append(values, benchfmt.Value{Value: float64(c.Instructions), Unit: "insns/op"})
				}
				err := bw.Write(&benchfmt.Result{
					Config: config,
					Name:   benchfmt.Name(names[i]),
					Iters:  iters,
					Values: values,
				})
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// roundNs rounds a time per run from the wall clock to 0.0001 ns, which
// keeps digits far below any figure's noise and none of the float's own.
func roundNs(ns float64) float64 { return math.Round(ns*1e4) / 1e4 }

// benchmarkName turns a program name into a Go benchmark name, to which
// the writer adds "Benchmark": fizzbuzz becomes Fizzbuzz, xdp_pass Xdp_pass.
func benchmarkName(program string) string {
	r := []rune(program)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return strings.Map(func(c rune) rune {
		if unicode.IsSpace(c) || c == '/' || !unicode.IsPrint(c) {
			return '_'
		}
		return c
	}, string(r))
}

// goBenchNames names each case's benchmark, base/case=<name>, as Go's
// sub-benchmarks are named, so that benchstat can group by /case. A case
// padded to a size (sized: --size was given) is base/case=<name>/size=<bytes>.
//
// benchfmt reads a name up to the first white space, splits it into
// sub-names at every '/', and takes a trailing -<digits> for GOMAXPROCS;
// a capture case's name, "1:tcp 192.0.2.10>198.51.100.20" or
// "3:ip6/41 ...", would break all three. White space and '/' become '_',
// the '-' of a trailing -<digits> becomes '_', and a name that this makes
// equal to an earlier one gets #01, #02, ... as Go's testing package does.
func goBenchNames(base string, cases []results.Case, sized bool) []string {
	names := make([]string, len(cases))
	seen := make(map[string]bool)
	for i, c := range cases {
		name, size := c.Name, ""
		if cut, after, ok := cutLast(name, "@"); sized && ok && after == strconv.Itoa(c.Length) {
			name, size = cut, after
		}
		full := base + "/case=" + subName(name)
		if size != "" {
			full += "/size=" + size
		}
		full = notGomaxprocs(full)
		unique := full
		for n := 1; seen[unique]; n++ {
			unique = fmt.Sprintf("%s#%02d", full, n)
		}
		seen[unique] = true
		names[i] = unique
	}
	return names
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// subName makes a value fit in one sub-benchmark name.
func subName(s string) string {
	return strings.Map(func(c rune) rune {
		if unicode.IsSpace(c) || c == '/' || !unicode.IsPrint(c) {
			return '_'
		}
		return c
	}, s)
}

// notGomaxprocs keeps benchfmt from reading a name's trailing -<digits>,
// such as a case named "udp-2", as a GOMAXPROCS suffix.
func notGomaxprocs(name string) string {
	i := strings.LastIndexFunc(name, func(c rune) bool { return c < '0' || c > '9' })
	if i >= 0 && i < len(name)-1 && name[i] == '-' {
		return name[:i] + "_" + name[i+1:]
	}
	return name
}
