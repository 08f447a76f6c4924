package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/crash"
	"github.com/xdpmicro/xdpmicro/internal/htmlpage"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

type replayFlags struct {
	program, mapInit string
	before, after    string
	load             loadFlags
	replays, limit   int
	keep             int
	runTimeStats     bool
	rate             string
	cpu              cpuFlag
	format, output   string
	wide, quiet      bool
	synth            synthFlags
	baseline, save   string
	dir, html        string
}

func replayCommand() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay {CAPTURE | --synthetic PACKET} [OBJECT]",
		Short: "Replay a capture in its order through a program, maps carried: the cost of your traffic",
		Long: `Run a capture's packets in their order through the program, one test run a
packet, with the maps carried from one packet to the next as production would
leave them, from the maps as loaded (and --map-init). Each packet's path, its
instructions, its action and its map effects kind come from the program's
instrumented copy; then the capture is timed --replays times, each on a fresh
load, every packet's run timed by the kernel beside the floor's empty program.

The report gives the traffic's mean cost per packet net of the floor, with an
interval meant to hold the next replay's; p50, p90 and p99 per packet; and the
packets grouped by what they did (action and map effects kind: a new flow's
miss and insert, a hit) and by exact path, with their shares of packets and of
time. With --before and --after, both builds replay the same capture in turns
on one CPU, and the change shows per path group; with --baseline, the replay
is compared with one saved earlier by --save-baseline, of the same traffic.

With --synthetic, the traffic is made in place of a capture: --packets packets
of a case's packet over --flows flows (each flow's source address and port
stepped), drawn alike or by Zipf's law (--zipf), a share of them opening new
flows (--new-flows; a SYN over TCP), the same for the same --seed. The capture
is read as a stream: its size is bounded by --limit only. docs/replay.md
explains it all.`,
		Example: `  # the connection tracker on a capture of its traffic
  sudo xdpmicro replay traffic.pcap flowtable.o

  # did the change slow new flows? cores at 10 Mpps, for a pull request
  sudo xdpmicro replay traffic.pcap --before old.o --after new.o --rate 10Mpps --format markdown

  # no capture: 1 M packets over 100,000 flows, Zipf 1.1, 3 % new flows
  sudo xdpmicro replay --synthetic tcp-syn --flows 100000 --zipf 1.1 --new-flows 3% --packets 1000000 flowtable.o

  # save a replay, compare a later one of the same traffic, with the page
  sudo xdpmicro replay traffic.pcap flowtable.o --save-baseline main
  sudo xdpmicro replay traffic.pcap flowtable.o --baseline main --report replay-report/`,
		Args:              rangeArgs(0, 2),
		ValidArgsFunction: completeObject,
		RunE:              func(cmd *cobra.Command, args []string) error { return runReplay(cmd, args, f) },
	}
	f.register(cmd)
	return cmd
}

// rangeArgs is cobra.RangeArgs, reported as a usage error.
func rangeArgs(least, most int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.RangeArgs(least, most)(cmd, args); err != nil {
			return usageError(err)
		}
		return nil
	}
}

func (f *replayFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	registerProgram(fl, &f.program)
	registerMapInit(fl, &f.mapInit)
	f.load.register(cmd)
	fl.StringVar(&f.before, "before", "", "compare: the old build `OBJECT`, replayed on the same capture in turns with the new one on the same CPU")
	fl.StringVar(&f.after, "after", "", "compare: the new build `OBJECT`, given here or as the argument; needs --before")
	describeDefault(fl, "after", "OBJECT")
	fl.IntVar(&f.replays, "replays", xdpmicro.DefaultReplays, fmt.Sprintf("time the capture `N` times, 2 to %d, each on a fresh load: the interval is their spread", xdpmicro.MaxReplays))
	fl.IntVar(&f.limit, "limit", 0, fmt.Sprintf("replay the first `N` packets only (at most %d)", xdpmicro.MaxReplayPackets))
	describeDefault(fl, "limit", "all")
	fl.IntVar(&f.keep, "keep", xdpmicro.DefaultReplayKeep, "list the first `N` packets one by one in the JSON, each with its path and time; 0: none")
	fl.BoolVar(&f.runTimeStats, "run-time-stats", false, "replay once more timed by the kernel's run-time statistics (bpf_stats_enabled, on for that replay only): a second figure")
	fl.StringVar(&f.rate, "rate", "", "the cores `RATE` packets a second take at the mean, and with --before and --after the change's: 10Mpps, 500kpps, 1e6")
	f.cpu.register(fl)
	fl.StringVar(&f.format, "format", string(report.Table), "write the report in `FORMAT`: "+report.KindReplay.Help())
	fl.StringVarP(&f.output, "output", "o", "", "write the report to `FILE`, atomically, instead of standard output")
	fl.BoolVar(&f.wide, "wide", false, "list every path in the table, however many")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar on stderr (it is only drawn when stderr is a terminal)")
	fl.StringVar(&f.baseline, "baseline", "", "compare the replay with the replay baseline saved under `NAME` (by --save-baseline), of the same traffic")
	fl.StringVar(&f.save, "save-baseline", "", "save the replay as a baseline under `NAME`")
	fl.StringVar(&f.dir, "baseline-dir", results.DefaultBaselineDir, "save and read baselines in `DIR` (a replay's as NAME.replay.json)")
	fl.StringVar(&f.html, "report", "", "write an HTML page with plots into `DIR`: the cost per packet over the sequence, the path groups' shares")
	f.synth.register(cmd)
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(report.KindReplay.Formats()))
	_ = cmd.RegisterFlagCompletionFunc("before", completeObject)
	_ = cmd.RegisterFlagCompletionFunc("after", completeObject)
}

// check refuses, naming the flag, what cannot run.
func (f replayFlags) check(fl *pflag.FlagSet, args []string) error {
	if _, err := report.KindReplay.Parse(f.format); err != nil {
		return usageError(fmt.Errorf("--format: %w", err))
	}
	if err := checkCount("replays", f.replays, 2, xdpmicro.MaxReplays); err != nil {
		return err
	}
	if err := checkCount("limit", f.limit, 0, xdpmicro.MaxReplayPackets); err != nil {
		return err
	}
	if f.keep < 0 {
		return usageError(fmt.Errorf("--keep %d: want 0 or more", f.keep))
	}
	if err := f.checkArgs(args); err != nil {
		return err
	}
	if err := f.synth.check(fl); err != nil {
		return err
	}
	if err := f.cpu.check(); err != nil {
		return err
	}
	if err := f.load.check(); err != nil {
		return err
	}
	if err := f.checkBaseline(); err != nil {
		return err
	}
	if err := checkDirTarget("report", f.html); err != nil {
		return err
	}
	return checkFileTarget("output", f.output)
}

// checkArgs refuses arguments that do not say what to replay through
// what: CAPTURE [OBJECT], or [OBJECT] with --synthetic.
func (f replayFlags) checkArgs(args []string) error {
	objects := len(args) - 1
	switch {
	case f.synth.packet != "" && len(args) == 2:
		return usageError(fmt.Errorf("--synthetic makes the traffic: give the object alone, not %q and %q", args[0], args[1]))
	case f.synth.packet != "":
		objects = len(args)
	case len(args) == 0:
		return usageError(fmt.Errorf("replay what? give a capture, or --synthetic PACKET"))
	}
	switch {
	case f.after != "" && f.before == "":
		return usageError(fmt.Errorf("--after needs --before"))
	case f.after != "" && objects == 1:
		return usageError(fmt.Errorf("the new build is given twice: as --after and as the argument"))
	}
	return nil
}

// checkBaseline refuses baseline flags that cannot hold.
func (f replayFlags) checkBaseline() error {
	switch {
	case f.baseline != "" && f.before != "":
		return usageError(fmt.Errorf("compare with --before or with --baseline, not both"))
	case f.save != "" && f.before != "":
		return usageError(fmt.Errorf("--save-baseline saves one build's replay: not with --before"))
	}
	for _, name := range []string{f.baseline, f.save} {
		if name == "" {
			continue
		}
		if _, err := results.ReplayBaselinePath(f.dir, name); err != nil {
			return err
		}
	}
	if f.save != "" {
		return checkDirTarget("baseline-dir", f.dir)
	}
	return nil
}

// options turns the flags into the API's options: the programs found,
// the traffic made ready, the map-init file and the baseline read,
// nothing loaded.
func (f replayFlags) options(fl *pflag.FlagSet, args []string) (xdpmicro.ReplayOptions, error) {
	if err := f.check(fl, args); err != nil {
		return xdpmicro.ReplayOptions{}, err
	}
	rate, err := parseRate(f.rate)
	if err != nil {
		return xdpmicro.ReplayOptions{}, err
	}
	synth, err := f.synth.traffic()
	if err != nil {
		return xdpmicro.ReplayOptions{}, err
	}
	capture, objects := "", args
	if synth == nil {
		capture, objects = args[0], args[1:]
	}
	keep := f.keep
	if keep == 0 {
		keep = -1 // the API's zero is its default
	}
	o := xdpmicro.ReplayOptions{Capture: capture, Synthetic: synth, Programs: f.programs(objects), Load: f.load.options(), CPU: f.cpu.option(),
		Replays: f.replays, Limit: f.limit, Keep: keep, RunTimeStats: f.runTimeStats, Rate: rate}
	if f.mapInit != "" {
		if o.MapInit, err = xdpmicro.ReadMapInit(f.mapInit); err != nil {
			return o, err
		}
	}
	if f.baseline != "" {
		// Read before replaying: a missing baseline should not cost a run.
		if o.Baseline, err = results.LoadReplayBaseline(f.dir, f.baseline); errors.Is(err, results.ErrNoBaseline) {
			return o, fmt.Errorf("%w (save one with --save-baseline %s)", err, f.baseline)
		} else if err != nil {
			return o, err
		}
		o.BaselineName = results.Baseline + " " + f.baseline
	}
	return o, nil
}

// programs are the builds replayed: OBJECT or --after (v4 by default),
// after --before.
func (f replayFlags) programs(objects []string) []xdpmicro.Program {
	name := bpf.Default
	switch {
	case f.after != "":
		name = f.after
	case len(objects) == 1:
		name = objects[0]
	}
	var progs []xdpmicro.Program
	if f.before != "" {
		progs = append(progs, xdpmicro.Find(f.before, f.program))
	}
	return append(progs, xdpmicro.Find(name, f.program))
}

// parseRate reads a packet rate: a number, with k, M or G and an
// optional "pps"; "" is none.
func parseRate(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	t := strings.TrimSuffix(strings.TrimSpace(s), "pps")
	scale := 1.0
	switch {
	case strings.HasSuffix(t, "k"):
		scale, t = 1e3, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "M"):
		scale, t = 1e6, strings.TrimSuffix(t, "M")
	case strings.HasSuffix(t, "G"):
		scale, t = 1e9, strings.TrimSuffix(t, "G")
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || v*scale > 1e12 {
		return 0, usageError(fmt.Errorf("--rate %q: want packets a second, more than 0: 10Mpps, 500kpps, 1e6", s))
	}
	return v * scale, nil
}

// runReplay replays and writes the report.
func runReplay(cmd *cobra.Command, args []string, f replayFlags) error {
	o, err := f.options(cmd.Flags(), args)
	if err != nil {
		return err
	}
	ctx, stop, caught := signalContext(cmd.ErrOrStderr())
	defer stop()
	obs := newReplayObserver(cmd, f.quiet)
	rep, err := xdpmicro.Replay(ctx, o, obs)
	obs.finish()
	switch {
	case err != nil && caught() != 0 && xdpmicro.Interrupted(err):
		fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: interrupted; nothing written")
		return interrupted{signal: int(caught())}
	case err != nil:
		return f.load.hint(err)
	}
	if f.save != "" {
		path, err := rep.SaveBaseline(f.dir, f.save)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "xdpmicro: replay baseline %q saved to %s\n", f.save, path)
	}
	out := report.Output{Format: report.Format(f.format), Path: f.output, View: report.View{Wide: f.wide}}
	if err := out.Write(cmd.OutOrStdout(), report.OfReplay(rep)); err != nil {
		return err
	}
	if f.html != "" {
		return htmlpage.WriteReplayHTML(f.html, rep)
	}
	return nil
}

// replayObserver draws a replay's progress on a terminal: a bar over the
// capture's bytes in every pass, redrawn by a goroutine of its own.
type replayObserver struct {
	notice func(string)
	latest atomic.Pointer[xdpmicro.ReplayProgress]
	stop   chan struct{}
	done   sync.WaitGroup
	w      *os.File
}

func newReplayObserver(cmd *cobra.Command, quiet bool) *replayObserver {
	o := &replayObserver{notice: noticeTo(cmd.ErrOrStderr()), stop: make(chan struct{})}
	if stderr, ok := cmd.ErrOrStderr().(*os.File); ok && !quiet && term.IsTerminal(int(stderr.Fd())) {
		o.w = stderr
		o.done.Add(1)
		go o.draw()
	}
	return o
}

func (o *replayObserver) draw() {
	defer crash.Guard()
	defer o.done.Done()
	bar := progressbar.NewOptions(1000, progressbar.OptionSetWriter(o.w), progressbar.OptionSetDescription("loading"),
		progressbar.OptionSetElapsedTime(true), progressbar.OptionSetWidth(30), progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond))
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-o.stop:
			_ = bar.Clear()
			return
		case <-tick.C:
		}
		if p := o.latest.Load(); p != nil && p.Total > 0 {
			bar.Describe(fmt.Sprintf("pass %d of %d: %s", p.Pass, p.Passes, report.PrintableLine(p.What)))
			_ = bar.Set(int(1000 * p.Done / p.Total))
		}
	}
}

func (o *replayObserver) Replaying(p xdpmicro.ReplayProgress) { o.latest.Store(&p) }

func (o *replayObserver) Notice(line string) { o.notice(line) }

// finish stops the bar and clears its line.
func (o *replayObserver) finish() {
	close(o.stop)
	o.done.Wait()
	if o.w != nil {
		fmt.Fprint(o.w, "\r\x1b[2K")
	}
}
