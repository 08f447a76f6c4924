package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xdpmicro/xdpmicro/report"
)

// The README's flag tables and the commands agree: every flag a command
// has is in a table row of the README, and every flag a row names exists.
func TestReadmeDocumentsFlags(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rowFlag := regexp.MustCompile("^\\| `(--[a-z0-9-]+)")
	documented := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if m := rowFlag.FindStringSubmatch(line); m != nil {
			documented[m[1]] = true
		}
	}
	have := map[string][]string{}
	root := rootCommand()
	for _, cmd := range root.Commands() {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" {
				have["--"+f.Name] = append(have["--"+f.Name], cmd.Name())
			}
		})
	}
	for flag, cmds := range have {
		if !documented[flag] {
			t.Errorf("%s (%s) has no row in the README's flag tables", flag, strings.Join(cmds, ", "))
		}
	}
	for flag := range documented {
		if have[flag] == nil {
			t.Errorf("the README documents %s, which no command has", flag)
		}
	}
	for _, f := range report.Formats() {
		if !strings.Contains(string(data), "`"+f+"`") {
			t.Errorf("format %s is not in the README", f)
		}
	}
	var commands []string
	for _, c := range root.Commands() {
		commands = append(commands, c.Name())
	}
	for _, c := range []*cobra.Command{benchCommand(), compareCommand(), packetsCommand(), programsCommand(), validateCommand()} {
		if !strings.Contains(string(data), "xdpmicro "+c.Name()) || !slices.Contains(commands, c.Name()) {
			t.Errorf("command %s is not in the README", c.Name())
		}
	}
}
