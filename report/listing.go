package report

import (
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// The listings of the programs and packets commands: what is bundled,
// what an object holds, the packet cases.

// Build is a bundled build, or a rung of the fine ladder, as the
// programs command lists it.
type Build struct {
	Name        string // as given on the command line
	Program     string // the function in its object
	Description string
}

// writeBuilds writes the bundled builds and the fine ladder's rungs as a
// table; def is marked the default.
func writeBuilds(w io.Writer, list []Build, def string) error {
	table := printable.Table(w)
	table.Header("build", "program", "description")
	for _, build := range list {
		name := build.Name
		if name == def {
			name += " (default)"
		}
		if err := table.Append(name, build.Program, build.Description); err != nil {
			return err
		}
	}
	return table.Render()
}

// builds are the bundled builds and the fine ladder's rungs, def the
// default.
type builds struct {
	list []Build
	def  string
}

// OfBuilds is a listing of the bundled builds; def is marked the default.
func OfBuilds(list []Build, def string) Content { return Content{KindBuilds, builds{list, def}} }

// ObjectListing is what an object holds: its programs, maps and global
// variables.
type ObjectListing struct {
	Name      string // the object, as the run names it
	Programs  []ListedProgram
	Maps      []ListedMap
	Variables []ListedVariable
}

// OfObject is a listing of an object's programs, whether each can be
// measured, its maps and its variables, for writing a --map-init file
// and --set.
func OfObject(l ObjectListing) Content { return Content{KindObject, l} }

// ListedProgram is a program of an object, as a listing shows it.
type ListedProgram struct {
	Name    string
	Type    string // its program type, UnspecifiedProgram where its section names none
	Section string
	// Measurable says whether and how xdpmicro measures it: "yes", "no",
	// or the flag it takes ("with --type").
	Measurable string
}

// ListedMap is a map of an object, as a listing shows it.
type ListedMap struct {
	Name       string
	Type       string
	Key        string // the key's C type, or its size without BTF
	Value      string // likewise
	MaxEntries uint32 // 0: sized by the loader
	Notes      []string
}

// ListedVariable is a global variable of an object, as a listing shows
// it, for --set.
type ListedVariable struct {
	Name    string
	Section string
	Type    string
	Size    uint32
	Value   string // the initial value
}

// Write lists the object's programs, whether each can be measured, its
// maps and its variables, for writing a --map-init file and --set.
func (l ObjectListing) Write(w io.Writer) error {
	table := printable.Table(w)
	table.Header("program", "type", "section", "measurable")
	for _, p := range l.Programs {
		if err := table.Append(p.Name, p.Type, p.Section, p.Measurable); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d program(s) in %s\n", len(l.Programs), l.Name); err != nil {
		return err
	}
	if len(l.Maps) > 0 {
		table := printable.Table(w)
		table.Header("map", "type", "key", "value", "max entries", "notes")
		for _, m := range l.Maps {
			size := strconv.FormatUint(uint64(m.MaxEntries), 10)
			if m.MaxEntries == 0 {
				size = "-"
			}
			if err := table.Append(m.Name, m.Type, m.Key, m.Value, size, strings.Join(m.Notes, "; ")); err != nil {
				return err
			}
		}
		if err := table.Render(); err != nil {
			return err
		}
	}
	if len(l.Variables) > 0 {
		table := printable.Table(w)
		table.Header("variable", "section", "type", "size", "value")
		for _, v := range l.Variables {
			if err := table.Append(v.Name, v.Section, v.Type, strconv.FormatUint(uint64(v.Size), 10), v.Value); err != nil {
				return err
			}
		}
		if err := table.Render(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%d map(s), %d variable(s); fill maps with --map-init, set variables with --set NAME=VALUE\n", len(l.Maps), len(l.Variables))
	return err
}

// CaseListing is the packet cases and, where a program ran them once,
// what it did to each.
type CaseListing struct {
	Cases []packets.Case
	// Checked is, case by case, what the program did; nil if none ran.
	Checked []CheckedCase
	// Classes says why each IPv4 source is in its FizzBuzzFibonacci
	// class, as the bundled v3 and v4 decide it.
	Classes bool
}

// CheckedCase is what a program did to a case in its checking run.
type CheckedCase struct {
	Action  string
	Effects []results.Effect // the changes to its maps
	Output  []byte           // the frame as it left it; nil if unchanged
}

// Write lists the cases and, when the program ran them, what it did.
func (l CaseListing) Write(w io.Writer) error {
	if err := l.writeTable(w); err != nil {
		return err
	}
	for _, c := range l.Cases {
		if l.Classes && c.Source.Is4() {
			fmt.Fprintf(w, "%s: %s is in class %s: %s\n", c.Name, c.Source, packets.Classify(c.Source), packets.Reason(c.Source))
		}
	}
	for _, c := range l.Cases {
		if len(c.Context) > 0 {
			fmt.Fprintf(w, "%s: context %s\n", c.Name, c.Context)
		}
	}
	l.writeFrames(w)
	_, err := fmt.Fprintln(w)
	return err
}

// writeTable is the table of the cases, with the program's action and
// output frame when it ran them.
func (l CaseListing) writeTable(w io.Writer) error {
	table := printable.Table(w)
	header := []any{"case", "summary", "source", "bytes", "expect"}
	if l.Checked != nil {
		header = append(header, "action", "frame out")
	}
	table.Header(header...)
	for i, c := range l.Cases {
		src := ""
		if c.Source.IsValid() {
			src = c.Source.String()
		}
		row := []any{c.Name, c.Summary, src, fmt.Sprint(len(c.Frame)), c.Expect}
		if l.Checked != nil {
			out := "unchanged"
			if l.Checked[i].Output != nil {
				out = packets.Changes(c.Frame, l.Checked[i].Output)
			}
			row = append(row, l.Checked[i].Action, out)
		}
		if err := table.Append(row...); err != nil {
			return err
		}
	}
	return table.Render()
}

// writeFrames dumps each case's frame and, when the program ran it, its
// effects and the frame as the program left it.
func (l CaseListing) writeFrames(w io.Writer) {
	for i, c := range l.Cases {
		fmt.Fprintf(w, "\n%s (%d bytes)\n%s", c.Name, len(c.Frame), hex.Dump(c.Frame))
		if l.Checked == nil {
			continue
		}
		for _, e := range l.Checked[i].Effects {
			fmt.Fprintf(w, "%s: %s\n", c.Name, e)
		}
		if out := l.Checked[i].Output; out != nil {
			fmt.Fprintf(w, "%s, as the program left it (%s): %s\n%s", c.Name, l.Checked[i].Action, packets.Summarize(out), hex.Dump(out))
		}
	}
}

// WritePcap writes the cases as a pcap.
func (l CaseListing) WritePcap(w io.Writer) error { return packets.WritePcap(w, l.Cases) }
