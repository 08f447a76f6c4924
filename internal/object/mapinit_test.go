package object

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
	"github.com/xdpmicro/xdpmicro/internal/mapinit"
)

// entryMaps are maps of every kind of key and value the entries a line
// each meet: integers, an address, a big-endian port, a struct, a char
// array, a per-CPU map, an array.
func entryMaps() *ebpf.CollectionSpec {
	u32 := &btf.Int{Name: "__u32", Size: 4}
	u64 := &btf.Int{Name: "__u64", Size: 8}
	s32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	be16 := &btf.Typedef{Name: "__be16", Type: &btf.Int{Name: "__u16", Size: 2}}
	char := &btf.Int{Name: "char", Size: 1, Encoding: btf.Char}
	vip := &btf.Struct{Name: "vip", Size: 8, Members: []btf.Member{
		{Name: "addr", Type: u32}, {Name: "port", Type: be16, Offset: 32}, {Name: "proto", Type: &btf.Int{Name: "__u8", Size: 1}, Offset: 48},
	}}
	return &ebpf.CollectionSpec{Maps: map[string]*ebpf.MapSpec{
		"ring":  {Name: "ring", Type: ebpf.Array, KeySize: 4, Key: u32, ValueSize: 4, Value: u32, MaxEntries: 1024},
		"flows": {Name: "flows", Type: ebpf.Hash, KeySize: 8, Key: u64, ValueSize: 4, Value: s32, MaxEntries: 1024},
		"vips":  {Name: "vips", Type: ebpf.Hash, KeySize: 8, Key: vip, ValueSize: 4, Value: u32, MaxEntries: 16},
		"ports": {Name: "ports", Type: ebpf.Hash, KeySize: 2, Key: be16, ValueSize: 8, Value: u64, MaxEntries: 16},
		"names": {Name: "names", Type: ebpf.Hash, KeySize: 4, Key: u32, ValueSize: 8, Value: &btf.Array{Type: char, Index: u32, Nelems: 8}, MaxEntries: 16},
		"addrs": {Name: "addrs", Type: ebpf.Hash, KeySize: 4, ValueSize: 4, MaxEntries: 16},
		"cpu":   {Name: "cpu", Type: ebpf.PerCPUArray, KeySize: 4, Key: u32, ValueSize: 8, Value: u64, MaxEntries: 16},
	}, Programs: map[string]*ebpf.ProgramSpec{}}
}

// listEntries writes every entry updates put, one a line: where it is,
// its map, key and value.
func listEntries(t *testing.T, updates []Update) []string {
	t.Helper()
	var out []string
	for _, u := range updates {
		key := make([]byte, len(u.KeyBytes))
		for i := range u.Entries() {
			u.PutKey(key, i)
			out = append(out, fmt.Sprintf("%s %s %x %x %x %s %s", u.WhereAt(i), u.MapName, key, u.ValueAt(i), u.PerCPU, u.Program, u.Inner))
		}
	}
	return out
}

// resolveBoth resolves doc against entryMaps with entries a line each
// read past yaml.v3, and with yaml.v3 alone.
func resolveBoth(t *testing.T, doc string) (lines, yamlOnly []string, linesErr, yamlErr error) {
	t.Helper()
	resolve := func() ([]string, error) {
		mi, err := ParseMapInit("init.yaml", []byte(doc))
		if err != nil {
			return nil, err
		}
		updates, _, err := mi.Resolve(entryMaps(), nil, Settings{})
		return listEntries(t, updates), err
	}
	lines, linesErr = resolve()
	mapinit.ReadLineRuns = false
	defer func() { mapinit.ReadLineRuns = true }()
	yamlOnly, yamlErr = resolve()
	return
}

// Entries a line each, read past yaml.v3, give the very entries, lines
// and errors yaml.v3 gives (issue 59, item 10): what is not plainly such
// an entry is left to it.
func TestLineRunsReadAsYAML(t *testing.T) {
	for _, doc := range []string{
		"maps:\n  ring:\n    - {key: 0, value: 7}\n    - {key: 1, value: 0x10}\n    - {key: 2, value: 010}\n    - {key: 3, value: 1_000}\n",
		"maps:\n  ring:\n  - key: 0\n    value: 7\n  - key: 1\n    value: 8\n\n  # a comment\n  - key: 2\n    value: 9\n  flows:\n  - {key: 5, value: -3}\n",
		"maps:\n  flows:\n    - {key: 18446744073709551615, value: 2147483647}\n    - {key: 1, value: -2147483648}   # min\n    - {key: 2, value: XDP_TX}\n",
		"maps:\n  vips:\n    - {key: {addr: 198.51.100.1, port: htons(80), proto: 6}, value: 1}\n  ports:\n    - {key: htons(443), value: 1}\n    - {key: 80, value: 2}\n    - {key_hex: \"01bb\", value_hex: \"0300000000000000\"}\n",
		"maps:\n  names:\n    - {key: 1, value: \"eth0\"}\n    - {key: 2, value: eth1}\n    - {key: 3, value: 'eth2'}\n  addrs:\n    - {key: 1, value: 10.0.0.2}\n    - {key: 2, value: \"10.0.0.3\"}\n",
		"maps:\n  ring:\n    - {keys: {from: 0, to: 9}, value: 1}\n    - {key: 3, value: 2}\n    - {key: 4,\n       value: 3}\n    - {key: 5, value: 4}\n",
		"maps:\n  cpu:\n    - {key: 0, value: 5}\n    - {key: 1, value: [1, 2]}\n    - {key: 2, value_hex: \"0100000000000000\"}\n",
		"max_entries:\n  ring: 4\nmaps:\n  ring:\n    - {key: 0, value: 1}\n    - {key: 9, value: 1}\n",
		"maps:\n  ring:\n    - {key: 0, value: 1.5}\n",
		"maps:\n  ring:\n    - {key: 0, value: 1}\n    - {key: 1, value: 2, key_hex: \"00000000\"}\n",
		"maps:\n  ring:\n    - {key: 0, value: 1}\n    - {key: 1, key: 2, value: 2}\n",
		"maps:\n  ring:\n    - {key: 0, value: 1}\n    - {key: 1, value: 2}\n  ring:\n    - {key: 2, value: 3}\n",
		"maps:\n  ring:\n    - key: 0\n      value: 1\n      more\n",
		"maps:\n  ring:\n    - {key: 0, value: 1}\n    - {key: 1, value: 2} junk\n",
		"maps:\n  ring:\r\n    - {key: 0, value: 1}\r\n    - {key: 1, value: 2}",
		"maps:\n  ring:\n    - {key: 0, value: &a 1}\n    - {key: 1, value: *a}\n",
		"variables:\n  x: |\n    - {key: 0, value: 1}\nmaps:\n  ring:\n    - {key: 7, value: 1}\n",
		"maps:\n  ring: [{key: 0, value: 1},\n    {key: 1, value: 2}]\n",
		"maps:\n  nosuch:\n    - {key: 0, value: 1}\n",
	} {
		lines, yamlOnly, linesErr, yamlErr := resolveBoth(t, doc)
		if fmt.Sprint(linesErr) != fmt.Sprint(yamlErr) || strings.Join(lines, "\n") != strings.Join(yamlOnly, "\n") {
			t.Errorf("%q:\nread a line each: %q, %v\nby yaml.v3:       %q, %v", doc, lines, linesErr, yamlOnly, yamlErr)
		}
	}
}

// The bulk of a large map a line each is read without yaml.v3's nodes:
// the parse holds about the file's bytes, the resolved entries their
// bytes and a line number each (issue 59, item 10: 131,080 entries of
// katran's rings took 104 MB of nodes, a million would take 800).
func TestLargeMapInitMemory(t *testing.T) {
	const n = 1 << 20
	var yamlDoc, jsonDoc strings.Builder
	fmt.Fprintf(&yamlDoc, "max_entries:\n  flows: %d\nmaps:\n  flows:\n", n)
	fmt.Fprintf(&jsonDoc, `{"max_entries": {"flows": %d}, "maps": {"flows": [`, n)
	for i := range n {
		fmt.Fprintf(&yamlDoc, "    - {key: %d, value: %d}\n", i, i%1000)
		if i > 0 {
			jsonDoc.WriteString(",\n")
		}
		fmt.Fprintf(&jsonDoc, `{"key": %d, "value": %d}`, i, i%1000)
	}
	jsonDoc.WriteString("]}}\n")
	for name, doc := range map[string][]byte{"init.yaml": []byte(yamlDoc.String()), "init.json": []byte(jsonDoc.String())} {
		heap := func() uint64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		before := heap()
		mi, err := ParseMapInit(name, doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		parsed := heap()
		s, err := NewSettings(LoadOptions{}, mi)
		if err != nil {
			t.Fatal(err)
		}
		spec := entryMaps()
		if _, err := s.prepare(spec, name); err != nil {
			t.Fatal(err)
		}
		updates, _, err := mi.Resolve(spec, nil, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		resolved := heap()
		if len(updates) != 1 || updates[0].Entries() != n {
			t.Fatalf("%s: %d updates, want one block of %d entries", name, len(updates), n)
		}
		var k [8]byte
		updates[0].PutKey(k[:], n-1)
		if binary.NativeEndian.Uint64(k[:]) != n-1 || binary.NativeEndian.Uint32(updates[0].ValueAt(n-1)) != (n-1)%1000 || updates[0].WhereAt(n-1) == "" {
			t.Errorf("%s: last entry %x %x", name, k, updates[0].ValueAt(n-1))
		}
		t.Logf("%s, %d MB: parsed %d MB, resolved %d MB more", name, len(doc)>>20, (parsed-before)>>20, (resolved-parsed)>>20)
		if grew := parsed - before; grew > 2*uint64(len(doc)) {
			t.Errorf("%s: parsing %d MB took %d MB", name, len(doc)>>20, grew>>20)
		}
		if grew := resolved - parsed; grew > 32*n {
			t.Errorf("%s: resolving %d entries took %d MB", name, n, grew>>20)
		}
		runtime.KeepAlive(mi)
		runtime.KeepAlive(updates)
	}
}

// A JSON map-init file gives what the same file in YAML gives, and a file
// that only looks like JSON is read as the YAML it is.
func TestJSONMapInit(t *testing.T) {
	const yamlDoc = "max_entries:\n  ring: 64\nmaps:\n  ring:\n    - {key: 0, value: 7}\n    - {keys: {from: 1, to: 3}, value: 2}\n  vips:\n" +
		"    - {key: {addr: 198.51.100.1, port: htons(80), proto: 6}, value: 1}\n  cpu:\n    - {key: 1, value: [1]}\n"
	const jsonDoc = `{"max_entries": {"ring": 64}, "maps": {"ring": [{"key": 0, "value": 7}, {"keys": {"from": 1, "to": 3}, "value": 2}],
 "vips": [{"key": {"addr": "198.51.100.1", "port": "htons(80)", "proto": 6}, "value": 1}],
 "cpu": [{"key": 1, "value": [1]}]}}`
	resolve := func(name, doc string) ([]string, error) {
		mi, err := ParseMapInit(name, []byte(doc))
		if err != nil {
			return nil, err
		}
		s, _ := NewSettings(LoadOptions{}, mi)
		spec := entryMaps()
		if _, err := s.prepare(spec, name); err != nil {
			return nil, err
		}
		updates, _, err := mi.Resolve(spec, nil, s)
		var out []string
		for _, e := range listEntries(t, updates) {
			out = append(out, strings.SplitN(e, " ", 2)[1]) // the lines differ
		}
		return out, err
	}
	fromYAML, err := resolve("init.yaml", yamlDoc)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := resolve("init.json", jsonDoc)
	if err != nil || strings.Join(fromJSON, "\n") != strings.Join(fromYAML, "\n") {
		t.Errorf("JSON: %q, %v\nwant YAML's %q", fromJSON, err, fromYAML)
	}
	// YAML of quoted keys that JSON is not.
	if _, err := resolve("init.yaml", `{"maps": {ring: [{key: 0, value: 1}]}}`); err != nil {
		t.Errorf("a YAML flow mapping: %v", err)
	}
	for doc, want := range map[string]string{
		`{"maps": {"ring": [{"key": 0, "value": 1}, {"key": 1}]}}`:                        `init.json:1: maps.ring[1]: no value`,
		`{"maps": {"ring": [{"key": 0, "value": 1},` + "\n" + ` {"key": 1, "vale": 2}]}}`: `init.json:2: maps.ring[1]: unknown field "vale"`,
		`{"maps": {"ring": [{"key": 0, "value": 1}` + "\n\n" + `,,]}}`:                    `init.json:3:`,
		`{"maps": {"ring": [{"key": 0, "value": 1}]}, "more": 1}`:                         `unknown key "more"`,
		`{"maps": {"ring": {"file": "x"}}}`:                                               `maps.ring: want a list of entries, or {"bpftool": FILE} or {"entries": FILE}`,
		`{"maps": {"ring": [{"key": 0, "value": ` + strings.Repeat("[", 100) + `]}]}}`:    `nested deeper than 64`,
	} {
		_, err := resolve("init.json", doc)
		if !errors.Is(err, ErrMapInit) || !errors.Is(err, badinput.Err) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line of bad input with %q", doc, err, want)
		}
	}
}

// A map dumped by bpftool (-j, with BTF or without, per-CPU too) fills
// the same map of a new load with what it held (issue 59, item 10):
// production's maps, replayed.
func TestBpftoolDumpReplayed(t *testing.T) {
	kerneltest.RequireBPF(t)
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		t.Skip("bpftool is not installed:", err)
	}
	dir := t.TempDir()
	dump := func(name string, m *ebpf.Map) {
		t.Helper()
		info, err := m.Info()
		if err != nil {
			t.Fatal(err)
		}
		id, _ := info.ID()
		out, err := exec.Command(bpftool, "map", "dump", "id", fmt.Sprint(id), "-j").Output()
		if err != nil {
			t.Fatalf("bpftool map dump: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("bpftool's dump is not JSON: %.200s", out)
		}
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A hash with BTF (maps.o's lengths), a per-CPU array (ports.o's),
	// and a map without BTF.
	source, err := Load(kerneltest.ReadTestObject[Object](t, "maps.o"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer source.Close()
	for i := range uint32(40) {
		if err := source.Maps()["lengths"].Put(i*7, uint64(i)<<33|uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	dump("lengths.json", source.Maps()["lengths"])
	ports, err := Load(kerneltest.ReadTestObject[Object](t, "ports.o"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer ports.Close()
	cpus, _ := ebpf.PossibleCPU()
	perCPU := make([]uint64, cpus)
	for i := range perCPU {
		perCPU[i] = uint64(100 + i)
	}
	if err := ports.Maps()["ports"].Put(uint32(443), perCPU); err != nil {
		t.Fatal(err)
	}
	dump("ports.json", ports.Maps()["ports"])
	plain, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.Put(uint32(9), uint64(99)); err != nil {
		t.Fatal(err)
	}
	dump("plain.json", plain)

	for _, tt := range []struct {
		object, doc string
		check       func(l *Loaded)
	}{
		{"maps.o", "maps:\n  lengths: {bpftool: lengths.json}\n", func(l *Loaded) {
			var v uint64
			for i := range uint32(40) {
				if err := l.Maps()["lengths"].Lookup(i*7, &v); err != nil || v != uint64(i)<<33|uint64(i) {
					t.Errorf("lengths[%d]: %d, %v", i*7, v, err)
				}
			}
		}},
		{"maps.o", "maps:\n  lengths: {bpftool: plain.json}\n", func(l *Loaded) {
			var v uint64
			if err := l.Maps()["lengths"].Lookup(uint32(9), &v); err != nil || v != 99 {
				t.Errorf("lengths[9] from a dump without BTF: %d, %v", v, err)
			}
		}},
		{"ports.o", "maps:\n  ports: {bpftool: ports.json}\n", func(l *Loaded) {
			got := make([]uint64, cpus)
			if err := l.Maps()["ports"].Lookup(uint32(443), &got); err != nil || fmt.Sprint(got) != fmt.Sprint(perCPU) {
				t.Errorf("ports[443]: %v, %v; want %v", got, err, perCPU)
			}
		}},
	} {
		path := filepath.Join(dir, "init.yaml")
		if err := os.WriteFile(path, []byte(tt.doc), 0o600); err != nil {
			t.Fatal(err)
		}
		mi, err := ReadMapInit(path)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := NewSettings(LoadOptions{}, mi)
		c, err := Choose(kerneltest.ReadTestObject[Object](t, tt.object), "", s)
		if err != nil {
			t.Fatal(err)
		}
		updates, _, err := mi.Resolve(c.Spec, c.Programs, s)
		if err != nil {
			t.Fatalf("%s: %v", tt.doc, err)
		}
		l, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Apply(updates); err != nil {
			t.Errorf("%s: %v", tt.doc, err)
		}
		tt.check(l)
		l.Close()
	}

	// A dump of another map's shape, and one that is not a dump, are the
	// file's fault, named with the entry.
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`[{"key": ["0x01"], "value": ["0xzz"]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	for doc, want := range map[string]string{
		"maps:\n  lengths: {bpftool: ports.json}\n": "ports.json: entry 1: map lengths is not per-CPU: give one value_hex",
		"maps:\n  lengths: {bpftool: bad.json}\n":   `bad.json: entry 1: "0xzz" is not a byte in hex`,
		"maps:\n  lengths: {bpftool: none.json}\n":  "init.yaml:2: maps.lengths: open",
	} {
		path := filepath.Join(dir, "init.yaml")
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		mi, err := ReadMapInit(path)
		if err == nil {
			s, _ := NewSettings(LoadOptions{}, mi)
			c, cerr := Choose(kerneltest.ReadTestObject[Object](t, "maps.o"), "", s)
			if cerr != nil {
				t.Fatal(cerr)
			}
			_, _, err = mi.Resolve(c.Spec, c.Programs, s)
		}
		if !errors.Is(err, ErrMapInit) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", doc, err, want)
		}
	}
}

// A file of entries, a JSON list or JSON lines, fills a map as the same
// entries in the map-init file do.
func TestEntriesFile(t *testing.T) {
	dir := t.TempDir()
	lines := "{\"key\": 1, \"value\": 10}\n{\"key_hex\": \"02000000\", \"value\": 20}\n{\"keys\": {\"from\": 5, \"count\": 2}, \"value\": 30}\n"
	list := "[" + strings.ReplaceAll(strings.TrimSpace(lines), "\n", ",\n") + "]"
	var results []string
	for name, content := range map[string]string{"lines.jsonl": lines, "list.json": list} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "init.yaml")
		if err := os.WriteFile(path, []byte("maps:\n  ring: {entries: "+name+"}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		mi, err := ReadMapInit(path)
		if err != nil {
			t.Fatal(err)
		}
		updates, _, err := mi.Resolve(entryMaps(), nil, Settings{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []string
		for _, e := range listEntries(t, updates) {
			got = append(got, strings.SplitN(e, " ", 3)[2])
		}
		results = append(results, strings.Join(got, "\n"))
		if len(got) != 4 || !strings.Contains(listEntries(t, updates)[1], name+": entry 2 ring 02000000 14000000") {
			t.Errorf("%s: %q", name, listEntries(t, updates))
		}
	}
	if results[0] != results[1] {
		t.Errorf("JSON lines and a JSON list differ:\n%s\n%s", results[0], results[1])
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("{\"key\": 1, \"value\": 1}\n{\"key\": 2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "init.yaml")
	if err := os.WriteFile(path, []byte("maps:\n  ring: {entries: bad.jsonl}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mi, err := ReadMapInit(path)
	if err == nil {
		_, _, err = mi.Resolve(entryMaps(), nil, Settings{})
	}
	if want := "bad.jsonl: entry 2: no value"; !errors.Is(err, ErrMapInit) || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("an entry without a value: %v, want %q", err, want)
	}
}
