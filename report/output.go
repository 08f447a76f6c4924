package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// Every output of every command goes through this file, but for the HTML
// page: the registry of formats says, for each kind of content, which
// formats render it and how (one row decides each kind and format);
// Output.Write puts the rendering on standard output or, atomically, in
// a file. A new format is a row of the registry: the commands' flag help,
// checking and completion read it from here.
//
// The HTML page (--report DIR) is a directory of a page and its figures,
// not one rendering to one file, and it embeds this package's wide
// table, so it is internal/htmlpage's own: it writes each of its files
// atomically through internal/safefs, as WriteFile does.

// Kind is what a command writes: each kind has its own formats.
type Kind string

// The kinds of content.
const (
	KindRun            Kind = "a run"                             // bench, compare: one results.Run
	KindRuns           Kind = "several programs' runs"            // bench over several programs
	KindKernels        Kind = "a run across kernels"              // bench --kernel
	KindProfile        Kind = "a profile"                         // profile
	KindKernelProfiles Kind = "a profile across kernels"          // profile --kernel
	KindWorst          Kind = "a report of the costliest packets" // worst
	KindWorstPackets   Kind = "a packet file"                     // worst --output
	KindValidation     Kind = "a validation"                      // validate
	KindVerification   Kind = "a verification"                    // verifier
	KindBuilds         Kind = "the bundled builds"                // programs
	KindObject         Kind = "an object's contents"              // programs OBJECT
	KindCases          Kind = "the packet cases"                  // packets
	KindPcap           Kind = "a pcap"                            // packets --pcap
	KindReplay         Kind = "a replay"                          // replay
)

// The formats that are not a run's (format.go has those).
const (
	Text      Format = "text"      // for people: a profile, a validation
	Pprof     Format = "pprof"     // gzipped profile.proto, for go tool pprof
	Callgrind Format = "callgrind" // for callgrind_annotate and KCachegrind
	// PacketFile is a packet file that bench --packets takes.
	PacketFile Format = "packets"
	Pcap       Format = "pcap" // for tcpdump and Wireshark
)

// rendering is one row of the registry: how one format renders one kind.
type rendering struct {
	kind   Kind
	format Format
	// note says what the format is for, in the flag's help, where its
	// name does not.
	note string
	// text says the rendering is text holding names from files, escaped
	// by Printable on standard output (a file gets it as it is).
	text bool
	// forPeople marks the rendering a failed file falls back to on
	// standard output, so that the run is not lost with the file.
	forPeople bool
	render    func(w io.Writer, value any, v View) error
	// apart, for a run's format, puts a blank line between several
	// programs' runs, each a document for reading.
	apart bool
	// several, for a run's format, renders several programs' runs as one
	// document; without it they follow one another (KindRuns, all.go).
	several func(w io.Writer, reps []*results.Run, v View) error
}

// registry lists every rendering, each kind's formats in the order help
// lists them. Filled by init: renderers name the kinds' formats in their
// errors, which read the registry.
var registry []rendering

func init() { registry = withSeveralRuns(append(renderings(), replayRenderings()...)) }

func renderings() []rendering {
	return []rendering{
		{kind: KindRun, format: Table, forPeople: true, apart: true, render: run(func(r doc, w io.Writer, v View) error { return tableView{r, v}.write(w) })},
		{kind: KindRun, format: BMF, note: "for Bencher", render: run(func(r doc, w io.Writer, _ View) error { return r.writeBMF(w) }), several: severalBMF},
		{kind: KindRun, format: JSON, note: "everything, for compare", render: run(func(r doc, w io.Writer, _ View) error { return writeJSON(w, r) }), several: severalJSON},
		{kind: KindRun, format: GoBench, note: "for benchstat", render: run(func(r doc, w io.Writer, _ View) error { return r.writeGoBench(w) })},
		{kind: KindRun, format: Markdown, note: "for a GitHub comment or job summary", apart: true, render: run(doc.writeMarkdown)},

		{kind: KindKernels, format: Table, forPeople: true, render: kernels(kernelsTable.write)},
		{kind: KindKernels, format: JSON, render: kernels(func(t kernelsTable, w io.Writer) error { return writeJSON(w, t.KernelRuns) })},
		{kind: KindKernels, format: BMF, render: kernels(func(t kernelsTable, w io.Writer) error { return writeJSON(w, kernelsBMF(t.KernelRuns)) })},
		{kind: KindKernels, format: Markdown, render: kernels(kernelsTable.writeMarkdown)},

		{kind: KindProfile, format: Text, text: true, forPeople: true, render: func(w io.Writer, x any, v View) error {
			return writeProfileText(w, x.(*results.ProfileReport), v)
		}},
		{kind: KindProfile, format: Pprof, note: "for go tool pprof", render: func(w io.Writer, x any, _ View) error {
			return writePprof(w, x.(*results.ProfileReport))
		}},
		{kind: KindProfile, format: Callgrind, note: "for callgrind_annotate, KCachegrind", render: func(w io.Writer, x any, _ View) error {
			return writeCallgrind(w, x.(*results.ProfileReport))
		}},
		{kind: KindProfile, format: JSON, render: func(w io.Writer, x any, _ View) error { return writeProfileJSON(w, x) }},

		{kind: KindKernelProfiles, format: Text, text: true, forPeople: true, render: func(w io.Writer, x any, v View) error {
			return writeKernelProfiles(w, x.(results.KernelProfiles), v)
		}},
		{kind: KindKernelProfiles, format: JSON, render: func(w io.Writer, x any, _ View) error { return writeProfileJSON(w, x) }},

		{kind: KindWorst, format: Table, text: true, forPeople: true, render: func(w io.Writer, x any, _ View) error { return writeWorstTable(w, x.(*results.Worst)) }},
		{kind: KindWorst, format: JSON, render: func(w io.Writer, x any, _ View) error { return writeWorstJSON(w, x.(*results.Worst)) }},
		{kind: KindWorstPackets, format: PacketFile, render: func(w io.Writer, x any, _ View) error {
			p := x.(worstPackets)
			return writeWorstPackets(w, p.report, p.cases)
		}},

		{kind: KindValidation, format: Text, forPeople: true, render: func(w io.Writer, x any, _ View) error { return x.(validation).writeText(w) }},
		{kind: KindValidation, format: JSON, render: func(w io.Writer, x any, _ View) error { return writeValidationJSON(w, x.(validation).v) }},

		{kind: KindVerification, format: Table, text: true, forPeople: true, render: func(w io.Writer, x any, _ View) error {
			return writeVerificationTable(w, x.(*results.Verification))
		}},
		{kind: KindVerification, format: JSON, render: func(w io.Writer, x any, _ View) error { return writeJSON(w, x) }},
		{kind: KindVerification, format: BMF, note: "for Bencher", render: func(w io.Writer, x any, _ View) error {
			return verificationBMF(w, x.(*results.Verification))
		}},

		{kind: KindBuilds, format: Table, text: true, forPeople: true, render: func(w io.Writer, x any, _ View) error {
			return writeBuilds(w, x.(builds).list, x.(builds).def)
		}},
		{kind: KindObject, format: Table, text: true, forPeople: true, render: func(w io.Writer, x any, _ View) error { return x.(ObjectListing).Write(w) }},
		{kind: KindCases, format: Table, text: true, forPeople: true, render: func(w io.Writer, x any, _ View) error { return x.(CaseListing).Write(w) }},
		{kind: KindPcap, format: Pcap, render: func(w io.Writer, x any, _ View) error { return x.(CaseListing).WritePcap(w) }},
	}
}

// run adapts a renderer of one report to the registry.
func run(render func(r doc, w io.Writer, v View) error) func(io.Writer, any, View) error {
	return func(w io.Writer, x any, v View) error { return render(doc{x.(*results.Run)}, w, v) }
}

// Formats lists the formats of the kind, in the order help lists them.
func (k Kind) Formats() []string {
	var names []string
	for _, r := range registry {
		if r.kind == k {
			names = append(names, string(r.format))
		}
	}
	return names
}

// Help lists the kind's formats for a flag's help, each with what it is
// for where its name does not say: "table, bmf (for Bencher), ...".
func (k Kind) Help() string {
	var list []string
	for _, r := range registry {
		if r.kind != k {
			continue
		}
		name := string(r.format)
		if r.note != "" {
			name += " (" + r.note + ")"
		}
		list = append(list, name)
	}
	return strings.Join(list, ", ")
}

// Parse checks that the kind is written in the format called name.
func (k Kind) Parse(name string) (Format, error) {
	if _, ok := lookup(k, Format(name)); !ok {
		return "", fmt.Errorf("%w %q: %s is written as %s", ErrFormat, name, k, orList(k.Formats()))
	}
	return Format(name), nil
}

// orList writes "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func lookup(k Kind, f Format) (rendering, bool) {
	for _, r := range registry {
		if r.kind == k && r.format == f {
			return r, true
		}
	}
	return rendering{}, false
}

// Content is something a command writes: a value and its kind. The Of
// functions make one.
type Content struct {
	kind  Kind
	value any
}

// OfRun is a run's report, or a comparison's: bench, compare.
func OfRun(r *results.Run) Content { return Content{KindRun, r} }

// OfRuns is several programs' reports, each measured on its own.
func OfRuns(reps []*results.Run) Content { return Content{KindRuns, reps} }

// OfKernels is a run across kernels.
func OfKernels(runs results.KernelRuns) Content { return Content{KindKernels, runs} }

// OfProfile is a profile, or two builds' and their difference.
func OfProfile(rep *results.ProfileReport) Content { return Content{KindProfile, rep} }

// OfKernelProfiles is a profile across kernels.
func OfKernelProfiles(kp results.KernelProfiles) Content { return Content{KindKernelProfiles, kp} }

// OfWorst is the costliest packets a search found.
func OfWorst(rep *results.Worst) Content { return Content{KindWorst, rep} }

// OfWorstPackets is the packets a search found, as a packet file: cases
// are rep's packets, in its order, as the search found them (their
// frames and contexts).
func OfWorstPackets(rep *results.Worst, cases []packets.Case) Content {
	return Content{KindWorstPackets, worstPackets{rep, cases}}
}

// worstPackets is a search's report and its packets as cases, for the
// packet file: the frames and contexts are not in the saved report.
type worstPackets struct {
	report *results.Worst
	cases  []packets.Case
}

// OfValidation is a validation's figures, with how and where they were
// measured.
func OfValidation(v *results.Validation, est stats.Estimator, env results.Environment) Content {
	return Content{KindValidation, validation{v, est, env}}
}

// OfCases is the packet cases, and what a program did to them where it
// ran them.
func OfCases(l CaseListing) Content { return Content{KindCases, l} }

// OfPcap is the packet cases as a pcap.
func OfPcap(l CaseListing) Content { return Content{KindPcap, l} }

// Output is where and how a command writes: a format, and a file or
// standard output.
type Output struct {
	Format Format
	// Path is the file to write, atomically; "" is standard output.
	Path string
	View View
}

// Write renders c in o's format to o's file or, without one, to stdout.
// If the file cannot be written after all, c still reaches stdout, as
// people read it (Fallback): the run is not lost with the file.
func (o Output) Write(stdout io.Writer, c Content) error {
	r, ok := lookup(c.kind, o.Format)
	if !ok {
		_, err := c.kind.Parse(string(o.Format))
		return err
	}
	if o.Path == "" {
		return r.toTerminal(stdout, c.value, o.View)
	}
	var buf bytes.Buffer
	if err := r.render(&buf, c.value, o.View); err != nil {
		return err
	}
	if err := WriteFile(o.Path, buf.Bytes()); err != nil {
		o.Fallback(stdout, c)
		return err
	}
	return nil
}

// Fallback puts c on stdout as people read it, the table or the text, if
// its kind has such a format: for a file, or a page, that could not be
// written, and for partial results, which are never written to a file.
func (o Output) Fallback(stdout io.Writer, c Content) {
	for _, r := range registry {
		if r.kind == c.kind && r.forPeople {
			_ = r.toTerminal(stdout, c.value, o.View)
			return
		}
	}
}

// NotesOnStderr says whether the notes and warnings that a table has
// under it must go to stderr instead: the table is not what reaches the
// terminal. Said once, in the table or on stderr, never twice.
func (o Output) NotesOnStderr() bool { return o.Path != "" || o.Format != Table }

// toTerminal renders to standard output, as text where names from files
// are in it (Printable), streamed: a listing can be tens of megabytes.
func (r rendering) toTerminal(w io.Writer, value any, v View) error {
	if r.text {
		w = PrintableWriter(w)
	}
	return r.render(w, value, v)
}

// WriteFile writes data to path atomically, as every file xdpmicro
// writes: a new file renamed over the name, so the path holds the old
// content or the whole new one, never a part; the path walked without
// following other users' symlinks (internal/safefs).
func WriteFile(path string, data []byte) error {
	if err := safefs.WriteFile(path, data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// validation is a validation's figures and the line of how and where
// they were measured.
type validation struct {
	v   *results.Validation
	est stats.Estimator
	env results.Environment
}

func (x validation) writeText(w io.Writer) error {
	err := writeValidationText(w, x.v)
	fmt.Fprintf(w, "estimator %s · timer %s · CPU %d · repeat %d · %s\n", x.est, x.env.Timer, x.env.CPU, x.env.Repeat, x.env.Kernel)
	return err
}
