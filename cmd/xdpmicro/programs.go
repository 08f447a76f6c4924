package main

import (
	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/report"
)

func programsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "programs [OBJECT]",
		Short: "List the bundled builds, or the programs, maps and global variables inside an object",
		Long: `Without OBJECT, list the bundled builds. With it, list its programs (and
whether xdpmicro can measure them), its maps (type, key and value types,
size, what --map-init needs to know) and its global variables (for --set),
so that a --map-init file can be written without llvm-objdump.`,
		Example: `  xdpmicro programs
  xdpmicro programs ./prog.o`,
		Args:              atMostArgs(1),
		ValidArgsFunction: completeObject,
		RunE: func(cmd *cobra.Command, args []string) error {
			content := report.OfBuilds(append(bpf.Builds(), bpf.Rungs()...), bpf.Default)
			if len(args) == 1 {
				listing, err := objectListing(args[0])
				if err != nil {
					return err
				}
				content = report.OfObject(listing)
			}
			return report.Output{Format: report.Table}.Write(cmd.OutOrStdout(), content)
		},
	}
}

// objectListing reads what the object arg names holds: its programs, maps
// and global variables.
func objectListing(arg string) (report.ObjectListing, error) {
	object := xdpmicro.Find(arg, "")
	l := report.ObjectListing{Name: object.ObjectName()}
	var err error
	if l.Programs, err = object.Programs(); err != nil {
		return l, err
	}
	if l.Maps, err = object.Maps(); err != nil {
		return l, err
	}
	l.Variables, err = object.Variables()
	return l, err
}
