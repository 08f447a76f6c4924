// Package mapinit reads --map-init files: the entries of each map,
// global variables and map sizes, checked for their syntax alone (which
// maps and types they fit is internal/object's to check). Small files
// are YAML through yaml.v3, with a bound on its nodes; the bulk of a
// large map is read as a stream, never as a tree: entries a line each in
// YAML (lines.go), JSON files (json.go, through a scanner of its own,
// jsonscan.go), and other files of entries, bpftool's dumps among them,
// read only as the entries are resolved. It also holds what an entry
// resolves to (Update), a run of plain entries as one block of bytes.
package mapinit
