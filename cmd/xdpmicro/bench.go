package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/crash"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

type benchFlags struct {
	program    string
	selection  caseFlags
	mapInit    string
	cpu        cpuFlag
	load       loadFlags
	warmup     time.Duration
	samples    int
	repeat     uint32
	precision  float64
	budget     time.Duration
	before     string
	after      string
	baseline   string
	save       string
	dir        string
	quiet      bool
	timer      testrun.Timer
	sampling   testrun.SamplingMode
	placements int
	singleRun  bool
	states     string
	live       bool
	liveBatch  int
	restore    bool
	floor      bool
	history    string
	anchor     bool
	output     outputFlags
	comparison compareFlags
	kernel     kernelFlags
}

func benchCommand() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:     "bench [OBJECT]",
		Short:   "Measure a program on every packet case, or compare two builds",
		Long:    benchLong(),
		Example: benchExample,
		Args:    atMostArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(cmd, args, f)
		},
		ValidArgsFunction: completeObject,
	}
	// Registered by topic, the order help and docs/usage.md list them in:
	// what to run, the cases, how to sample, the output, comparisons.
	f.registerProgramFlags(cmd)
	f.selection.register(cmd, "pcap")
	f.registerSamplingFlags(cmd.Flags())
	f.registerOutputFlags(cmd)
	f.registerComparisonFlags(cmd)
	return cmd
}

// benchLong is bench's help text; it names the bundled builds, which are
// known only at run time.
func benchLong() string {
	return `Measure an XDP, tc or socket-filter program on every packet case and report
the time per run.

OBJECT is a bundled build (` + strings.Join(xdpmicro.BundledNames(), ", ") + `; default ` + bpf.Default + `) or the path of
an ELF object file. The packet cases are, by default, the source-address
classes for a bundled build and a protocol mix for any other object (TCP SYN,
UDP DNS, ICMP echo, IPv6 TCP SYN, VLAN-tagged UDP, ARP; see --class, --packets,
--pcap). Each case is first run once and its return code checked
(for the bundled builds: XDP_PASS, or XDP_ABORTED for the short frame) and
its BPF instructions counted; then the measuring thread is pinned to one CPU,
warms up, and samples all cases in turn, round after round. Each load of a
program is compiled to its own address, which alone moves its speed by a few
per cent, so the program is loaded ` + fmt.Sprint(xdpmicro.Defaults().Placements) + ` times, in groups of ` + fmt.Sprint(xdpmicro.DefaultGroupLoads) + ` loaded and sampled
apart (--placements), and each figure is the mean over the loads, its
interval Student's t over them: it holds the next run's figure. While an
estimate is short of --precision and --time allows, more groups add loads
(--samples N: exactly N rounds a group). By default each sample's repeat is
one of 10 levels, and the time per run is the slope of the calls' wall time
over their repeat (--sampling).

With --before and --after, both builds are loaded together (each ` + fmt.Sprint(xdpmicro.CompareDefaults().Placements) + ` times:
--placements) and sampled on the same CPU, interleaved sample by sample, and
each case's change is reported with its confidence interval over the loads,
p-value and verdict; more groups of loads follow while the change is
unsettled and --time allows. With --baseline, the run is compared with one
saved earlier by --save-baseline.`
}

const benchExample = `  # the bundled default (v4), every source-address class, a table
  sudo xdpmicro bench

  # some cases, exactly 100 rounds, on CPU 0, with 99 % intervals
  sudo xdpmicro bench v3 --class fibonacci,none,short --samples 100 --cpu 0 --confidence 0.99

  # your own object; BMF for Bencher, written atomically
  sudo xdpmicro bench ./prog.o --program xdp_main --format bmf --output results.json

  # did my change make it slower? interleaved on one CPU; exit 3 if so
  sudo xdpmicro bench --before old.o --after new.o --fail-on-regression

  # against a baseline saved earlier in .xdpmicro/
  sudo xdpmicro bench --save-baseline main
  sudo xdpmicro bench --baseline main --noise-threshold 0.15

  # a real program as its loader would set it up: maps filled (per-CPU, pinned
  # ones loaded unpinned), a const volatile knob set, an untyped section typed
  sudo xdpmicro bench xdpfilt_alw_all.o --map-init ports.yaml --packets tcp.yaml
  sudo xdpmicro bench xdp_basic.bpf.o --program xdp_basic_prog --set action=XDP_TX
  sudo xdpmicro bench suricata-filter.o --type af_packet --map-init drop.yaml

  # Go benchmark lines for benchstat, and an HTML page with plots
  sudo xdpmicro bench --format gobench --report report/ --quiet > new.txt`

// registerProgramFlags adds what to run: the program, its maps and how it
// is loaded.
func (f *benchFlags) registerProgramFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	registerPrograms(fl, &f.program)
	registerMapInit(fl, &f.mapInit)
	f.load.register(cmd)
	f.kernel.register(fl)
}

// registerSamplingFlags adds how to sample: the mode, the frame between
// runs, the placements, when to stop, the CPU, the floor, anchoring and
// the timer.
func (f *benchFlags) registerSamplingFlags(fl *pflag.FlagSet) {
	def, cmpDef := xdpmicro.Defaults(), xdpmicro.CompareDefaults()
	fl.StringVar((*string)(&f.sampling), "sampling", string(def.Sampling), "sample in `MODE`: linear (sample i runs i·step times; time per run is the slope) "+
		"or flat (the kernel's whole ns)")
	fl.BoolVar(&f.singleRun, "single-run", false, "sample every case one run a call, each on a fresh copy of the frame, "+
		"instead of restoring the frame between repeats (see --restore)")
	fl.StringVar(&f.states, "state", "", "time every case in the map `STATE`s, a comma list, one row each: steady (runs after the case's own, a hit) "+
		"or first (every run sees the maps as loaded: a new flow, a miss) or flows=N (each run the next of N flows in turn, N up to 16777216: "+
		"past an LRU's entries every run misses and evicts); a packet file's state: key sets a case's own")
	describeDefault(fl, "state", "steady; the row says so where the first run takes another path")
	fl.BoolVar(&f.restore, "restore", false, "sample every XDP case through the restorer, which puts the frame back before each run "+
		"(automatic where the program changes it)")
	fl.BoolVar(&f.live, "live", false, "also run every case with live frames (Linux 5.18), sent, redirected or passed to the stack on a veth pair "+
		"of the run's own, and give what the action costs beside the test run (docs/live.md)")
	fl.IntVar(&f.liveBatch, "batch-size", 0, fmt.Sprintf("with --live, the `N` frames the kernel runs and flushes together, 1 to %d (default the kernel's %d)",
		xdpmicro.MaxLiveBatch, testrun.DefaultBatch))
	fl.IntVar(&f.placements, "placements", 0, fmt.Sprintf("load each program at least `N` times (at most %d), in groups that fit the XDP dispatcher; "+
		"each figure is the mean over the loads", xdpmicro.MaxPlacements))
	explainDefault(fl, "placements", fmt.Sprintf("%d, or %d a build with --before/--after", def.Placements, cmpDef.Placements))
	fl.Float64Var(&f.precision, "precision", def.Precision, "sample until every estimate (comparing: every change) is known to ±`P`, relative (0.01: ±1 %), "+
		"or --time is spent")
	fl.DurationVar(&f.budget, "time", 0, "the time budget `D` of the run, from the command line to the report, when sampling to --precision; "+
		"at most "+shortDuration(maxDuration))
	describeDefault(fl, "time", fmt.Sprintf("%s, or %s with --before/--after", def.Budget, cmpDef.Budget))
	fl.IntVar(&f.samples, "samples", 0, fmt.Sprintf("take exactly `N` rounds (%d to %d) instead of sampling to --precision; "+
		"with --precision or --time also given, the fewest rounds", xdpmicro.MinSamples, xdpmicro.MaxSamples))
	describeDefault(fl, "samples", "adaptive: to --precision or --time")
	fl.Uint32Var(&f.repeat, "repeat", 0, fmt.Sprintf("run the program `N` times a call (linear sampling: its top level), at most %d, the kernel's", uint32(testrun.MaxRepeat)))
	explainDefault(fl, "repeat", fmt.Sprintf("chosen so that a sample lasts about %s, %s with --before/--after", testrun.TargetSample, xdpmicro.CompareSample))
	fl.DurationVar(&f.warmup, "warmup", def.Warmup, "sample all cases, in turn, for `D` before samples are kept (at least one round; at most "+
		shortDuration(maxDuration)+")")
	f.cpu.register(fl)
	fl.BoolVar(&f.floor, "floor", true, "also sample the empty program of the measured type in the same rounds, and give each case net of it")
	fl.StringVar(&f.history, "history", "", "remember in `FILE` the floor this machine reads in its fast phase, run after run, "+
		"and scale every run to it: its figures then depend on the runs before it (e.g. ~/.cache/xdpmicro/phases.json)")
	describeDefault(fl, "history", "none: every run stands on its own")
	fl.BoolVar(&f.anchor, "anchor", true, "hold XDP programs in the XDP dispatcher while sampling, where that pays; "+
		"off: calls wait for RCU, sampling is flat")
	registerTimer(fl, &f.timer)
}

// registerOutputFlags adds what is written, and where.
func (f *benchFlags) registerOutputFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar on stderr (it is only drawn when stderr is a terminal)")
	f.output.register(fl)
	f.output.registerLowQuantile(fl)
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(report.KindRun.Formats()))
}

// registerComparisonFlags adds the comparisons: two builds, or a
// baseline, and how a change is judged.
func (f *benchFlags) registerComparisonFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.before, "before", "", "compare: the old build `OBJECT`, a bundled build or a file, measured interleaved with the new one on the same CPU")
	fl.StringVar(&f.after, "after", "", "compare: the new build `OBJECT`, given here or as the argument; needs --before")
	describeDefault(fl, "after", "OBJECT")
	fl.StringVar(&f.baseline, "baseline", "", "compare the run with the baseline saved under `NAME` (by --save-baseline)")
	fl.StringVar(&f.save, "save-baseline", "", "save the run's result as a baseline under `NAME`")
	fl.StringVar(&f.dir, "baseline-dir", results.DefaultBaselineDir, "save and read baselines in `DIR`")
	f.comparison.register(fl)
	_ = cmd.RegisterFlagCompletionFunc("before", completeObject)
	_ = cmd.RegisterFlagCompletionFunc("after", completeObject)
}

// programs turns OBJECT, --before and --after into what to measure.
func (f benchFlags) programs(args []string) ([]xdpmicro.Program, caseDefaults, error) {
	return programChoice{program: f.program, before: f.before, after: f.after, baseline: f.baseline}.find(args)
}

// programChoice is what names the programs to measure, in bench and
// profile alike: OBJECT, --program, --before, --after and --baseline.
type programChoice struct{ program, before, after, baseline string }

// find turns the choice and OBJECT (args) into the programs and their
// cases' defaults.
func (f programChoice) find(args []string) ([]xdpmicro.Program, caseDefaults, error) {
	after := bpf.Default
	if len(args) == 1 {
		after = args[0]
	}
	switch {
	case f.after != "" && len(args) == 1:
		return nil, caseDefaults{}, usageError(errors.New("give the new build as OBJECT or as --after, not both"))
	case f.after != "" && f.before == "":
		return nil, caseDefaults{}, usageError(errors.New("--after needs --before"))
	case f.after != "":
		after = f.after
	}
	if f.before != "" && f.baseline != "" {
		return nil, caseDefaults{}, usageError(errors.New("compare with --before or with --baseline, not both"))
	}
	names := []string{after}
	if f.before != "" {
		names = []string{f.before, after}
	}
	var found []xdpmicro.Program
	for _, name := range names {
		p := xdpmicro.Find(name, f.program)
		if err := p.Err(); err != nil {
			return nil, caseDefaults{}, err
		}
		found = append(found, p)
	}
	var defaults caseDefaults
	defaults.classes, defaults.expect = xdpmicro.CaseDefaults(found...)
	return found, defaults, nil
}

// runBench checks the flags, hands them to xdpmicro.Run as options, and
// writes what it returns: flags to options, and exit codes, nothing more.
func runBench(cmd *cobra.Command, args []string, f benchFlags) error {
	opts, err := f.options(cmd, args)
	if err != nil {
		return err
	}
	if len(f.kernel.kernels) > 0 {
		return runBenchKernels(cmd, args, f)
	}
	names, err := f.programNames(cmd, &opts)
	if err != nil {
		return err
	}
	if names != nil {
		return runEach(cmd, f, opts, names)
	}
	// Only now that every flag is checked: nothing to stop on a usage error.
	ctx, stop, caught := signalContext(cmd.ErrOrStderr())
	defer stop()
	obs, stopProgress := observe(cmd, f.quiet)
	rep, err := xdpmicro.Run(ctx, opts, obs)
	stopProgress() // before anything else is written
	switch {
	case rep == nil && caught() != 0 && xdpmicro.Interrupted(err):
		// Stopped before any sample: waiting for the CPU, or loading.
		fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: interrupted before measuring; nothing written")
		return interrupted{signal: int(caught())}
	case rep == nil:
		return f.load.hint(err)
	case rep.Partial:
		// Never put a partial report where a complete one is expected.
		fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: interrupted; partial results follow, nothing written to --output or saved")
		report.Output{View: f.output.view()}.Fallback(cmd.OutOrStdout(), report.OfRun(rep))
		return interrupted{signal: int(caught())}
	}
	return f.finish(cmd, rep)
}

// finish saves the baseline asked for, writes the report, and turns a
// regression into the exit code asked for.
func (f benchFlags) finish(cmd *cobra.Command, rep *results.Run) error {
	f.output.asides(cmd, rep) // else the table's footer has them
	if f.save != "" {
		path, err := rep.SaveBaseline(f.dir, f.save)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "xdpmicro: baseline %q saved to %s\n", f.save, path)
	}
	if err := f.output.write(cmd, rep); err != nil {
		return err
	}
	return f.comparison.verdict(rep)
}

// stopSignals end a run: Ctrl-C, kill's default, a closed terminal or
// ssh session (SIGHUP), and Ctrl-\ (SIGQUIT, which would otherwise dump
// every goroutine and leave what the kernel keeps, the RCU knob, set).
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// handled are the stopSignals not ignored when the process started, as
// nohup ignores SIGHUP and a shell script SIGINT for a job it runs in the
// background: catching one would undo that (signal.Notify), so those
// stay ignored. Found once, before any is caught.
var handled = sync.OnceValue(func() []os.Signal {
	var not []os.Signal
	for _, s := range stopSignals {
		if !signal.Ignored(s) {
			not = append(not, s)
		}
	}
	return not
})

// early is the channel of catchEarly, until signalContext takes the
// signals over.
var early struct {
	sync.Mutex
	signals chan os.Signal
}

// catchEarly ends the process at once on the first of stopSignals, with
// one line on w and 128 + the signal, as an interrupted run does, until a
// command's run takes them (signalContext): reading its inputs (a map-init
// file of millions of entries takes seconds) loads nothing to put back,
// and SIGQUIT's default would dump every goroutine and exit 2.
func catchEarly(w io.Writer) {
	if len(handled()) == 0 {
		return // Notify with none would catch every signal
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, handled()...)
	early.Lock()
	early.signals = signals
	early.Unlock()
	go func() {
		defer crash.Guard()
		if s, ok := <-signals; ok {
			fmt.Fprintf(w, "xdpmicro: interrupted (%v) before the run began; nothing written\n", s)
			crash.Exit(exitInterrupt + int(s.(syscall.Signal)))
		}
	}()
}

// endEarly hands the signals from catchEarly to a run's own handling,
// registered before: no signal meets the default action between.
func endEarly() {
	early.Lock()
	defer early.Unlock()
	if early.signals != nil {
		signal.Stop(early.signals)
		close(early.signals)
		early.signals = nil
	}
}

// signalContext is cancelled by the first of stopSignals; caught tells
// which. The run then ends within a second, with its partial results; a
// second signal ends the process at once, as a user pressing Ctrl-C
// twice means, after one line on w and crash.Exit's cleanups (the RCU
// knob put back). What it loaded goes with it: the kernel frees a
// process's BPF objects and network namespace.
func signalContext(w io.Writer) (ctx context.Context, stop func(), caught func() syscall.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	if len(handled()) > 0 { // with none, Notify would catch every signal
		signal.Notify(signals, handled()...)
	}
	endEarly()
	var got atomic.Int32 // written by the goroutine, read by the caller
	done := make(chan struct{})
	go func() {
		defer crash.Guard()
		select {
		case s := <-signals:
			got.Store(int32(s.(syscall.Signal)))
			cancel()
		case <-done:
			return
		}
		select {
		case s := <-signals:
			// On a line of its own: the progress bar's may be unfinished.
			fmt.Fprintf(w, "\nxdpmicro: a second signal (%v): ended at once, nothing written\n", s)
			crash.Exit(exitInterrupt + int(s.(syscall.Signal)))
		case <-done:
		}
	}()
	stop = func() {
		signal.Stop(signals)
		close(done)
		cancel()
	}
	return ctx, stop, func() syscall.Signal { return syscall.Signal(got.Load()) }
}

func fixedCompletion(values []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeObject offers the bundled builds and lets the shell complete
// file names.
func completeObject(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return xdpmicro.BundledNames(), cobra.ShellCompDirectiveDefault
}
