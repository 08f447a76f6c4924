package testrun_test

import (
	"context"
	"encoding/json"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// A user of the module builds a run from testrun's own types alone: an
// object file, a floor, load options and a map-init file, and reads the
// effects, the program's description and its samples back.
func TestRunFromPublicTypes(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	obj, err := testrun.ReadObject("../bpf/testdata/maps.o")
	if err != nil {
		t.Fatal(err)
	}
	init, err := testrun.ParseMapInit("init.yaml", []byte("maps:\n  config:\n    - {key: 0, value: {port: 53, enabled: 1, limit: 59}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := packets.Select([]string{packets.Fizz})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testrun.Config{
		Sampling: testrun.SamplingFlat,
		Programs: []testrun.Program{{Label: "maps", Object: obj}},
		Cases:    cases,
		CPU:      testrun.AnyCPU,
		Samples:  testrun.MinSamples,
		Repeat:   10,
		Floor:    &testrun.Object{Name: "floor", ELF: bpf.Floor()},
		MapInit:  init,
		Load:     testrun.LoadOptions{},
	}
	res, err := testrun.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Programs[0]
	var info testrun.ProgramInfo = p.Info
	c := p.Cases[0]
	var effects []testrun.Effect = c.Effects
	// The 60-byte frame is over the map-init's 59-byte limit.
	if info.Name == "" || c.Action != "XDP_DROP" || len(effects) != 2 || len(c.Samples) != testrun.MinSamples || res.Floor == nil {
		t.Errorf("program %+v: %s, effects %+v, %d samples, floor %v; want XDP_DROP, two effects, %d samples and the floor's",
			info, c.Action, effects, len(c.Samples), res.Floor != nil, testrun.MinSamples)
	}
}

// No exported identifier of testrun has a type from an internal package,
// which a user of the module could not name: not a field of an exported
// struct, a parameter or result of an exported function or method, a
// variable's type, nor an alias's target.
func TestAPINamesNoInternalType(t *testing.T) {
	const path = "github.com/xdpmicro/xdpmicro/testrun"
	pkg := importPackage(t, path)
	var found []string
	check := func(where string, typ types.Type) {
		for _, in := range internalTypes(typ, map[types.Type]bool{}) {
			found = append(found, where+": "+in)
		}
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		if tn, ok := obj.(*types.TypeName); ok && !tn.IsAlias() {
			named := tn.Type().(*types.Named)
			if st, ok := named.Underlying().(*types.Struct); ok {
				for i := range st.NumFields() {
					if f := st.Field(i); f.Exported() {
						check(name+"."+f.Name(), f.Type())
					}
				}
			} else {
				check(name, named.Underlying())
			}
			for i := range named.NumMethods() {
				if m := named.Method(i); m.Exported() {
					check(name+"."+m.Name(), m.Type())
				}
			}
			continue
		}
		check(name, obj.Type())
	}
	if len(found) > 0 {
		t.Errorf("testrun's exported API names internal types:\n%s", strings.Join(found, "\n"))
	}
}

// internalTypes are the named types of internal packages that typ is or
// holds.
func internalTypes(typ types.Type, seen map[types.Type]bool) []string {
	if seen[typ] {
		return nil
	}
	seen[typ] = true
	switch t := typ.(type) {
	case *types.Alias:
		return internalTypes(types.Unalias(t), seen)
	case *types.Named:
		if p := t.Obj().Pkg(); p != nil && isInternal(p.Path()) {
			return []string{t.String()}
		}
		return nil // another public package's type: its own API
	case *types.Pointer:
		return internalTypes(t.Elem(), seen)
	case *types.Slice:
		return internalTypes(t.Elem(), seen)
	case *types.Array:
		return internalTypes(t.Elem(), seen)
	case *types.Chan:
		return internalTypes(t.Elem(), seen)
	case *types.Map:
		return append(internalTypes(t.Key(), seen), internalTypes(t.Elem(), seen)...)
	case *types.Signature:
		return append(internalTypes(t.Params(), seen), internalTypes(t.Results(), seen)...)
	case *types.Tuple:
		var out []string
		for i := range t.Len() {
			out = append(out, internalTypes(t.At(i).Type(), seen)...)
		}
		return out
	case *types.Struct:
		var out []string
		for i := range t.NumFields() {
			if t.Field(i).Exported() {
				out = append(out, internalTypes(t.Field(i).Type(), seen)...)
			}
		}
		return out
	case *types.Interface:
		var out []string
		for i := range t.NumMethods() {
			out = append(out, internalTypes(t.Method(i).Type(), seen)...)
		}
		return out
	}
	return nil
}

func isInternal(path string) bool {
	return strings.HasPrefix(path, "internal/") || strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal")
}

// importPackage type-checks path from the export data the go command
// builds, as a user's compiler would see it.
func importPackage(t *testing.T, path string) *types.Package {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export", path).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(p string) (io.ReadCloser, error) {
		file, ok := exports[p]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(file)
	})
	pkg, err := imp.Import(path)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}
