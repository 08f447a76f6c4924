package object

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// FuzzMapInitObject: a --map-init file whose program array names a
// program of another object, {object: FILE, program: NAME}, with any
// file as that object, any name, and any entries after, for its maps
// (FILE:MAP) or the measured object's: bad input (exit 2), or the other
// object chosen and prepared beside the measured one, every entry
// resolved into a map of one of them with values of the map's size;
// never a panic. Nothing is loaded. The seeds are the repository's
// objects with each of their programs.
func FuzzMapInitObject(f *testing.F) {
	objects := repoObjects(f)
	for _, name := range sortedKeys(objects) {
		data := objects[name]
		infos, err := (Object{Name: name, ELF: data}).Programs()
		if err != nil {
			f.Add(data, "prog", "")
			continue
		}
		for _, p := range infos {
			f.Add(data, p.Name, "")
		}
	}
	ports := objects["../../bpf/testdata/ports.o"]
	if ports == nil {
		f.Fatal("no ports.o to seed with")
	}
	f.Add(ports, "port_filter", "  ports.o:ports:\n    - {key: 80, value: 1}\n")
	f.Add(ports, "port_filter", "  ports:\n    - {key: 0, value: 1}\n  chosen:\n    - {key: 1, value: {object: ports.o, program: port_filter}}\n")
	f.Add(ports, "port_filter", "  chosen:\n    - {key: 1, value: {object: ../ports.o, program: port_filter}}\n")
	f.Add(ports, "port_filter", "  fallback:\n    - {key: 1, value: transmit}\n  ports.o:passed:\n    - {key: 0, value: 7}\n")
	spec, _, all, err := kerneltest.ReadTestObject[Object](f, "tailcall.o").choose("entry", Settings{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, other []byte, program, extra string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "ports.o"), other, 0o600); err != nil {
			t.Fatal(err)
		}
		text := "maps:\n  chosen:\n    - {key: 0, value: {object: ports.o, program: " + strconv.Quote(program) + "}}\n" + extra
		mi, err := ParseMapInit(filepath.Join(dir, "init.yaml"), []byte(text))
		if err != nil {
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("error %q is not bad input", err)
			}
			return
		}
		measured := spec.Copy()
		updates, others, err := mi.Resolve(measured, all, Settings{})
		if err != nil {
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("resolving: error %q is not bad input: it would exit 1", err)
			}
			return
		}
		if len(others) == 0 || others[0].Prefix != "ports.o:" {
			t.Fatalf("the other object is not beside the measured one: %+v", others)
		}
		o := others[0].Chosen
		if o.Spec.Programs[o.Info.Name] == nil || o.Info.Name != program {
			t.Fatalf("other object: chose %q for %q", o.Info.Name, program)
		}
		var total uint64
		for _, u := range updates {
			ms := measured.Maps[u.Map()]
			if name, ok := strings.CutPrefix(u.Map(), "ports.o:"); ok {
				ms = o.Spec.Maps[name]
			}
			if ms == nil {
				t.Fatalf("an entry for map %s, which neither object has", u.Map())
			}
			// A program array's or a map of maps' value is a name until
			// loaded; a per-CPU map's is one per CPU.
			if v := u.Value(); v != nil && uint32(len(v)) != ms.ValueSize {
				t.Fatalf("map %s: a value of %d bytes, the map's are %d", u.Map(), len(v), ms.ValueSize)
			}
			if k := u.Key(); k != nil && uint32(len(k)) != ms.KeySize {
				t.Fatalf("map %s: a key of %d bytes, the map's are %d", u.Map(), len(k), ms.KeySize)
			}
			total += u.Entries()
		}
		if total > MaxMapInitEntries {
			t.Fatalf("%d entries in all", total)
		}
	})
}
