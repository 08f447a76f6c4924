package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cilium/ebpf"
	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/crash"
	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/kernels"
	"github.com/xdpmicro/xdpmicro/report"
)

// Exit codes, as documented in docs/usage.md.
const (
	exitOK         = 0
	exitFailed     = 1 // the run failed: kernel, verifier, privileges, I/O
	exitUsage      = 2 // bad usage or bad input
	exitRegression = 3 // a regression was found and --fail-on-regression given
	exitInterrupt  = 128
)

// errRegression ends a run whose comparison found a regression.
var errRegression = errors.New("regressed, or changed action")

// errGrew ends a run whose verifier figure grew past what --fail-on
// allows: a regression, exit 3.
var errGrew = errors.New("the verifier's figures grew")

// usageError marks an error found in the command line (a flag, an
// argument) as the user's input being wrong: it wraps xdpmicro.ErrBadInput
// as the library's bad input does, so that one errors.Is tells exit 2.
func usageError(err error) error { return badinput.Wrap(err) }

// interrupted carries the signal that stopped a run.
type interrupted struct{ signal int }

func (e interrupted) Error() string { return "interrupted" }

func main() {
	if kernels.IsGuest() { // /init of a VM that --kernel booted
		os.Exit(kernels.Guest(run))
	}
	catchEarly(os.Stderr)
	os.Exit(runFrom(host.ProcessStarted(), os.Args[1:], os.Stdout, os.Stderr))
}

// invoked is when the command line was run: the time budget, and the wall
// time a report gives, count from it, as the user's clock does.
var invoked time.Time

// run executes the command line, invoked now, and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return runFrom(time.Now(), args, stdout, stderr)
}

// runFrom executes the command line, invoked at start, and returns the
// exit code. Errors are one line on stderr; a verifier log's tail may
// follow.
func runFrom(start time.Time, args []string, stdout, stderr io.Writer) (code int) {
	defer crash.Catch(stderr, &code)
	invoked = start
	root := rootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	addCompletion(root)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var sig interrupted
	if errors.As(err, &sig) {
		return exitInterrupt + sig.signal
	}
	if errors.Is(err, errRegression) || errors.Is(err, errGrew) {
		fmt.Fprintln(stderr, "xdpmicro: "+report.PrintableLine(err.Error()))
		return exitRegression
	}
	// An error can quote what a file held (a name, a field): escaped, so
	// that it reaches the terminal as text, on its one line.
	fmt.Fprintln(stderr, "xdpmicro: "+report.PrintableLine(oneLine(err)))
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) {
		fmt.Fprintln(stderr, "verifier log (tail):")
		for _, line := range tail(ve.Log, 20) {
			fmt.Fprintln(stderr, "  "+report.Printable(line))
		}
	}
	if isUsage(err) {
		return exitUsage
	}
	return exitFailed
}

// isUsage says whether err is bad usage or input, exit 2: each package
// classifies its own errors, all wrapping xdpmicro.ErrBadInput.
func isUsage(err error) bool { return errors.Is(err, xdpmicro.ErrBadInput) }

// oneLine keeps the first line of an error: the verifier's log, when there
// is one, is printed separately.
func oneLine(err error) string {
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return msg
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// atMostArgs is cobra.MaximumNArgs, reported as a usage error.
func atMostArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MaximumNArgs(n)(cmd, args); err != nil {
			return usageError(err)
		}
		return nil
	}
}

func tail(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// rootLong is the root command's help: what xdpmicro does, the
// privileges it needs and its exit codes.
const rootLong = `xdpmicro loads an XDP, tc or socket-filter program (never attaching it
anywhere), feeds it crafted packets through the kernel's BPF_PROG_TEST_RUN
command, and reports Criterion-style statistics per packet case: estimates with bootstrap
confidence intervals and outliers, and for two builds the change with a
p-value and a verdict. Output is a table, Bencher Metric Format, JSON, Go
benchmark lines for benchstat, and an HTML page with plots.

Privileges: root, or CAP_BPF and CAP_NET_ADMIN (and CAP_PERFMON for timings as
root's). File capabilities go to whoever may run the file, and CAP_PERFMON lets
them read kernel memory: give them to a copy only a trusted group may run.
  sudo groupadd --system xdpmicro
  sudo install -o root -g xdpmicro -m 0750 xdpmicro /usr/local/bin/xdpmicro
  sudo setcap cap_bpf,cap_net_admin,cap_perfmon+ep /usr/local/bin/xdpmicro
docs/usage.md (Privileges) says why, and what leaving out cap_perfmon costs.

Exit codes:
  0    success
  1    the run failed: kernel, verifier, privileges, I/O, a wrong return code
  2    bad usage or input
  3    a case regressed and --fail-on-regression (or --fail-on) was given
  70   an internal error (a panic): a bug in xdpmicro; please report it
  130  interrupted by SIGINT (143: SIGTERM, 129: SIGHUP, 131: SIGQUIT);
       partial results are printed, nothing is written to --output,
       --report or a baseline; a second signal ends it at once

Nothing is pinned, attached or left loaded when xdpmicro exits.`

func rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "xdpmicro",
		Short: "Micro-benchmark eBPF XDP programs with BPF_PROG_TEST_RUN",
		Long:  rootLong,
		Example: `  sudo xdpmicro bench                              # the bundled v4, every class
  sudo xdpmicro bench --before v3 --after v4       # the regression and its fix
  sudo xdpmicro bench ./prog.o --program xdp_main --format bmf -o results.json
  xdpmicro programs ./prog.o                       # what is inside an object
  source <(xdpmicro completion bash)               # shell completion`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Without a Run of its own, cobra would report an unknown command
		// as a plain error; this makes it a usage error (exit 2).
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError(fmt.Errorf("unknown command %q (commands: %s)", args[0], strings.Join(commandNames(cmd), ", ")))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	root.AddCommand(analyzeCommand(), benchCommand(), compareCommand(), packetsCommand(), profileCommand(), programsCommand(), replayCommand(), validateCommand(), verifierCommand(), worstCommand())
	root.SetHelpCommand(helpCommand(root))
	documentFlags(root)
	return root
}

// addCompletion adds cobra's completion command, which writes where the
// root writes at the time it is added: call it after SetOut. Its own
// Args would show help, exit 0, for a shell it does not know.
func addCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = func(cmd *cobra.Command, args []string) error {
				if len(args) > 0 {
					return usageError(fmt.Errorf("completion: unknown shell %q (shells: %s)", args[0], strings.Join(commandNames(cmd), ", ")))
				}
				return nil
			}
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
	}
}

// commandNames lists cmd's subcommands that a user can run, sorted.
func commandNames(cmd *cobra.Command) []string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			names = append(names, c.Name())
		}
	}
	return names
}

// helpCommand is cobra's help, with an unknown topic a usage error.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "Help about any command",
		RunE: func(_ *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				return usageError(fmt.Errorf("help: unknown command %q (commands: %s)", strings.Join(args, " "), strings.Join(commandNames(root), ", ")))
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
		ValidArgsFunction: func(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
			return commandNames(root), cobra.ShellCompDirectiveNoFileComp
		},
	}
}
