package main

import (
	"github.com/cilium/ebpf"
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
			content := report.OfBuilds(builds(append(bpf.Builds(), bpf.Rungs()...)), bpf.Default)
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

// builds are the bundled builds as the listing shows them.
func builds(list []bpf.Build) []report.Build {
	out := make([]report.Build, len(list))
	for i, b := range list {
		out[i] = report.Build{Name: b.Name, Program: b.Program, Description: b.Description}
	}
	return out
}

// objectListing reads what the object arg names holds: its programs, maps
// and global variables.
func objectListing(arg string) (report.ObjectListing, error) {
	object := xdpmicro.Find(arg, "")
	l := report.ObjectListing{Name: object.ObjectName()}
	programs, err := object.Programs()
	if err != nil {
		return l, err
	}
	for _, p := range programs {
		l.Programs = append(l.Programs, report.ListedProgram{Name: p.Name, Type: p.Type.String(), Section: p.Section, Measurable: measurable(p)})
	}
	maps, err := object.Maps()
	if err != nil {
		return l, err
	}
	for _, m := range maps {
		l.Maps = append(l.Maps, report.ListedMap{Name: m.Name, Type: m.Type, Key: m.Key, Value: m.Value, MaxEntries: m.MaxEntries, Notes: m.Notes})
	}
	variables, err := object.Variables()
	for _, v := range variables {
		l.Variables = append(l.Variables, report.ListedVariable{Name: v.Name, Section: v.Section, Type: v.Type, Size: v.Size, Value: v.Value})
	}
	return l, err
}

// measurable says whether xdpmicro can measure a program, and how.
func measurable(p xdpmicro.ProgramInfo) string {
	switch {
	case p.Type == ebpf.UnspecifiedProgram:
		return "with --type" // a section that names no type
	case p.ForMap() != "":
		return "with --attach-type xdp" // the kernel test-runs no program for a cpumap or devmap
	case !p.Supported():
		return "no"
	}
	return "yes"
}
