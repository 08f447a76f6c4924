package main

import (
	"fmt"

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
	quiet     bool
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
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no line on stderr naming the --pcap file written (packets draws no progress), as bench and worst take it")
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
	listing := report.CaseListing{Cases: cases, Classes: defaults.expect}
	if f.out != "" {
		if err := (report.Output{Format: report.Pcap, Path: f.out}).Write(cmd.OutOrStdout(), report.OfPcap(listing)); err != nil {
			return err
		}
		if !f.quiet {
			fmt.Fprintf(cmd.ErrOrStderr(), "xdpmicro: %d case(s) written to %s\n", len(cases), f.out)
		}
		return nil
	}
	if prog != nil {
		checked, err := f.runCases(cmd, *prog, cases)
		if err != nil {
			return err
		}
		listing.Checked = make([]report.CheckedCase, len(checked))
		for i, c := range checked {
			listing.Checked[i] = report.CheckedCase{Action: c.Action, Output: c.Output}
			for _, e := range c.Effects {
				listing.Checked[i].Effects = append(listing.Checked[i].Effects, results.Effect(e))
			}
		}
	}
	// The FizzBuzzFibonacci classes explain the bundled builds' cases
	// only: the listing without OBJECT, and a bundled FizzBuzz build.
	return report.Output{Format: report.Table}.Write(cmd.OutOrStdout(), report.OfCases(listing))
}

// programToRun is the program OBJECT names, if any, and the cases' defaults
// for it.
func (f packetsFlags) programToRun(args []string) (*xdpmicro.Program, caseDefaults, error) {
	defaults := caseDefaults{classes: true, expect: true}
	if len(args) != 1 {
		if f.program != "" || f.mapInit != "" {
			return nil, defaults, usageError(fmt.Errorf("--program and --map-init need OBJECT"))
		}
		return nil, defaults, nil
	}
	found := xdpmicro.Find(args[0], f.program)
	if err := found.Err(); err != nil {
		return nil, defaults, err
	}
	defaults.classes, defaults.expect = xdpmicro.CaseDefaults(found)
	return &found, defaults, nil
}

// runCases runs each case once through prog, as bench's checking run
// does, with the maps filled from --map-init.
func (f packetsFlags) runCases(cmd *cobra.Command, prog xdpmicro.Program, cases []packets.Case) ([]testrun.CaseResult, error) {
	var mapInit *xdpmicro.MapInit
	if f.mapInit != "" {
		var err error
		if mapInit, err = xdpmicro.ReadMapInit(f.mapInit); err != nil {
			return nil, err
		}
	}
	return xdpmicro.Check(cmd.Context(), prog, cases, mapInit, noticeTo(cmd.ErrOrStderr()))
}
