package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

type packetsFlags struct {
	selection caseFlags
	out       string
	program   string
	mapInit   string
}

func packetsCommand() *cobra.Command {
	var f packetsFlags
	cmd := &cobra.Command{
		Use:   "packets [OBJECT]",
		Short: "Show the packet cases bench would use, what a program does to them, or write them as a pcap",
		Long: `Show the packet cases that bench would use with the same selection flags:
name, summary, source address, size, expected return, each frame in hex,
and, for the bundled FizzBuzzFibonacci builds, why each IPv4 source is in
its class.

Given OBJECT (a bundled build or an ELF object file), also run each case
once through the program, as bench's checking run does, and show what the
program did: its action, the changes to its maps, and the frame as it left
it (a line, how it differs from the input, and the hex). Nothing is timed.

With --pcap, write the cases instead as a pcap file for tcpdump or
Wireshark (the input capture, if any, is --from-pcap here).`,
		Example: `  xdpmicro packets
  xdpmicro packets --class fizz,short --size 64,1500
  sudo xdpmicro packets ./prog.o --packets cases.yaml       # what the program does to each
  xdpmicro packets --packets 'frames/*.bin'                 # raw frames, as bpftool's data_in
  xdpmicro packets --packets cases.yaml --pcap cases.pcap && tcpdump -nr cases.pcap`,
		Args:              atMostArgs(1),
		ValidArgsFunction: completeObject,
		RunE:              func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) },
	}
	f.selection.register(cmd, "from-pcap")
	fl := cmd.Flags()
	fl.StringVar(&f.out, "pcap", "", "write the cases to `FILE` as a pcap, atomically, instead of listing them")
	registerProgram(fl, &f.program)
	registerMapInit(fl, &f.mapInit)
	return cmd
}

func (f packetsFlags) run(cmd *cobra.Command, args []string) error {
	prog, defaults, err := f.programToRun(args)
	if err != nil {
		return err
	}
	if prog != nil && f.out != "" {
		return usageError(fmt.Errorf("--pcap writes the cases, OBJECT runs them: give one"))
	}
	cases, err := f.selection.cases(cmd, defaults)
	if err != nil {
		return err
	}
	if f.out != "" {
		return writePcapFile(cmd, f.out, cases)
	}
	var checked []testrun.CaseResult
	if prog != nil {
		if checked, err = f.runCases(cmd, *prog, cases); err != nil {
			return err
		}
	}
	// The FizzBuzzFibonacci classes explain the bundled builds' cases
	// only: the listing without OBJECT, and a bundled FizzBuzz build.
	// Names and summaries from files and captures are written as text
	// (report.Printable), streamed: ten thousand frames' dumps are tens
	// of megabytes.
	return writeCases(report.PrintableWriter(cmd.OutOrStdout()), cases, checked, defaults.expect)
}

// programToRun is the program OBJECT names, if any, and the cases' defaults
// for it.
func (f packetsFlags) programToRun(args []string) (*testrun.Program, caseDefaults, error) {
	defaults := caseDefaults{classes: true, expect: true}
	if len(args) != 1 {
		if f.program != "" || f.mapInit != "" {
			return nil, defaults, usageError(fmt.Errorf("--program and --map-init need OBJECT"))
		}
		return nil, defaults, nil
	}
	found := xdpmicro.Find(args[0], f.program)
	progs, err := xdpmicro.Targets(found)
	if err != nil {
		return nil, defaults, err
	}
	defaults.classes, defaults.expect = xdpmicro.CaseDefaults(found)
	return &progs[0], defaults, nil
}

// writePcapFile writes the cases to path as a pcap, atomically.
func writePcapFile(cmd *cobra.Command, path string, cases []packets.Case) error {
	var buf bytes.Buffer
	if err := packets.WritePcap(&buf, cases); err != nil {
		return err
	}
	if err := xdpmicro.WriteFile(path, buf.Bytes()); err != nil {
		return err
	}
	_, err := fmt.Fprintf(cmd.ErrOrStderr(), "xdpmicro: %d case(s) written to %s\n", len(cases), path)
	return err
}

// runCases runs each case once through prog, as bench's checking run
// does, with the maps filled from --map-init.
func (f packetsFlags) runCases(cmd *cobra.Command, prog testrun.Program, cases []packets.Case) ([]testrun.CaseResult, error) {
	var mapInit *xdpmicro.MapInit
	if f.mapInit != "" {
		var err error
		if mapInit, err = xdpmicro.ReadMapInit(f.mapInit); err != nil {
			return nil, err
		}
	}
	return xdpmicro.Check(cmd.Context(), prog, cases, mapInit, noticeTo(cmd.ErrOrStderr()))
}

// writeCases lists the cases and, when the program ran them, what it did;
// with classes, why each IPv4 source is in its FizzBuzzFibonacci class, as
// the bundled v3 and v4 decide it.
func writeCases(w io.Writer, cases []packets.Case, checked []testrun.CaseResult, classes bool) error {
	if err := writeCaseTable(w, cases, checked); err != nil {
		return err
	}
	for _, c := range cases {
		if classes && c.Source.Is4() {
			fmt.Fprintf(w, "%s: %s is in class %s: %s\n", c.Name, c.Source, packets.Classify(c.Source), packets.Reason(c.Source))
		}
	}
	for _, c := range cases {
		if len(c.Context) > 0 {
			fmt.Fprintf(w, "%s: context %s\n", c.Name, c.Context)
		}
	}
	writeFrames(w, cases, checked)
	_, err := fmt.Fprintln(w)
	return err
}

// writeCaseTable is the table of the cases, with the program's action and
// output frame when it ran them.
func writeCaseTable(w io.Writer, cases []packets.Case, checked []testrun.CaseResult) error {
	table := textTable(w)
	header := []any{"case", "summary", "source", "bytes", "expect"}
	if checked != nil {
		header = append(header, "action", "frame out")
	}
	table.Header(header...)
	for i, c := range cases {
		src := ""
		if c.Source.IsValid() {
			src = c.Source.String()
		}
		row := []any{c.Name, c.Summary, src, fmt.Sprint(len(c.Frame)), c.Expect}
		if checked != nil {
			out := "unchanged"
			if checked[i].Output != nil {
				out = packets.Changes(c.Frame, checked[i].Output)
			}
			row = append(row, checked[i].Action, out)
		}
		if err := table.Append(row...); err != nil {
			return err
		}
	}
	return table.Render()
}

// writeFrames dumps each case's frame and, when the program ran it, its
// effects and the frame as the program left it.
func writeFrames(w io.Writer, cases []packets.Case, checked []testrun.CaseResult) {
	for i, c := range cases {
		fmt.Fprintf(w, "\n%s (%d bytes)\n%s", c.Name, len(c.Frame), hex.Dump(c.Frame))
		if checked == nil {
			continue
		}
		for _, e := range checked[i].Effects {
			fmt.Fprintf(w, "%s: %s\n", c.Name, results.Effect(e)) // report words effects
		}
		if out := checked[i].Output; out != nil {
			fmt.Fprintf(w, "%s, as the program left it (%s): %s\n%s", c.Name, checked[i].Action, packets.Summarize(out), hex.Dump(out))
		}
	}
}
