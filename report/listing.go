package report

import "github.com/xdpmicro/xdpmicro/internal/render"

// The listings of the programs and packets commands, rendered by
// internal/render: their types, named here for the commands.

// Build is a bundled build, or a rung of the fine ladder, as the
// programs command lists it.
type Build = render.Build

// ObjectListing is what an object holds: its programs, maps and global
// variables.
type ObjectListing = render.ObjectListing

// ListedProgram is a program of an object, as a listing shows it.
type ListedProgram = render.ListedProgram

// ListedMap is a map of an object, as a listing shows it.
type ListedMap = render.ListedMap

// ListedVariable is a global variable of an object, as a listing shows
// it, for --set.
type ListedVariable = render.ListedVariable

// CaseListing is the packet cases and, where a program ran them once,
// what it did to each.
type CaseListing = render.CaseListing

// CheckedCase is what a program did to a case in its checking run.
type CheckedCase = render.CheckedCase

// builds are the bundled builds and the fine ladder's rungs, def the
// default.
type builds struct {
	list []Build
	def  string
}

// OfBuilds is a listing of the bundled builds; def is marked the default.
func OfBuilds(list []Build, def string) Content { return Content{KindBuilds, builds{list, def}} }

// OfObject is a listing of an object's programs, whether each can be
// measured, its maps and its variables, for writing a --map-init file
// and --set.
func OfObject(l ObjectListing) Content { return Content{KindObject, l} }
