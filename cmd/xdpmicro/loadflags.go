package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/report"
)

// loadFlags change an object before it is loaded, as its own loader would.
type loadFlags struct {
	programType string
	attachType  string
	set         []string
	maxEntries  []string
	// kernelMemory is the budget of kernel memory, as given.
	kernelMemory string
}

func (l *loadFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&l.programType, "type", "", "program `TYPE` where the section names none: "+strings.Join(xdpmicro.ProgramTypes(), ", "))
	describeDefault(fl, "type", "from the section")
	fl.StringVar(&l.attachType, "attach-type", "", "load a cpumap or devmap program, which the kernel will not test-run, "+
		"as `TYPE` "+strings.Join(xdpmicro.AttachTypes(), ", ")+": plain XDP")
	describeDefault(fl, "attach-type", "the section's, refused")
	fl.StringArrayVar(&l.set, "set", nil, "set the global variable `NAME=VALUE` before loading, "+
		"VALUE as in a --map-init file (XDP_TX, 42, true, an address, YAML); repeatable")
	fl.StringArrayVar(&l.maxEntries, "max-entries", nil, "give map NAME N entries, `NAME=N`; repeatable")
	describeDefault(fl, "max-entries", "as declared; if none, one per possible CPU, a ring buffer 64 pages")
	fl.StringVar(&l.kernelMemory, "kernel-memory", "", "the most kernel memory the run's maps and programs may take at once, every load's counted, "+
		"as `SIZE` in bytes or with K, M, G (powers of 1024): a run past it is refused before anything is loaded")
	describeDefault(fl, "kernel-memory", "1G, or a quarter of the machine's memory if less")
	_ = cmd.RegisterFlagCompletionFunc("type", fixedCompletion(xdpmicro.ProgramTypes()))
	_ = cmd.RegisterFlagCompletionFunc("attach-type", fixedCompletion(xdpmicro.AttachTypes()))
}

// registerProgram adds --program, the same for every command that runs a
// program.
func registerProgram(fl *pflag.FlagSet, program *string) {
	fl.StringVar(program, "program", "", "the program to run, by function `NAME`; an unknown name lists them")
	describeDefault(fl, "program", "the object's only measurable program; a bundled build's own")
}

// registerPrograms adds bench's --program, which chooses several as go
// test -bench does.
func registerPrograms(fl *pflag.FlagSet, program *string) {
	fl.StringVar(program, "program", "", "the programs to measure, a table each: `NAME`, a comma list, or a glob ('xdp_*')")
	describeDefault(fl, "program", "all the object's measurable ones")
}

// registerMapInit adds --map-init, the same for every command that runs a
// program.
func registerMapInit(fl *pflag.FlagSet, file *string) {
	fl.StringVar(file, "map-init", "", "fill maps, and set global variables and map sizes, from a YAML or JSON `FILE` (format: docs/real-programs.md)")
}

// check refuses, naming the flag, what measure would refuse of their form;
// a value's fit to the object is testrun's to judge.
func (l *loadFlags) check() error {
	if l.programType != "" && !slices.Contains(xdpmicro.ProgramTypes(), l.programType) {
		return usageError(fmt.Errorf("--type %q: want one of %s", l.programType, strings.Join(xdpmicro.ProgramTypes(), ", ")))
	}
	if l.attachType != "" && !slices.Contains(xdpmicro.AttachTypes(), l.attachType) {
		return usageError(fmt.Errorf("--attach-type %q: want %s", l.attachType, strings.Join(xdpmicro.AttachTypes(), ", ")))
	}
	for _, set := range l.set {
		if name, _, ok := strings.Cut(set, "="); !ok || name == "" {
			return usageError(fmt.Errorf("--set %s: want NAME=VALUE", set))
		}
	}
	for _, size := range l.maxEntries {
		name, value, ok := strings.Cut(size, "=")
		if n, err := strconv.ParseUint(value, 0, 32); !ok || name == "" || err != nil || n == 0 {
			return usageError(fmt.Errorf("--max-entries %s: want NAME=N, N from 1 to 4294967295", size))
		}
	}
	return nil
}

func (l *loadFlags) options() xdpmicro.LoadOptions {
	return xdpmicro.LoadOptions{Type: l.programType, AttachType: l.attachType, Set: l.set, MaxEntries: l.maxEntries, KernelMemory: l.kernelMemory}
}

// hint names the flag that runs a program the kernel would not test-run
// as it is: one for a cpumap or a devmap, loaded as plain XDP; one in a
// section that names no type, given a type.
func (l *loadFlags) hint(err error) error {
	switch {
	case errors.Is(err, xdpmicro.ErrNotTestRunnable) && l.attachType == "":
		return fmt.Errorf("%w: --attach-type xdp", err)
	case errors.Is(err, xdpmicro.ErrUntyped) && l.programType == "":
		return fmt.Errorf("%w; run them with --type socket_filter (or %s)", err, strings.Join(otherTypes("socket_filter"), ", "))
	}
	return err
}

// otherTypes are the program types --type takes but one.
func otherTypes(but string) []string {
	return slices.DeleteFunc(xdpmicro.ProgramTypes(), func(t string) bool { return t == but })
}

// printNotes writes what loading changed of its own accord, on stderr.
// noticeTo prints a run's notices (testrun.Config.Notice) on w, one line
// each, --quiet or not: --quiet is the progress bar's switch, and a wait
// for another run's CPU can last minutes, in which a job's log that says
// nothing looks hung.
// noticeTo writes each notice to w as a line of text: notices name
// cases and programs from files (report.Printable).
func noticeTo(w io.Writer) func(string) {
	return func(line string) { fmt.Fprintln(w, "xdpmicro: "+report.PrintableLine(line)) }
}

func printNotes(cmd *cobra.Command, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: note: "+report.PrintableLine(n))
	}
}
