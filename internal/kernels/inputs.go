package kernels

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/internal/yamlsize"
)

// Inputs are the files a command line reads, which the guest needs at
// the same paths: each value that names a regular file, or a glob's
// matches (--packets takes globs), and, for each --map-init file, the
// objects its {object: FILE} entries name, relative to it. Values that
// name no file (a bundled build, a number) are passed over: the command
// in the guest judges them as the host's would.
func Inputs(values, mapInits []string) ([]string, error) {
	var files []string
	add := func(p string) {
		if !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	for _, v := range values {
		for _, p := range candidates(v) {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				add(p)
			}
		}
	}
	for _, m := range mapInits {
		refs, err := mapInitObjects(m)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			add(r)
		}
	}
	return files, nil
}

// candidates are the paths a value may name: itself, each of a comma
// list, and a glob's matches.
func candidates(v string) []string {
	parts := append([]string{v}, strings.Split(v, ",")...)
	var out []string
	for _, p := range parts {
		out = append(out, p)
		if strings.ContainsAny(p, "*?[") {
			matches, _ := filepath.Glob(p)
			out = append(out, matches...)
		}
	}
	return out
}

// mapInitObjects are the objects a --map-init file's entries name.
func mapInitObjects(path string) ([]string, error) {
	data, err := safefs.ReadFile(path, safefs.MaxInput)
	if err != nil {
		return nil, nil // the command says so, as without --kernel
	}
	var root yaml.Node
	if yamlsize.Nodes(data) > object.MaxMapInitNodes || yaml.Unmarshal(data, &root) != nil {
		return nil, nil // the command refuses it, as without --kernel
	}
	var refs []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "object" && n.Content[i+1].Kind == yaml.ScalarNode {
					ref := n.Content[i+1].Value
					if !filepath.IsAbs(ref) {
						ref = filepath.Join(filepath.Dir(path), ref)
					}
					if fi, err := os.Stat(ref); err == nil && fi.Mode().IsRegular() {
						refs = append(refs, ref)
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	return refs, nil
}
