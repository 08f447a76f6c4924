package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

type benchFlags struct {
	program    string
	classes    []string
	cpu        int
	warmup     time.Duration
	samples    int
	repeat     uint32
	confidence float64
	resamples  int
	format     string
	output     string
}

func benchCommand() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench [OBJECT]",
		Short: "Measure a program on every packet case",
		Long: `Measure an XDP program on every packet case and report the time per run.

OBJECT is a bundled build (` + strings.Join(bundledNames(), ", ") + `; default ` + bpf.Default + `) or the path of
an ELF object file. Each case is first run once and its return code checked
(for the bundled builds: XDP_PASS, or XDP_ABORTED for the short frame); then
the measuring thread is pinned to one CPU, warms up, and takes --samples
samples of --repeat runs each, all cases taken in turn.`,
		Example: `  sudo xdpmicro bench --repeat 1000000
  sudo xdpmicro bench v3 --class fibonacci,none
  sudo xdpmicro bench ./prog.o --program xdp_main --format bmf --output results.json`,
		Args: atMostArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			object := bpf.Default
			if len(args) == 1 {
				object = args[0]
			}
			return bench(cmd, object, f)
		},
		ValidArgsFunction: completeObject,
	}
	fl := cmd.Flags()
	fl.StringVar(&f.program, "program", "", "program (function) to measure; default: the object's only XDP program")
	fl.StringSliceVar(&f.classes, "class", packets.Classes(), "packet cases to measure, comma-separated; known: "+strings.Join(packets.Names(), ", "))
	fl.IntVar(&f.cpu, "cpu", -1, "CPU to measure on; -1 picks the highest-numbered allowed CPU")
	fl.DurationVar(&f.warmup, "warmup", 500*time.Millisecond, "time spent sampling every case before samples are kept")
	fl.IntVar(&f.samples, "samples", 40, fmt.Sprintf("samples per case (at least %d)", testrun.MinSamples))
	fl.Uint32Var(&f.repeat, "repeat", 1000000, "runs per sample (BPF_PROG_TEST_RUN repeat), 1 to 4294967295")
	fl.Float64Var(&f.confidence, "confidence", 0.95, "confidence level of the intervals, in (0,1)")
	fl.IntVar(&f.resamples, "resamples", 10000, "bootstrap resamples per estimate")
	fl.StringVar(&f.format, "format", string(report.Table), "output format: "+strings.Join(report.Formats(), ", "))
	fl.StringVarP(&f.output, "output", "o", "", "write the report to this file (atomically) instead of standard output")
	_ = cmd.RegisterFlagCompletionFunc("class", fixedCompletion(packets.Names()))
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(report.Formats()))
	return cmd
}

func bench(cmd *cobra.Command, objectArg string, f benchFlags) error {
	format, err := report.ParseFormat(f.format)
	if err != nil {
		return err
	}
	statOpts := stats.DefaultOptions()
	statOpts.Confidence, statOpts.Resamples = f.confidence, f.resamples
	if err := statOpts.Validate(); err != nil {
		return usageError{fmt.Errorf("--confidence %g / --resamples %d: %w", f.confidence, f.resamples, err)}
	}
	cases, err := packets.Select(f.classes)
	if err != nil {
		return err
	}
	object, isBundled, err := resolveObject(objectArg)
	if err != nil {
		return err
	}

	ctx, stop, caught := signalContext()
	defer stop()
	res, runErr := testrun.Run(ctx, testrun.Config{
		Programs:     []testrun.Program{{Object: object, Program: f.program}},
		Cases:        cases,
		CheckReturns: isBundled,
		CPU:          f.cpu,
		Warmup:       f.warmup,
		Samples:      f.samples,
		Repeat:       f.repeat,
	})
	if runErr != nil && !res.Partial {
		return runErr
	}

	settings := report.Settings{
		Object: object.Name, Program: f.program, Cases: f.classes, CPU: f.cpu,
		Samples: f.samples, Repeat: f.repeat, Warmup: f.warmup.String(),
		Confidence: f.confidence, Resamples: f.resamples,
	}
	rep, err := report.New(settings, res, statOpts)
	if err != nil {
		return err
	}
	if res.Partial {
		// Never put a partial report where a complete one is expected.
		fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: interrupted; partial results follow, nothing written to --output")
		_ = rep.Write(cmd.OutOrStdout(), report.Table)
		return interrupted{signal: int(caught())}
	}
	if f.output != "" {
		return rep.WriteFile(f.output, format)
	}
	return rep.Write(cmd.OutOrStdout(), format)
}

// resolveObject finds a bundled build by name, else reads a file.
func resolveObject(arg string) (testrun.Object, bool, error) {
	if b, err := bpf.Lookup(arg); err == nil {
		return testrun.Object{Name: b.Name + " (bundled)", ELF: b.Object}, true, nil
	}
	if _, err := os.Stat(arg); errors.Is(err, os.ErrNotExist) {
		return testrun.Object{}, false, usageError{fmt.Errorf("%q is neither a file nor a bundled build (%s)", arg, strings.Join(bundledNames(), ", "))}
	}
	obj, err := testrun.ReadObject(arg)
	return obj, false, err
}

func bundledNames() []string {
	var names []string
	for _, b := range bpf.Builds() {
		names = append(names, b.Name)
	}
	return names
}

// signalContext is cancelled by SIGINT or SIGTERM; caught tells which.
func signalContext() (ctx context.Context, stop func(), caught func() syscall.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	var got syscall.Signal
	done := make(chan struct{})
	go func() {
		select {
		case s := <-signals:
			got = s.(syscall.Signal)
			cancel()
		case <-done:
		}
	}()
	stop = func() {
		signal.Stop(signals)
		close(done)
		cancel()
	}
	return ctx, stop, func() syscall.Signal { return got }
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
	return bundledNames(), cobra.ShellCompDirectiveDefault
}
