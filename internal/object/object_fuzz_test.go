package object

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/report"
)

// repoObjects are every BPF object the repository holds: the bundled
// builds, the test objects, the examples'. Fuzz seeds start from them,
// so that the fuzzer mutates real ELF, BTF and relocations.
func repoObjects(f *testing.F) map[string][]byte {
	f.Helper()
	objects := map[string][]byte{}
	for _, pattern := range []string{"../../bpf/*.o", "../../bpf/testdata/*.o", "../../examples/*/*.o", "../livenet/*.o"} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			objects[p] = data
		}
	}
	if len(objects) < 20 {
		f.Fatalf("only %d objects found to seed with", len(objects))
	}
	return objects
}

// badInput fails t unless err is bad input: an object from anywhere
// that cannot be run is the user's to fix (exit 2), never the tool's
// failure (exit 1).
func badInput(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, badinput.Err) {
		t.Fatalf("%s: error %q is not bad input: it would exit 1", what, err)
	}
}

// objectSettings are the settings a fuzzed flag byte asks for: --type
// for sections that name none, --attach-type xdp.
func objectSettings(t *testing.T, flags uint8) Settings {
	var opts LoadOptions
	switch flags & 3 {
	case 1:
		opts.Type = "xdp"
	case 2:
		opts.Type = "tc"
	case 3:
		opts.Type = "socket_filter"
	}
	if flags&4 != 0 {
		opts.AttachType = attachPlainXDP
	}
	s, err := NewSettings(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzObject: any file given as an object, through what is done before
// anything is loaded: parsing (ELF, BTF, relocations), the programs
// listing (programs, maps, variables, as `xdpmicro programs OBJECT`
// prints them), --program's choice and globs, the tail-call targets a
// program array holds, and the preparation for loading (unpinned,
// sized). Each gives a usable result or bad input, never a panic; what
// it gives holds together. Nothing is loaded into the kernel: a probe
// load of the large maps (markLargeArrays) is the one step of Choose
// left out.
func FuzzObject(f *testing.F) {
	objects := repoObjects(f)
	for _, name := range sortedKeys(objects) {
		data := objects[name]
		f.Add(data, "", uint8(0))
		// Every program by name, a glob, and under the other settings.
		if infos, err := (Object{Name: name, ELF: data}).Programs(); err == nil {
			for i, p := range infos {
				f.Add(data, p.Name, uint8(i))
			}
			f.Add(data, "*", uint8(7))
		}
	}
	f.Add([]byte("\x7fELF"), "", uint8(0))
	f.Add([]byte{}, "x", uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, program string, flags uint8) {
		obj := Object{Name: "fuzz.o", ELF: data}
		s := objectSettings(t, flags)
		infos, err := obj.Programs()
		if err != nil {
			badInput(t, "programs", err)
			return
		}
		if len(infos) == 0 || !slices.IsSortedFunc(infos, func(a, b ProgramInfo) int { return strings.Compare(a.Name, b.Name) }) {
			t.Fatalf("programs: %d, not sorted by name: %v", len(infos), infos)
		}
		listing := report.ObjectListing{Name: obj.Name}
		for _, p := range infos {
			listing.Programs = append(listing.Programs, report.ListedProgram{Name: p.Name, Type: p.Type.String(), Section: p.Section})
		}
		maps, err := obj.Maps()
		if err != nil {
			t.Fatalf("the programs listed, the maps not: %v", err)
		}
		for _, m := range maps {
			// A type is cut at maxCType characters, whatever the BTF.
			if len(m.Key) > maxCType+64 || len(m.Value) > maxCType+maxCType+64 {
				t.Fatalf("map %s: a key of %d and a value of %d characters", m.Name, len(m.Key), len(m.Value))
			}
			listing.Maps = append(listing.Maps, report.ListedMap{Name: m.Name, Type: m.Type, Key: m.Key, Value: m.Value, MaxEntries: m.MaxEntries, Notes: m.Notes})
		}
		vars, err := obj.Variables()
		if err != nil {
			t.Fatalf("the programs listed, the variables not: %v", err)
		}
		for _, v := range vars {
			listing.Variables = append(listing.Variables, report.ListedVariable{Name: v.Name, Section: v.Section, Type: v.Type, Size: v.Size, Value: v.Value})
		}
		// The listing reaches the terminal with no control character
		// of the object's names acting on it.
		var out bytes.Buffer
		if err := (report.Output{Format: report.Table}).Write(&out, report.OfObject(listing)); err != nil {
			t.Fatalf("the listing does not write: %v", err)
		}
		if strings.ContainsAny(out.String(), "\x1b\x07\u009b\r") {
			t.Fatalf("the listing holds a control character: %q", out.String())
		}

		names, _, err := Select(obj, program, s)
		if err != nil {
			badInput(t, "select", err)
		}
		for _, n := range names {
			i := slices.IndexFunc(infos, func(p ProgramInfo) bool { return p.Name == n })
			if i < 0 || !s.Measurable(ProgramInfo{Name: n, Type: typeOr(infos[i].Type, s.programType), AttachType: infos[i].AttachType}) {
				t.Fatalf("select chose %q, which is not a measurable program of %v", n, infos)
			}
		}

		name := program
		if IsPattern(program) {
			name = ""
		}
		spec, info, all, err := obj.choose(name, s)
		if err != nil {
			badInput(t, "choose", err)
			return
		}
		if spec.Programs[info.Name] == nil || !info.Supported() || len(all) < len(spec.Programs) {
			t.Fatalf("chose %+v, which the spec does not hold or cannot be measured", info)
		}
		// What a program array holds statically is loaded with it: the
		// load would fail on a program that is not there.
		for mapName, ms := range spec.Maps {
			if ms.Type != ebpf.ProgramArray {
				continue
			}
			for _, kv := range ms.Contents {
				if p, ok := kv.Value.(string); ok && spec.Programs[p] == nil {
					t.Fatalf("program array %s holds %s, which is not kept", mapName, p)
				}
			}
		}
		if _, err := s.prepare(spec, obj.Name); err != nil {
			badInput(t, "prepare", err)
			return
		}
		for mapName, ms := range spec.Maps {
			if ms.Pinning != ebpf.PinNone || ms.InnerMap != nil && ms.InnerMap.Pinning != ebpf.PinNone {
				t.Fatalf("map %s stays pinned", mapName)
			}
			if ms.MaxEntries == 0 && needsSize(ms.Type) {
				t.Fatalf("map %s of type %s is left without a size", mapName, ms.Type)
			}
		}
		for _, m := range largeMaps(spec) {
			if spec.Maps[m] == nil {
				t.Fatalf("large map %s is not in the spec", m)
			}
		}
	})
}

// typeOr is t, or def where t is unspecified: --type's effect.
func typeOr(t, def ebpf.ProgramType) ebpf.ProgramType {
	if t == ebpf.UnspecifiedProgram {
		return def
	}
	return t
}
