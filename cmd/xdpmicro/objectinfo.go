package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/xdpmicro/xdpmicro"
)

// listMapsAndVariables writes tables of an object's maps and global
// variables, for writing a --map-init file and --set.
func listMapsAndVariables(w io.Writer, object xdpmicro.Program) error {
	maps, err := object.Maps()
	if err != nil {
		return err
	}
	if len(maps) > 0 {
		table := textTable(w)
		table.Header("map", "type", "key", "value", "max entries", "notes")
		for _, m := range maps {
			size := strconv.FormatUint(uint64(m.MaxEntries), 10)
			if m.MaxEntries == 0 {
				size = "-"
			}
			if err := table.Append(m.Name, m.Type, m.Key, m.Value, size, strings.Join(m.Notes, "; ")); err != nil {
				return err
			}
		}
		if err := table.Render(); err != nil {
			return err
		}
	}
	vars, err := object.Variables()
	if err != nil {
		return err
	}
	if len(vars) > 0 {
		table := textTable(w)
		table.Header("variable", "section", "type", "size", "value")
		for _, v := range vars {
			if err := table.Append(v.Name, v.Section, v.Type, strconv.FormatUint(uint64(v.Size), 10), v.Value); err != nil {
				return err
			}
		}
		if err := table.Render(); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "%d map(s), %d variable(s); fill maps with --map-init, set variables with --set NAME=VALUE\n", len(maps), len(vars))
	return err
}
