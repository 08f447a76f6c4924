package object

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/internal/yamlsize"
	"golang.org/x/sys/unix"
	"gopkg.in/yaml.v3"
)

// ErrMapInit reports a --map-init file that cannot be used.
var ErrMapInit = badinput.New("bad map-init file")

// MapInit holds entries to put into maps after loading, before any run,
// and global variables and map sizes to set before loading.
//
// The file is YAML (or JSON). Under maps, one list of entries per map
// name. A key or value is written in hex (key_hex, value_hex), or, when
// the object has BTF for the map, as YAML: numbers and enum names for
// integers, mappings for structs and unions (members of anonymous ones
// by their own names), sequences for arrays, IPv4, IPv6 and MAC addresses
// as strings for fields of their size. Fields of type __be16, __be32 and
// __be64 take numbers as written; htons(80) and htonl(N) give an integer
// in network byte order. Queues and stacks take values only. A per-CPU
// map's value fills every possible CPU; a list of values gives one per CPU
// (the rest are zero). A program array's value is a program's name, a map
// of maps' value a map's name, or "inner" for a new map of its inner type.
//
// An entry may fill many: keys: {from: N, to: M} (inclusive) or {from: N,
// count: C} gives every key of the range the entry's value, for a map
// whose key is an integer (by BTF, an array's index, or 1, 2, 4 or 8
// bytes without BTF, counted in host byte order; a __be32 key counts in
// network order); repeat: N pushes a queue's or stack's value N times.
// A range holds at most the map's max_entries keys (an array's indexes
// below it). Entries are put in the file's order, so where a range and
// another entry give one key, the later wins.
//
// A map's list may instead be another file: {bpftool: FILE}, `bpftool
// map dump -j`'s output, or {entries: FILE}, a JSON list or JSON lines of
// entries. Large maps are read as streams (mapinit_lines.go,
// mapinit_json.go): entries a line each in YAML and JSON files are kept
// as text, other files read when the entries are resolved.
//
//	variables:
//	  action: XDP_TX
//	max_entries:
//	  cpu_map: 4
//	maps:
//	  config:
//	    - {key: 0, value: {port: 53, enabled: 1}}
//	    - {key_hex: "01000000", value_hex: "35000100"}
//	  ch_rings:
//	    - {keys: {from: 0, to: 32767}, value: 1}
//	    - {keys: {from: 32768, count: 32769}, value: 2}
//	  verdicts:
//	    - value: FIZZ
//	    - {value: BUZZ, repeat: 3}
//	  jump_table:
//	    - {key: 0, value: tail_target}
type MapInit struct {
	file      string
	maps      []mapEntries
	variables []assignment
	sizes     []sizing
}

type mapEntries struct {
	name  string
	line  int
	parts []entryPart
}

// entryPart is a stretch of a map's entries, in the file's order: entries
// yaml.v3 parsed, or a stream read entry by entry each time the entries
// are resolved, of which nothing is held but the file's bytes (or, for
// another file, its name): a map of millions of entries (mapinit*.go).
type entryPart struct {
	entries []mapEntry
	stream  entryStream
}

// entryStream yields a stretch of entries in order, each valid until the
// next; an error of yield's ends it, and is returned.
type entryStream interface {
	each(yield func(mapEntry) error) error
}

// each calls yield on every entry of me, in order.
func (me mapEntries) each(yield func(mapEntry) error) error {
	for _, p := range me.parts {
		if p.stream != nil {
			if err := p.stream.each(yield); err != nil {
				return err
			}
			continue
		}
		for _, e := range p.entries {
			if err := yield(e); err != nil {
				return err
			}
		}
	}
	return nil
}

type mapEntry struct {
	line int
	// src is the file the entry is in, when not the map-init file's own
	// line (a bpftool dump, a file of entries): its line is then the
	// entry's number there.
	src        *entrySource
	key, value *yaml.Node
	keyHex     []byte
	valueHex   [][]byte // one, or one per CPU
	hasKeyHex  bool
	// hasRange: keys: {from, to} or {from, count}, every key from..to
	// (inclusive) holding the value.
	hasRange bool
	from, to uint64
	// repeat is how many times a queue's or stack's value is pushed; 0
	// when not given (once).
	repeat uint64
}

// entrySource is another file a map's entries are read from.
type entrySource struct {
	file string
}

// MaxMapInitNodes bounds a --map-init file's YAML nodes, counted before
// yaml.v3 builds them (about 800 bytes an entry of a key and a value:
// some 160 MB at most), against documents that would take gigabytes
// (aliases, deep nesting). Entries a line each in flow style ({key: 7,
// value: 1}) or in block style of scalars are read past yaml.v3 and
// count for nothing here (mapinit_lines.go), as are JSON files and
// bpftool's dumps (mapinit_json.go).
const MaxMapInitNodes = 1_000_000

// ReadMapInit reads and checks the syntax of a --map-init file; whether
// the maps and types fit is checked against the object before loading.
func ReadMapInit(path string) (*MapInit, error) {
	data, err := safefs.ReadFile(path, safefs.MaxInput)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMapInit, err)
	}
	return parseMapInit(path, data, true)
}

// ParseMapInit parses the content of a --map-init file named name: JSON
// (its first character "{") is read as a stream, YAML with yaml.v3,
// but for runs of entries of a line each, read as a stream too.
func ParseMapInit(name string, data []byte) (*MapInit, error) {
	return parseMapInit(name, data, false)
}

// parseMapInit parses data, which it keeps parts of where owned (the
// text of a million entries, read again as they are resolved), else
// copies.
func parseMapInit(name string, data []byte, owned bool) (*MapInit, error) {
	if isJSON(data) {
		return parseJSONMapInit(name, data, owned)
	}
	return parseYAMLMapInit(name, data, owned)
}

func parseYAMLMapInit(name string, data []byte, owned bool) (*MapInit, error) {
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", ErrMapInit, name, line, fmt.Sprintf(format, args...))
	}
	doc, runs, err := splitLineRuns(name, data, owned)
	if err != nil {
		return nil, err
	}
	if n := yamlsize.Nodes(doc.text); n > MaxMapInitNodes {
		return nil, fmt.Errorf("%w: %s: more than %d YAML nodes (collections, entries, aliases): write entries a line each ({key: K, value: V}), "+
			"or as JSON, or write runs of keys that share a value as keys: {from: N, to: M}", ErrMapInit, name, MaxMapInitNodes)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(doc.text, &root); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrMapInit, name, err)
	}
	const sections = `"maps", "variables" and "max_entries"`
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode || len(root.Content[0].Content) == 0 {
		return nil, fail(1, "want a mapping with the keys %s", sections)
	}
	init := &MapInit{file: name}
	top := root.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, section := top.Content[i], top.Content[i+1]
		if key.Value != "maps" && key.Value != "variables" && key.Value != "max_entries" {
			return nil, fail(key.Line, "unknown key %q: want %s", key.Value, sections)
		}
		if section.Kind != yaml.MappingNode {
			return nil, fail(section.Line, "%s: want a mapping by name", key.Value)
		}
		var err error
		switch key.Value {
		case "maps":
			err = init.parseMaps(section, doc.placeholder, runs, fail)
		case "variables":
			for j := 0; j+1 < len(section.Content); j += 2 {
				name, value := section.Content[j], section.Content[j+1]
				init.variables = append(init.variables, assignment{
					name: name.Value, value: value, where: fmt.Sprintf("%s:%d", init.file, name.Line), file: true})
			}
		case "max_entries":
			err = init.parseSizes(section, fail)
		}
		if err != nil {
			return nil, err
		}
	}
	return init, nil
}

// parseSizes reads the max_entries section: map names and sizes.
func (mi *MapInit) parseSizes(section *yaml.Node, fail func(int, string, ...any) error) error {
	for j := 0; j+1 < len(section.Content); j += 2 {
		name, value := section.Content[j], section.Content[j+1]
		n, err := strconv.ParseUint(value.Value, 0, 32)
		if value.Kind != yaml.ScalarNode || err != nil || n == 0 {
			return fail(value.Line, "max_entries.%s: %q is not a size from 1 to 4294967295", name.Value, value.Value)
		}
		mi.sizes = append(mi.sizes, sizing{
			name: name.Value, n: uint32(n), where: fmt.Sprintf("%s:%d", mi.file, name.Line), file: true})
	}
	return nil
}

// parseMaps reads the maps section: a list of entries for each map, where
// an item {placeholder: N} stands for runs[N], read past yaml.v3; or
// another file of them, {bpftool: FILE} or {entries: FILE}.
func (mi *MapInit) parseMaps(maps *yaml.Node, placeholder string, runs []*lineRun, fail func(int, string, ...any) error) error {
	for i := 0; i+1 < len(maps.Content); i += 2 {
		mapName, list := maps.Content[i], maps.Content[i+1]
		me := mapEntries{name: mapName.Value, line: mapName.Line}
		if src, ok := fileSourceNode(list); ok {
			stream, err := mi.fileStream(mapName.Value, src, list.Line)
			if err != nil {
				return err
			}
			me.parts = []entryPart{{stream: stream}}
			mi.maps = append(mi.maps, me)
			continue
		}
		if list.Kind != yaml.SequenceNode {
			return fail(list.Line, "maps.%s: want a list of entries, or {bpftool: FILE} or {entries: FILE}", mapName.Value)
		}
		var entries []mapEntry
		index := 0 // the item's index in the map's list, runs counted
		for _, item := range list.Content {
			if run := runOf(item, placeholder, runs); run != nil {
				if len(entries) > 0 {
					me.parts = append(me.parts, entryPart{entries: entries})
					entries = nil
				}
				run.mapName, run.first = mapName.Value, index
				me.parts = append(me.parts, entryPart{stream: run})
				index += run.count
				continue
			}
			e, err := entryFromNode(item, fmt.Sprintf("maps.%s[%d]", mapName.Value, index), fail)
			if err != nil {
				return err
			}
			entries = append(entries, e)
			index++
		}
		if len(entries) > 0 {
			me.parts = append(me.parts, entryPart{entries: entries})
		}
		mi.maps = append(mi.maps, me)
	}
	return nil
}

// entryFromNode reads one entry of a map's list, a mapping of its fields.
func entryFromNode(item *yaml.Node, where string, fail func(int, string, ...any) error) (mapEntry, error) {
	e, err := entryFields(item, where, fail)
	if err != nil {
		return e, err
	}
	return e, checkEntry(e, where, fail)
}

// entryFields reads the fields of an entry, each checked alone.
func entryFields(item *yaml.Node, where string, fail func(int, string, ...any) error) (mapEntry, error) {
	if item.Kind != yaml.MappingNode {
		return mapEntry{}, fail(item.Line, "%s: want a mapping with key/key_hex/keys and value/value_hex", where)
	}
	e := mapEntry{line: item.Line}
	for k := 0; k+1 < len(item.Content); k += 2 {
		field, v := item.Content[k], item.Content[k+1]
		switch field.Value {
		case "key":
			e.key = v
		case "value":
			e.value = v
		case "key_hex":
			b, ok := hexBytes(v)
			if !ok {
				return e, fail(v.Line, "%s.key_hex: %q is not hex", where, v.Value)
			}
			e.keyHex, e.hasKeyHex = b, true
		case "value_hex":
			values := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				values = v.Content
			}
			for _, v := range values {
				b, ok := hexBytes(v)
				if !ok {
					return e, fail(v.Line, "%s.value_hex: %q is not hex (give one string, or a list of one per CPU)", where, v.Value)
				}
				e.valueHex = append(e.valueHex, b)
			}
		case "keys":
			if err := parseKeyRange(v, where, &e, fail); err != nil {
				return e, err
			}
		case "repeat":
			n, err := strconv.ParseUint(v.Value, 0, 64)
			if v.Kind != yaml.ScalarNode || err != nil || n == 0 {
				return e, fail(v.Line, "%s.repeat: %q is not a count from 1", where, v.Value)
			}
			e.repeat = n
		default:
			return e, fail(field.Line, "%s: unknown field %q (key, key_hex, keys, value, value_hex, repeat)", where, field.Value)
		}
	}
	return e, nil
}

// checkEntry holds an entry's fields to one key and one value.
func checkEntry(e mapEntry, where string, fail func(int, string, ...any) error) error {
	if problem := entryProblem(e); problem != "" {
		return fail(e.line, "%s: %s", where, problem)
	}
	return nil
}

// entryProblem is what is wrong with an entry's fields taken together, or
// "".
func entryProblem(e mapEntry) string {
	keys := 0
	for _, given := range []bool{e.key != nil, e.hasKeyHex, e.hasRange} {
		if given {
			keys++
		}
	}
	switch {
	case keys > 1 || e.value != nil && e.valueHex != nil:
		return "give a key (key, key_hex, or keys: {from, to}) and a value each once, as YAML or as hex"
	case e.repeat != 0 && keys != 0:
		return "repeat pushes a queue's or stack's value, which has no key; a range of keys is keys: {from: N, to: M}"
	case e.value == nil && e.valueHex == nil:
		return "no value"
	}
	return ""
}

// parseKeyRange reads keys: {from: N, to: M} (inclusive) or {from: N,
// count: C}: C keys from N. Whether the map's keys are integers that hold
// them is checked against the object (resolveKeyRange).
func parseKeyRange(n *yaml.Node, where string, e *mapEntry, fail func(int, string, ...any) error) error {
	const form = "want {from: N, to: M} or {from: N, count: C}"
	if n.Kind != yaml.MappingNode {
		return fail(n.Line, "%s.keys: %s", where, form)
	}
	var from, to, count *uint64
	for i := 0; i+1 < len(n.Content); i += 2 {
		field, v := n.Content[i], n.Content[i+1]
		var bound **uint64
		switch field.Value {
		case "from":
			bound = &from
		case "to":
			bound = &to
		case "count":
			bound = &count
		default:
			return fail(field.Line, "%s.keys: unknown field %q: %s", where, field.Value, form)
		}
		if v.Kind != yaml.ScalarNode {
			return fail(v.Line, "%s.keys.%s: want a number from 0 to %d", where, field.Value, uint64(math.MaxUint64))
		}
		x, err := strconv.ParseUint(v.Value, 0, 64)
		if err != nil {
			return fail(v.Line, "%s.keys.%s: %q is not a number from 0 to %d", where, field.Value, v.Value, uint64(math.MaxUint64))
		}
		if *bound != nil {
			return fail(field.Line, "%s.keys: %s given twice", where, field.Value)
		}
		*bound = &x
	}
	switch {
	case from == nil || (to == nil) == (count == nil):
		return fail(n.Line, "%s.keys: %s", where, form)
	case count != nil && *count == 0:
		return fail(n.Line, "%s.keys: count 0: a range holds at least one key", where)
	case count != nil && *count-1 > math.MaxUint64-*from:
		return fail(n.Line, "%s.keys: %d keys from %d pass the largest key, %d", where, *count, *from, uint64(math.MaxUint64))
	case count != nil:
		e.from, e.to = *from, *from+*count-1
	case *to < *from:
		return fail(n.Line, "%s.keys: to %d is below from %d", where, *to, *from)
	default:
		e.from, e.to = *from, *to
	}
	e.hasRange = true
	return nil
}

func hexBytes(n *yaml.Node) ([]byte, bool) {
	if n.Kind != yaml.ScalarNode {
		return nil, false
	}
	s := strings.TrimPrefix(strings.ReplaceAll(n.Value, " ", ""), "0x")
	b, err := hex.DecodeString(s)
	return b, err == nil
}

// Update is one resolved entry, or a range of keys holding one value, or
// a value a queue or stack takes several times, or a block of plain
// entries of one map, resolved together.
type Update struct {
	mapName string
	mapType ebpf.MapType
	// file and line are where the entry is (a block's first); src says
	// line is the entry's number in another file.
	file string
	line int
	src  *entrySource
	key  []byte // nil for queues, stacks and bloom filters; a range's first
	// value is the entry's value (a block's first).
	value []byte
	// perCPU is a per-CPU map's value, one per possible CPU.
	perCPU [][]byte
	// program is the program a program array's entry holds; inner the
	// map a map of maps' entry holds.
	program, inner string
	// count is how many keys from first up hold the value (a range), or
	// how many times a queue or stack takes it (repeat); 0 is one. The
	// value is encoded once however many entries it fills.
	count uint64
	first uint64
	// bigEndianKey: a range's keys are in network byte order (a __be32
	// key), else the host's.
	bigEndianKey bool
	// block holds the keys and values of a run of plain entries of the
	// map, back to back: a million entries take their bytes and a line
	// number each, not an Update each.
	block *entryBlock
}

// entryBlock is consecutive plain entries of one map (blockOf).
type entryBlock struct {
	keys, values []byte
	lines        []int32
}

// entries is how many entries the update puts.
func (u Update) entries() uint64 {
	if u.block != nil {
		return uint64(len(u.block.lines))
	}
	return max(u.count, 1)
}

// putKey writes the update's i-th key into dst, of the key's size.
func (u Update) putKey(dst []byte, i uint64) {
	if u.block != nil {
		copy(dst, u.block.keys[int(i)*len(dst):])
		return
	}
	if u.count <= 1 || u.key == nil {
		copy(dst, u.key)
		return
	}
	var order binary.ByteOrder = binary.NativeEndian
	if u.bigEndianKey {
		order = binary.BigEndian
	}
	putKeyNumber(dst, order, u.first+i)
}

// valueAt is the update's i-th value.
func (u Update) valueAt(i uint64) []byte {
	if u.block == nil {
		return u.value
	}
	n := uint64(len(u.value))
	return u.block.values[i*n : (i+1)*n]
}

// whereAt is the place of the update's i-th entry.
func (u Update) whereAt(i uint64) string {
	line := u.line
	if u.block != nil {
		line = int(u.block.lines[i])
	}
	if u.src != nil {
		return fmt.Sprintf("%s: entry %d", u.src.file, line)
	}
	return fmt.Sprintf("%s:%d", u.file, line)
}

// blockOf adds u, resolved from one entry, to the block last, where it
// continues one, and says whether it did: a plain entry (a key and one
// value) of the same map and source.
func blockOf(last *Update, u Update) bool {
	plain := func(u Update) bool {
		return u.key != nil && u.count <= 1 && u.perCPU == nil && u.program == "" && u.inner == "" && u.line <= math.MaxInt32
	}
	if !plain(u) || last.mapName != u.mapName || last.src != u.src || last.file != u.file ||
		!plain(*last) && last.block == nil || len(last.key) != len(u.key) || len(last.value) != len(u.value) {
		return false
	}
	if last.block == nil {
		last.block = &entryBlock{keys: slices.Clone(last.key), values: slices.Clone(last.value), lines: []int32{int32(last.line)}}
	}
	b := last.block
	b.keys, b.values, b.lines = append(b.keys, u.key...), append(b.values, u.value...), append(b.lines, int32(u.line))
	return true
}

// putKeyNumber writes v into dst, an integer key of 1, 2, 4 or 8 bytes.
func putKeyNumber(dst []byte, order binary.ByteOrder, v uint64) {
	switch len(dst) {
	case 1:
		dst[0] = byte(v)
	case 2:
		order.PutUint16(dst, uint16(v))
	case 4:
		order.PutUint32(dst, uint32(v))
	case 8:
		order.PutUint64(dst, v)
	}
}

// Map is the name of the map the update fills.
func (u Update) Map() string { return u.mapName }

// MapType is the type of the map the update fills.
func (u Update) MapType() ebpf.MapType { return u.mapType }

// Where is the entry's place in the map-init file, FILE:LINE (a block's
// first entry's), or FILE: entry N in a file of entries.
func (u Update) Where() string { return u.whereAt(0) }

// Key is the entry's key as the map takes it, a range's or a block's
// first; nil for queues, stacks and bloom filters.
func (u Update) Key() []byte { return u.key }

// Value is the entry's value as the map takes it (a block's first); nil
// for a per-CPU map's entry, a program array's and a map of maps'.
func (u Update) Value() []byte { return u.value }

// perCPUValues gives a per-CPU map's entry one value per possible CPU: a
// single value for each, or a list of them.
func (mi *MapInit) perCPUValues(name string, ms *ebpf.MapSpec, e mapEntry) ([][]byte, error) {
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		return nil, fmt.Errorf("map %s is per-CPU, and the possible CPUs are unknown: %w", name, err)
	}
	values, list := e.valueHex, len(e.valueHex) > 1
	if e.valueHex == nil {
		nodes := []*yaml.Node{e.value}
		if list = perCPUList(ms.Value, e.value); list {
			nodes = e.value.Content
		}
		for i, n := range nodes {
			b, err := btfvalue.EncodeSized(ms.Value, int(ms.ValueSize), n, "value_hex")
			if err != nil {
				return nil, mi.failEntry(e, "map %s value (CPU %d): %v", name, i, err)
			}
			values = append(values, b)
		}
	}
	for i, v := range values {
		if uint32(len(v)) != ms.ValueSize {
			return nil, mi.failEntry(e, "map %s: value (CPU %d) of %d bytes, the map's are %d", name, i, len(v), ms.ValueSize)
		}
	}
	if len(values) > cpus {
		return nil, mi.failEntry(e, "map %s is per-CPU: %d values for %d possible CPUs", name, len(values), cpus)
	}
	fill := make([]byte, ms.ValueSize)
	if !list {
		fill = values[0]
	}
	for len(values) < cpus {
		values = append(values, fill)
	}
	return values, nil
}

// perCPUList says whether a per-CPU map's value is a list of one value per
// CPU: a sequence, unless the value type is an array, whose one value is
// a sequence already; then a sequence of sequences.
func perCPUList(t btf.Type, n *yaml.Node) bool {
	if n.Kind != yaml.SequenceNode {
		return false
	}
	if _, isArray := btf.UnderlyingType(t).(*btf.Array); t != nil && isArray {
		return len(n.Content) > 0 && n.Content[0].Kind == yaml.SequenceNode
	}
	return true
}

func isPerCPU(t ebpf.MapType) bool {
	switch t {
	case ebpf.PerCPUHash, ebpf.PerCPUArray, ebpf.LRUCPUHash, ebpf.PerCPUCGroupStorage:
		return true
	}
	return false
}

func isMapOfMaps(t ebpf.MapType) bool { return t == ebpf.ArrayOfMaps || t == ebpf.HashOfMaps }

// isArray says whether the map's keys are indexes below max_entries.
func isArray(t ebpf.MapType) bool {
	switch t {
	case ebpf.Array, ebpf.PerCPUArray, ebpf.ProgramArray, ebpf.ArrayOfMaps, ebpf.DevMap, ebpf.CPUMap, ebpf.XSKMap, ebpf.CGroupArray:
		return true
	}
	return false
}

// Apply puts the resolved entries into the loaded maps. A refusal is the
// kernel's, not the file's: the run fails, naming the map and the entry.
// A run of plain entries and ranges of one map goes in batches
// (BPF_MAP_UPDATE_BATCH, Linux 5.6): katran's ring of 65537 positions took
// 120 ms a load one system call an entry, 19 ms in one. A run the kernel
// refuses or cannot take in batches is put again entry by entry, in the
// file's order, so that a refusal names its entry.
func (l *Loaded) Apply(updates []Update) error {
	return l.ApplyContext(context.Background(), updates)
}

// ApplyContext is Apply that stops once ctx is done, with ctx's error:
// between batches, and every checkEvery entries put one by one. A fill of
// millions of entries takes seconds a load, and Ctrl-C must not wait for
// it (issue 59).
func (l *Loaded) ApplyContext(ctx context.Context, updates []Update) error {
	// A map the loads share is filled once, by the first to apply
	// (share.go); a fill that fails ends the run.
	updates, filled := l.shared.unfilled(updates)
	defer filled()
	maps := l.Maps()
	for len(updates) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := batchable(updates)
		if n > 0 && entriesOf(updates[:n]) >= minBatch {
			err := putBatch(ctx, maps[updates[0].mapName], updates[:n])
			if err == nil {
				updates = updates[n:]
				continue
			}
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
		}
		for _, u := range updates[:max(n, 1)] {
			if err := l.put(ctx, maps, u); err != nil {
				return err
			}
		}
		updates = updates[max(n, 1):]
	}
	return nil
}

// checkEvery is how many entries put one by one go between looks at the
// context: some milliseconds of system calls.
const checkEvery = 4096

// minBatch is the fewest entries worth a batch: below it the entries go
// one by one, as they always did.
const minBatch = 64

// batchBytes bounds the keys and values of one batch: a fill of millions
// of entries from a few ranges goes in several batches of this much,
// never in a buffer of them all. A variable, so that tests can make
// batches small.
var batchBytes = 8 << 20

// batchable is how many updates from the first are plain entries or
// ranges, keys and a value (one per CPU for a per-CPU map), of the first's
// map; 0 when the first is none.
func batchable(updates []Update) int {
	plain := func(u Update) bool {
		return u.key != nil && u.program == "" && u.inner == "" && u.mapName == updates[0].mapName
	}
	n := 0
	for n < len(updates) && plain(updates[n]) {
		n++
	}
	return n
}

// entriesOf is how many entries the updates put.
func entriesOf(updates []Update) uint64 {
	var n uint64
	for _, u := range updates {
		n += u.entries()
	}
	return n
}

// putBatch puts plain entries and ranges of m in batches, in order, so
// that a later entry of a key wins as it would one by one. cilium/ebpf
// counts a batch's entries by its slices' lengths, so keys and values go
// as slices of byte arrays of the map's sizes; a per-CPU map's values as
// a slice of one value per CPU for each key, which the value shares.
func putBatch(ctx context.Context, m *ebpf.Map, updates []Update) error {
	keySize, valueSize := int(m.KeySize()), int(m.ValueSize())
	cpus := max(len(updates[0].perCPU), 1)
	rows := int(min(entriesOf(updates), uint64(max(batchBytes/(keySize+valueSize*cpus), 1))))
	byteRows := func(size, n int) (reflect.Value, []byte) {
		s := reflect.MakeSlice(reflect.SliceOf(reflect.ArrayOf(size, reflect.TypeFor[byte]())), n, n)
		return s, unsafe.Slice((*byte)(s.UnsafePointer()), size*n)
	}
	keys, keyBytes := byteRows(keySize, rows)
	var values reflect.Value
	var valueBytes []byte
	var perCPU [][]byte
	if updates[0].perCPU != nil {
		perCPU = make([][]byte, rows*cpus)
		values = reflect.ValueOf(perCPU)
	} else {
		values, valueBytes = byteRows(valueSize, rows)
	}
	n := 0
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		_, err := m.BatchUpdate(keys.Slice(0, n).Interface(), values.Slice(0, n*cpus).Interface(), nil)
		n = 0
		return err
	}
	for _, u := range updates {
		for i := range u.entries() {
			u.putKey(keyBytes[n*keySize:(n+1)*keySize], i)
			if perCPU != nil {
				if len(u.perCPU) != cpus {
					return errors.New("per-CPU values of different lengths")
				}
				copy(perCPU[n*cpus:], u.perCPU)
			} else {
				copy(valueBytes[n*valueSize:(n+1)*valueSize], u.valueAt(i))
			}
			if n++; n == rows {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if n == 0 {
		return nil
	}
	return flush()
}

// put puts an entry in its map, or a range's or a repeat's one by one.
func (l *Loaded) put(ctx context.Context, maps map[string]*ebpf.Map, u Update) error {
	m, spec := maps[u.mapName], l.mapSpec(u.mapName)
	var value any = u.value
	switch {
	case u.perCPU != nil:
		value = u.perCPU
	case u.program != "":
		value = l.program(u.program)
	case u.inner != "":
		value = maps[u.inner]
	}
	var key []byte
	if u.key != nil {
		key = make([]byte, len(u.key))
	}
	for i := range u.entries() {
		if i%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var err error
		if u.block != nil {
			value = u.valueAt(i)
		}
		if key == nil {
			err = m.Update(nil, value, ebpf.UpdateAny)
		} else {
			u.putKey(key, i)
			err = m.Update(key, value, ebpf.UpdateAny)
		}
		if err == nil {
			continue
		}
		entry := "value " + btfvalue.Format(spec.Value, u.valueAt(i))
		if key != nil {
			entry = "key " + formatKey(m.Type(), spec.Key, key)
		}
		if errors.Is(err, unix.E2BIG) && !isArray(m.Type()) {
			// cilium/ebpf says "key too big for map", which it is not.
			return fmt.Errorf("%s: map %s, %s: the map is full (max_entries %d; E2BIG)", u.whereAt(i), u.mapName, entry, m.MaxEntries())
		}
		return fmt.Errorf("%s: map %s, %s: the kernel refused the entry: %w", u.whereAt(i), u.mapName, entry, err)
	}
	return nil
}
