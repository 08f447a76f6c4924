package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// loadFlags change an object before it is loaded, as its own loader would.
type loadFlags struct {
	programType string
	set         []string
	maxEntries  []string
}

func (l *loadFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&l.programType, "type", "", "program type of programs in sections that name none: "+strings.Join(testrun.TypeNames, ", ")+
		" (af_packet: a socket filter on an AF_PACKET socket, as Suricata's SEC(\"filter\"), which sees frames from their Ethernet header)")
	fl.StringArrayVar(&l.set, "set", nil, "set a global variable of .rodata, .data or .bss before loading (a const volatile knob): `NAME=VALUE`; repeatable; VALUE as in a --map-init file: a number, an enum or action name, an address, or YAML")
	fl.StringArrayVar(&l.maxEntries, "max-entries", nil, "size a map before loading: `NAME=N`; for maps declared without max_entries, which get one entry per possible CPU otherwise; repeatable")
	_ = cmd.RegisterFlagCompletionFunc("type", fixedCompletion(testrun.TypeNames))
}

// check refuses, naming the flag, what testrun would refuse of their form;
// a value's fit to the object is testrun's to judge.
func (l *loadFlags) check() error {
	if l.programType != "" && !slices.Contains(testrun.TypeNames, l.programType) {
		return usageError{fmt.Errorf("--type %q: want one of %s", l.programType, strings.Join(testrun.TypeNames, ", "))}
	}
	for _, set := range l.set {
		if name, _, ok := strings.Cut(set, "="); !ok || name == "" {
			return usageError{fmt.Errorf("--set %s: want NAME=VALUE", set)}
		}
	}
	for _, size := range l.maxEntries {
		name, value, ok := strings.Cut(size, "=")
		if n, err := strconv.ParseUint(value, 0, 32); !ok || name == "" || err != nil || n == 0 {
			return usageError{fmt.Errorf("--max-entries %s: want NAME=N, N from 1 to 4294967295", size)}
		}
	}
	return nil
}

func (l *loadFlags) options() testrun.LoadOptions {
	return testrun.LoadOptions{Type: l.programType, Set: l.set, MaxEntries: l.maxEntries}
}

// printNotes writes what loading changed of its own accord, on stderr.
func printNotes(cmd *cobra.Command, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(cmd.ErrOrStderr(), "xdpmicro: note: "+n)
	}
}
