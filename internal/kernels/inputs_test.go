package kernels

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The files a command line reads: its values that name files, a glob's
// matches, a comma list's files, the objects a --map-init file names
// relative to itself; not the values that name none.
func TestInputs(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"prog.o", "a.yaml", "b.yaml", "maps/init.yaml", "maps/other.o"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mapInit := filepath.Join(dir, "maps/init.yaml")
	os.WriteFile(mapInit, []byte("progs:\n  - {key: 1, value: {object: other.o, program: p}}\n"), 0o644)
	got, err := Inputs([]string{"v4", filepath.Join(dir, "prog.o"), filepath.Join(dir, "*.yaml"), "10", mapInit}, []string{mapInit})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"prog.o", "a.yaml", "b.yaml", "maps/init.yaml", "maps/other.o"}
	for _, w := range want {
		if !slices.Contains(got, filepath.Join(dir, w)) {
			t.Errorf("no %s in %q", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%q; want the %d files %q", got, len(want), want)
	}
	got, _ = Inputs([]string{filepath.Join(dir, "a.yaml") + "," + filepath.Join(dir, "b.yaml")}, nil)
	if len(got) != 2 {
		t.Errorf("a comma list: %q", got)
	}
}
