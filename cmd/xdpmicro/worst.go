package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

type worstFlags struct {
	program    string
	mapInit    string
	load       loadFlags
	selection  caseFlags
	budget     time.Duration
	candidates uint64
	seed       uint64
	top        int
	timing     time.Duration
	cpu        cpuFlag
	format     string
	output     string
	quiet      bool
}

func worstCommand() *cobra.Command {
	var f worstFlags
	cmd := &cobra.Command{
		Use:   "worst [OBJECT]",
		Short: "Search for the packets that cost a program the most, and time the costliest",
		Long: `Search the space of packets for those that make a program run the most BPF
instructions, then time the costliest distinct paths as bench does, net of the
floor, and rank them both ways.

OBJECT and the loading flags are bench's. The search starts from every
built-in case and from --packets and --pcap, and changes them a field at a time
(Ethernet, VLAN and QinQ, IPv4 and IPv6 with options and extension headers,
fragments, TCP with flags and options, UDP, ICMP, ARP, IPIP, GUE and VXLAN,
frame lengths), built with valid lengths and checksums, or byte by byte. Each
packet runs once through a copy of the program that counts its basic blocks;
a packet that reaches a new block, or runs one more often than any before, is
kept to change further, and fields take the values the program's jumps compare
against and the keys in its maps. One packet is kept for each distinct path.

Ctrl-C ends the search: the costliest packets so far are shown, and written
to --output, and xdpmicro exits 130. docs/worst.md explains the output.`,
		Example: `  # v3's costliest packets, and a file bench takes
  sudo xdpmicro worst v3 -o found.yaml && sudo xdpmicro bench v3 --packets found.yaml

  # your program, its maps filled, reproducibly: the same seed and number of packets
  sudo xdpmicro worst prog.o --map-init maps.yaml --seed 7 --candidates 2000000 --format json`,
		Args:              atMostArgs(1),
		ValidArgsFunction: completeObject,
		RunE:              func(cmd *cobra.Command, args []string) error { return runWorst(cmd, args, f) },
	}
	f.register(cmd)
	return cmd
}

// register adds the flags by topic: what to run, where to start, how
// long to search, the timing, the output.
func (f *worstFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	registerProgram(fl, &f.program)
	registerMapInit(fl, &f.mapInit)
	f.load.register(cmd)
	f.selection.registerFiles(cmd, "pcap")
	f.selection.registerContext(cmd)
	fl.DurationVar(&f.budget, "time", xdpmicro.DefaultWorstBudget, "search for `D` (at most "+shortDuration(maxDuration)+"), then time the packets found")
	fl.Uint64Var(&f.candidates, "candidates", 0, fmt.Sprintf("stop the search after `N` packets (at most %d), before --time if sooner: "+
		"with --seed, the same result every run", uint64(xdpmicro.MaxWorstCandidates)))
	explainDefault(fl, "candidates", "until --time")
	fl.Uint64Var(&f.seed, "seed", xdpmicro.DefaultWorstSeed, "seed the search with `N`, any 64-bit number: the same seed tries the same packets in the same order")
	fl.IntVar(&f.top, "top", xdpmicro.DefaultWorstTop, fmt.Sprintf("keep and time the `N` costliest distinct paths, 1 to %d", xdpmicro.MaxWorstTop))
	fl.DurationVar(&f.timing, "timing", xdpmicro.DefaultWorstTiming, "time the packets found for at most `D`, as bench --time (at most "+shortDuration(maxDuration)+"); "+
		"0: rank by instructions only")
	f.cpu.register(fl)
	fl.StringVar(&f.format, "format", string(report.Table), "write the report in `FORMAT`: "+report.KindWorst.Help())
	fl.StringVarP(&f.output, "output", "o", "", "also write the packets found to `FILE`, atomically, as a packet file that bench --packets takes")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress line on stderr (it is only drawn when stderr is a terminal)")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(report.KindWorst.Formats()))
}

// check refuses, naming the flag, what cannot run, before anything is
// read or loaded.
func (f worstFlags) check() error {
	if _, err := report.KindWorst.Parse(f.format); err != nil {
		return usageError(fmt.Errorf("--format: %w", err))
	}
	if f.candidates > xdpmicro.MaxWorstCandidates {
		return usageError(fmt.Errorf("--candidates %d: want at most %d", f.candidates, uint64(xdpmicro.MaxWorstCandidates)))
	}
	if err := checkDuration("time", f.budget, false, "20s"); err != nil {
		return err
	}
	if err := checkDuration("timing", f.timing, true, "5s, or 0 not to time"); err != nil {
		return err
	}
	if err := checkCount("top", f.top, 1, xdpmicro.MaxWorstTop); err != nil {
		return err
	}
	if err := f.cpu.check(); err != nil {
		return err
	}
	if err := f.load.check(); err != nil {
		return err
	}
	return checkFileTarget("output", f.output)
}

// options turns the flags into xdpmicro.Worst's search and timing (nil:
// --timing 0): the object and the seeds read, the map-init file parsed,
// nothing loaded.
func (f worstFlags) options(cmd *cobra.Command, args []string) (xdpmicro.WorstSearch, *xdpmicro.Options, error) {
	if err := f.check(); err != nil {
		return xdpmicro.WorstSearch{}, nil, err
	}
	name := bpf.Default
	if len(args) == 1 {
		name = args[0]
	}
	prog := xdpmicro.Find(name, f.program)
	if err := prog.Err(); err != nil {
		return xdpmicro.WorstSearch{}, nil, err
	}
	seeds, err := f.selection.seeds(cmd)
	if err != nil {
		return xdpmicro.WorstSearch{}, nil, err
	}
	var mapInit *xdpmicro.MapInit
	if f.mapInit != "" {
		if mapInit, err = xdpmicro.ReadMapInit(f.mapInit); err != nil {
			return xdpmicro.WorstSearch{}, nil, err
		}
	}
	search := xdpmicro.WorstSearch{Program: prog, MapInit: mapInit, Load: f.load.options(), Seeds: seeds,
		Budget: f.budget, Candidates: f.candidates, Seed: f.seed, Top: f.top}
	if f.timing == 0 {
		return search, nil, nil // ranked by instructions alone
	}
	timing := &xdpmicro.Options{CPU: f.cpu.option(), Budget: f.timing, Settings: results.Settings{Program: f.program}}
	return search, timing, nil
}

// runWorst searches and times, then writes the report and the packet
// file: the best found so far when interrupted.
func runWorst(cmd *cobra.Command, args []string, f worstFlags) error {
	search, timing, err := f.options(cmd, args)
	if err != nil {
		return err
	}
	ctx, stop, caught := signalContext(cmd.ErrOrStderr())
	defer stop()
	obs := newWorstObserver(cmd, f.quiet)
	rep, err := xdpmicro.Worst(ctx, search, timing, obs)
	obs.finish()
	switch {
	case rep == nil && caught() != 0 && xdpmicro.Interrupted(err):
		fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: interrupted before the search began; nothing written")
		return interrupted{signal: int(caught())}
	case rep == nil:
		return f.load.hint(err)
	case err != nil && caught() != 0 && xdpmicro.Interrupted(err):
		fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: interrupted; the costliest packets found so far follow")
		if werr := f.write(cmd, rep); werr != nil {
			return werr
		}
		return interrupted{signal: int(caught())}
	case err != nil:
		// The search's findings are not lost with the timing.
		_ = f.writeReport(cmd, rep)
		return err
	}
	return f.write(cmd, rep)
}

// writeReport puts the report on standard output.
func (f worstFlags) writeReport(cmd *cobra.Command, rep *xdpmicro.WorstReport) error {
	return report.Output{Format: report.Format(f.format)}.Write(cmd.OutOrStdout(), report.OfWorst(&rep.Worst))
}

// write puts the report on standard output and the packets in --output.
func (f worstFlags) write(cmd *cobra.Command, rep *xdpmicro.WorstReport) error {
	if err := f.writeReport(cmd, rep); err != nil {
		return err
	}
	if f.output == "" {
		return nil
	}
	if len(rep.Packets) == 0 {
		return errors.New("no packet was found to write to --output")
	}
	if err := (report.Output{Format: report.PacketFile, Path: f.output}).Write(cmd.OutOrStdout(), report.OfWorstPackets(&rep.Worst, rep.Cases())); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "xdpmicro: %d packets written to %s\n", len(rep.Packets), f.output)
	return nil
}
