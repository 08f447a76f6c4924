package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/cilium/ebpf"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
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
			// An object's names are anyone's: written as text (report.Printable).
			var buf bytes.Buffer
			var err error
			if len(args) == 0 {
				err = listBuilds(&buf)
			} else {
				err = listObject(&buf, args[0])
			}
			if werr := report.WritePrintable(cmd.OutOrStdout(), buf.Bytes()); err == nil {
				err = werr
			}
			return err
		},
	}
}

// listBuilds lists the bundled builds, then the fine ladder's rungs.
func listBuilds(w io.Writer) error {
	table := textTable(w)
	table.Header("build", "program", "description")
	for _, b := range append(bpf.Builds(), bpf.Rungs()...) {
		name := b.Name
		if name == bpf.Default {
			name += " (default)"
		}
		if err := table.Append(name, b.Program, b.Description); err != nil {
			return err
		}
	}
	return table.Render()
}

// listObject lists the programs of an object, whether each can be
// measured, then its maps and global variables.
func listObject(w io.Writer, arg string) error {
	object := xdpmicro.Find(arg, "")
	progs, err := object.Programs()
	if err != nil {
		return err
	}
	table := textTable(w)
	table.Header("program", "type", "section", "measurable")
	for _, p := range progs {
		measurable := "yes"
		switch {
		case p.Type == ebpf.UnspecifiedProgram:
			measurable = "with --type" // a section that names no type
		case p.ForMap() != "":
			measurable = "with --attach-type xdp" // the kernel test-runs no program for a cpumap or devmap
		case !p.Supported():
			measurable = "no"
		}
		if err := table.Append(p.Name, p.Type.String(), p.Section, measurable); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	if _, err = fmt.Fprintf(w, "%d program(s) in %s\n", len(progs), object.ObjectName()); err != nil {
		return err
	}
	return listMapsAndVariables(w, object)
}

// textTable is a table of names from files, which it writes as text
// (report.Printable), escaped before its columns are measured.
func textTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewWriter(w).Options(tablewriter.WithRowFilter(tw.CellFilter{Global: report.PrintableCells}))
}
