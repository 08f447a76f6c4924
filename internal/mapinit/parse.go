package mapinit

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/internal/yamlsize"
)

// ErrMapInit reports a --map-init file that cannot be used.
var ErrMapInit = badinput.New("bad map-init file")

// File is a map-init file read and checked for its syntax: the entries
// of each map, global variables and map sizes. Whether they fit the
// object is internal/object's to check.
type File struct {
	Name      string
	Maps      []Map
	Variables []Variable
	Sizes     []Size
}

// Variable is a global variable's value, by name.
type Variable struct {
	Name  string
	Value *yaml.Node
	Line  int
}

// Size is a map's size, by name.
type Size struct {
	Name string
	N    uint32
	Line int
}

// fail refuses the file at a line.
func (mi *File) fail(line int, format string, args ...any) error {
	return fmt.Errorf("%w: %s:%d: %s", ErrMapInit, mi.Name, line, fmt.Sprintf(format, args...))
}

// Map is one map's entries, by the map's name as the file writes it.
type Map struct {
	Name  string
	Line  int
	parts []entryPart
}

// entryPart is a stretch of a map's entries, in the file's order: entries
// yaml.v3 parsed, or a stream read entry by entry each time the entries
// are resolved, of which nothing is held but the file's bytes (or, for
// another file, its name): a map of millions of entries (mapinit*.go).
type entryPart struct {
	entries []Entry
	stream  entryStream
}

// entryStream yields a stretch of entries in order, each valid until the
// next; an error of yield's ends it, and is returned.
type entryStream interface {
	each(yield func(Entry) error) error
}

// Each calls yield on every entry of me, in order; an error of
// yield's, or of reading a stream, ends it and is returned. An entry is
// valid until the next.
func (me Map) Each(yield func(Entry) error) error {
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

// Entry is one entry of a map's list, checked alone for its syntax.
type Entry struct {
	Line int
	// Src is the file the entry is in, when not the map-init file's own
	// line (a bpftool dump, a file of entries): its line is then the
	// entry's number there.
	Src        *Source
	Key, Value *yaml.Node
	KeyHex     []byte
	ValueHex   [][]byte // one, or one per CPU
	HasKeyHex  bool
	// HasRange: keys: {from, to} or {from, count}, every key From..To
	// (inclusive) holding the value.
	HasRange bool
	From, To uint64
	// Repeat is how many times a queue's or stack's value is pushed; 0
	// when not given (once).
	Repeat uint64
}

// Source is another file a map's entries are read from.
type Source struct {
	File string
}

// MaxNodes bounds a --map-init file's YAML nodes, counted before
// yaml.v3 builds them (about 800 bytes an entry of a key and a value:
// some 160 MB at most), against documents that would take gigabytes
// (aliases, deep nesting). Entries a line each in flow style ({key: 7,
// value: 1}) or in block style of scalars are read past yaml.v3 and
// count for nothing here (mapinit_lines.go), as are JSON files and
// bpftool's dumps (mapinit_json.go).
const MaxNodes = 1_000_000

// Read reads and checks the syntax of a --map-init file.
func Read(path string) (*File, error) {
	data, err := safefs.ReadFile(path, safefs.MaxInput)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMapInit, err)
	}
	return parseMapInit(path, data, true)
}

// Parse parses the content of a --map-init file named name: JSON
// (its first character "{") is read as a stream, YAML with yaml.v3,
// but for runs of entries of a line each, read as a stream too.
func Parse(name string, data []byte) (*File, error) {
	return parseMapInit(name, data, false)
}

// parseMapInit parses data, which it keeps parts of where owned (the
// text of a million entries, read again as they are resolved), else
// copies.
func parseMapInit(name string, data []byte, owned bool) (*File, error) {
	if isJSON(data) {
		return parseJSONMapInit(name, data, owned)
	}
	return parseYAMLMapInit(name, data, owned)
}

func parseYAMLMapInit(name string, data []byte, owned bool) (*File, error) {
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", ErrMapInit, name, line, fmt.Sprintf(format, args...))
	}
	doc, runs, err := splitLineRuns(name, data, owned)
	if err != nil {
		return nil, err
	}
	if n := yamlsize.Nodes(doc.text); n > MaxNodes {
		return nil, fmt.Errorf("%w: %s: more than %d YAML nodes (collections, entries, aliases): write entries a line each ({key: K, value: V}), "+
			"or as JSON, or write runs of keys that share a value as keys: {from: N, to: M}", ErrMapInit, name, MaxNodes)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(doc.text, &root); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrMapInit, name, err)
	}
	const sections = `"maps", "variables" and "max_entries"`
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode || len(root.Content[0].Content) == 0 {
		return nil, fail(1, "want a mapping with the keys %s", sections)
	}
	init := &File{Name: name}
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
				init.Variables = append(init.Variables, Variable{Name: name.Value, Value: value, Line: name.Line})
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
func (mi *File) parseSizes(section *yaml.Node, fail func(int, string, ...any) error) error {
	for j := 0; j+1 < len(section.Content); j += 2 {
		name, value := section.Content[j], section.Content[j+1]
		n, err := strconv.ParseUint(value.Value, 0, 32)
		if value.Kind != yaml.ScalarNode || err != nil || n == 0 {
			return fail(value.Line, "max_entries.%s: %q is not a size from 1 to 4294967295", name.Value, value.Value)
		}
		mi.Sizes = append(mi.Sizes, Size{Name: name.Value, N: uint32(n), Line: name.Line})
	}
	return nil
}

// parseMaps reads the maps section: a list of entries for each map, where
// an item {placeholder: N} stands for runs[N], read past yaml.v3; or
// another file of them, {bpftool: FILE} or {entries: FILE}.
func (mi *File) parseMaps(maps *yaml.Node, placeholder string, runs []*lineRun, fail func(int, string, ...any) error) error {
	for i := 0; i+1 < len(maps.Content); i += 2 {
		mapName, list := maps.Content[i], maps.Content[i+1]
		me := Map{Name: mapName.Value, Line: mapName.Line}
		if src, ok := fileSourceNode(list); ok {
			stream, err := mi.fileStream(mapName.Value, src, list.Line)
			if err != nil {
				return err
			}
			me.parts = []entryPart{{stream: stream}}
			mi.Maps = append(mi.Maps, me)
			continue
		}
		if list.Kind != yaml.SequenceNode {
			return fail(list.Line, "maps.%s: want a list of entries, or {bpftool: FILE} or {entries: FILE}", mapName.Value)
		}
		var entries []Entry
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
		mi.Maps = append(mi.Maps, me)
	}
	return nil
}

// entryFromNode reads one entry of a map's list, a mapping of its fields.
func entryFromNode(item *yaml.Node, where string, fail func(int, string, ...any) error) (Entry, error) {
	e, err := entryFields(item, where, fail)
	if err != nil {
		return e, err
	}
	return e, checkEntry(e, where, fail)
}

// entryFields reads the fields of an entry, each checked alone.
func entryFields(item *yaml.Node, where string, fail func(int, string, ...any) error) (Entry, error) {
	if item.Kind != yaml.MappingNode {
		return Entry{}, fail(item.Line, "%s: want a mapping with key/key_hex/keys and value/value_hex", where)
	}
	e := Entry{Line: item.Line}
	for k := 0; k+1 < len(item.Content); k += 2 {
		field, v := item.Content[k], item.Content[k+1]
		switch field.Value {
		case "key":
			e.Key = v
		case "value":
			e.Value = v
		case "key_hex":
			b, ok := hexBytes(v)
			if !ok {
				return e, fail(v.Line, "%s.key_hex: %q is not hex", where, v.Value)
			}
			e.KeyHex, e.HasKeyHex = b, true
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
				e.ValueHex = append(e.ValueHex, b)
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
			e.Repeat = n
		default:
			return e, fail(field.Line, "%s: unknown field %q (key, key_hex, keys, value, value_hex, repeat)", where, field.Value)
		}
	}
	return e, nil
}

// checkEntry holds an entry's fields to one key and one value.
func checkEntry(e Entry, where string, fail func(int, string, ...any) error) error {
	if problem := entryProblem(e); problem != "" {
		return fail(e.Line, "%s: %s", where, problem)
	}
	return nil
}

// entryProblem is what is wrong with an entry's fields taken together, or
// "".
func entryProblem(e Entry) string {
	keys := 0
	for _, given := range []bool{e.Key != nil, e.HasKeyHex, e.HasRange} {
		if given {
			keys++
		}
	}
	switch {
	case keys > 1 || e.Value != nil && e.ValueHex != nil:
		return "give a key (key, key_hex, or keys: {from, to}) and a value each once, as YAML or as hex"
	case e.Repeat != 0 && keys != 0:
		return "repeat pushes a queue's or stack's value, which has no key; a range of keys is keys: {from: N, to: M}"
	case e.Value == nil && e.ValueHex == nil:
		return "no value"
	}
	return ""
}

// parseKeyRange reads keys: {from: N, to: M} (inclusive) or {from: N,
// count: C}: C keys from N. Whether the map's keys are integers that hold
// them is checked against the object (KeyRange).
func parseKeyRange(n *yaml.Node, where string, e *Entry, fail func(int, string, ...any) error) error {
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
		e.From, e.To = *from, *from+*count-1
	case *to < *from:
		return fail(n.Line, "%s.keys: to %d is below from %d", where, *to, *from)
	default:
		e.From, e.To = *from, *to
	}
	e.HasRange = true
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
