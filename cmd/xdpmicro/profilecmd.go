package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/internal/profile"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

type profileFlags struct {
	program     string
	mapInit     string
	load        loadFlags
	selection   caseFlags
	cpu         cpuFlag
	before      string
	after       string
	format      string
	output      string
	sourceOrder bool
	machine     bool
	kernel      kernelFlags
}

func profileCommand() *cobra.Command {
	var f profileFlags
	cmd := &cobra.Command{
		Use:   "profile [OBJECT]",
		Short: "Show on which source lines each case's BPF instructions run, exactly; or how two builds differ",
		Long: `Run each packet case once through an instrumented copy of the program, as bench
counts instructions, and attribute every BPF instruction executed to its source
line (BTF line info) and its function (BTF func info; bpf-to-bpf callees and
callbacks are functions of their own). Per case: the total, which is bench's
insns column, its functions, and its lines with their counts and shares, the
hottest first, as cg_annotate annotates source, with the helpers each line calls.
Nothing is timed. An object without line info is profiled by instruction index.

--jit adds the machine code the JIT emitted for each line and, where the
mapping is exact, the machine instructions it executed. --format pprof and
--format callgrind write files that go tool pprof and callgrind_annotate read.
With --before and --after, show per case the lines and functions whose counts
changed, the largest change first. With --kernel (repeatable), profile on each
kernel, booted under QEMU, and show per case the machine instructions each
kernel's JIT code executed, and the lines whose code differs (docs/kernels.md).`,
		Example: `  sudo xdpmicro profile v3 --class high           # where v3's costliest case runs
  sudo xdpmicro profile v3 --source --jit         # in source order, with the JIT's code
  sudo xdpmicro profile --before v3 --after v4    # which lines the fix changed
  sudo xdpmicro profile v4 --kernel host --kernel /boot/vmlinuz-6.1.0-28-amd64   # the JIT's code per kernel
  sudo xdpmicro profile v4 --format pprof -o v4.pb.gz && go tool pprof -top v4.pb.gz
  sudo xdpmicro profile v4 --format callgrind -o cg.out && callgrind_annotate cg.out`,
		Args:              atMostArgs(1),
		ValidArgsFunction: completeObject,
		RunE:              func(cmd *cobra.Command, args []string) error { return f.run(cmd, args) },
	}
	f.register(cmd)
	return cmd
}

func (f *profileFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	registerProgram(fl, &f.program)
	registerMapInit(fl, &f.mapInit)
	f.load.register(cmd)
	f.selection.register(cmd, "pcap")
	f.cpu.register(fl)
	fl.StringVar(&f.format, "format", string(report.Text), "write the profile in `FORMAT`: "+report.KindProfile.Help())
	fl.StringVarP(&f.output, "output", "o", "", "write the profile to `FILE`, atomically, instead of standard output")
	fl.BoolVar(&f.sourceOrder, "source", false, "list every line in source order, unexecuted ones too, instead of the executed ones hottest first")
	fl.BoolVar(&f.machine, "jit", false, "show each line's machine code, as the JIT emitted it, and the machine instructions it executed where exact")
	f.kernel.register(fl)
	fl.StringVar(&f.before, "before", "", "compare: the old build `OBJECT`; show per case the lines and functions whose counts changed")
	fl.StringVar(&f.after, "after", "", "compare: the new build `OBJECT`, given here or as the argument; needs --before")
	describeDefault(fl, "after", "OBJECT")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(report.KindProfile.Formats()))
	_ = cmd.RegisterFlagCompletionFunc("before", completeObject)
	_ = cmd.RegisterFlagCompletionFunc("after", completeObject)
}

// run checks every flag, profiles, and writes the profile: flags to
// options, nothing more.
func (f profileFlags) run(cmd *cobra.Command, args []string) error {
	opts, err := f.options(cmd, args)
	if err != nil {
		return err
	}
	if len(f.kernel.kernels) > 0 {
		return f.runKernels(cmd, args)
	}
	ctx, stop, caught := signalContext(cmd.ErrOrStderr())
	defer stop()
	rep, err := xdpmicro.Profile(ctx, opts, noticeObserver{noticeTo(cmd.ErrOrStderr())})
	if err != nil && caught() != 0 && xdpmicro.Interrupted(err) {
		fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: interrupted; nothing written")
		return interrupted{signal: int(caught())}
	}
	if err != nil {
		return f.load.hint(err)
	}
	return f.target().Write(cmd.OutOrStdout(), report.OfProfile(rep))
}

// target is where --format and --output say the profile goes.
func (f profileFlags) target() report.Output {
	return report.Output{Format: report.Format(f.format), Path: f.output, View: report.View{SourceOrder: f.sourceOrder, Machine: f.machine}}
}

// options checks the flags, naming them, and reads what they name: the
// objects, the cases, the map-init file.
func (f profileFlags) options(cmd *cobra.Command, args []string) (xdpmicro.Options, error) {
	if _, err := report.KindProfile.Parse(f.format); err != nil {
		return xdpmicro.Options{}, usageError(fmt.Errorf("--format: %w", err))
	}
	if f.before != "" && (f.format == string(report.Pprof) || f.format == string(report.Callgrind)) {
		return xdpmicro.Options{}, usageError(fmt.Errorf("--format %s holds one build: write each build's profile "+
			"and compare them there (go tool pprof -diff_base OLD NEW), or leave out --before", f.format))
	}
	if err := checkFileTarget("output", f.output); err != nil {
		return xdpmicro.Options{}, err
	}
	if err := f.cpu.check(); err != nil {
		return xdpmicro.Options{}, err
	}
	if err := f.load.check(); err != nil {
		return xdpmicro.Options{}, err
	}
	if err := f.kernel.check(); err != nil {
		return xdpmicro.Options{}, err
	}
	progs, defaults, err := programChoice{program: f.program, before: f.before, after: f.after}.find(args)
	if err != nil {
		return xdpmicro.Options{}, err
	}
	cases, err := f.selection.cases(cmd, defaults)
	if err != nil {
		return xdpmicro.Options{}, err
	}
	o := xdpmicro.Options{Programs: progs, Cases: cases, Load: f.load.options(), CPU: f.cpu.option()}
	if f.mapInit != "" {
		if o.MapInit, err = xdpmicro.ReadMapInit(f.mapInit); err != nil {
			return xdpmicro.Options{}, err
		}
	}
	return o, nil
}

// noticeObserver hears only notices: a profile takes no samples.
type noticeObserver struct{ notice func(string) }

func (noticeObserver) Progress(testrun.Progress) {}
func (o noticeObserver) Notice(line string)      { o.notice(line) }

// runKernels profiles on each --kernel and writes one table across them;
// a kernel that gave no profile fails the run, after the others'.
func (f profileFlags) runKernels(cmd *cobra.Command, args []string) error {
	if _, err := report.KindKernelProfiles.Parse(f.format); err != nil {
		return usageError(fmt.Errorf("--kernel: %w: profile one kernel at a time for a %s file", err, f.format))
	}
	outcomes, job, err := f.kernel.run(cmd, "profile", args, f.mapInit, true)
	if err != nil {
		return err
	}
	kp := profile.OfKernels(outcomes, job.Args)
	kp.Wall = time.Since(invoked)
	if err := f.target().Write(cmd.OutOrStdout(), report.OfKernelProfiles(kp)); err != nil {
		return err
	}
	runs := make([]results.KernelRun, len(kp.Kernels))
	for i, k := range kp.Kernels {
		runs[i] = k.KernelRun
	}
	return kernelsMissing(runs)
}
