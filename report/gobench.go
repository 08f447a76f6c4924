package report

import (
	"io"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"
)

// writeGoBench writes Go benchmark result lines, one per sample, that
// benchstat reads: `benchstat old.txt new.txt`. Each line carries the
// case's BPF instruction count too, as insns/op, where it was counted. A before/after run labels
// its programs with the configuration key "build" (`benchstat -col build`).
// Only keys that should match between runs are written, since benchstat
// puts results whose configurations differ in separate tables.
func (r *Report) writeGoBench(w io.Writer) error {
	bw := benchfmt.NewWriter(w)
	env := r.Environment
	for _, p := range r.Programs {
		config := []benchfmt.Config{
			{Key: "goos", Value: []byte("linux"), File: true},
			{Key: "goarch", Value: []byte(env.Arch), File: true},
			{Key: "cpu", Value: []byte(env.CPUModel), File: true},
			{Key: "kernel", Value: []byte(env.Kernel), File: true},
		}
		if p.Label != "" {
			config = append(config, benchfmt.Config{Key: "build", Value: []byte(p.Label), File: true})
		}
		for _, c := range p.Results {
			name := benchfmt.Name(benchmarkName(p.Info.Name) + "/case=" + c.Name)
			for _, s := range c.Samples {
				values := []benchfmt.Value{{Value: s, Unit: "ns/op"}}
				if c.Instructions > 0 {
					// The same on every line: benchstat shows it exact.
					values = append(values, benchfmt.Value{Value: float64(c.Instructions), Unit: "insns/op"})
				}
				err := bw.Write(&benchfmt.Result{
					Config: config,
					Name:   name,
					Iters:  int(env.Repeat),
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

// benchmarkName turns a program name into a Go benchmark name, to which
// the writer adds "Benchmark": fizzbuzz becomes Fizzbuzz, xdp_pass Xdp_pass.
func benchmarkName(program string) string {
	r := []rune(program)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return strings.Map(func(c rune) rune {
		if unicode.IsSpace(c) || c == '/' {
			return '_'
		}
		return c
	}, string(r))
}
