package testrun

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"gopkg.in/yaml.v3"
)

// ErrMapInit reports a --map-init file that cannot be used.
var ErrMapInit = errors.New("bad map-init file")

// MapInit holds entries to put into maps after loading, before any run.
//
// The file is YAML (or JSON), one list of entries per map name. A key or
// value is written in hex (key_hex, value_hex), or, when the object has
// BTF for the map, as YAML: numbers and enum names for integers, mappings
// for structs, sequences for arrays. Queues and stacks take values only:
//
//	maps:
//	  config:
//	    - {key: 0, value: {port: 53, enabled: 1}}
//	    - {key_hex: "01000000", value_hex: "35000100"}
//	  verdicts:
//	    - value: FIZZ
type MapInit struct {
	file string
	maps []mapEntries
}

type mapEntries struct {
	name    string
	line    int
	entries []mapEntry
}

type mapEntry struct {
	line                int
	key, value          *yaml.Node
	keyHex, valueHex    []byte
	hasKeyHex, hasValue bool
}

// ReadMapInit reads and checks the syntax of a --map-init file; whether
// the maps and types fit is checked against the object before loading.
func ReadMapInit(path string) (*MapInit, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMapInit, err)
	}
	return ParseMapInit(path, data)
}

// ParseMapInit parses the content of a --map-init file named name.
func ParseMapInit(name string, data []byte) (*MapInit, error) {
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", ErrMapInit, name, line, fmt.Sprintf(format, args...))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrMapInit, name, err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fail(1, "want a mapping with the key \"maps\"")
	}
	root := doc.Content[0]
	if len(root.Content) != 2 || root.Content[0].Value != "maps" || root.Content[1].Kind != yaml.MappingNode {
		return nil, fail(root.Line, "want exactly one key, \"maps\", holding a mapping of map names")
	}
	init := &MapInit{file: name}
	maps := root.Content[1]
	for i := 0; i+1 < len(maps.Content); i += 2 {
		mapName, list := maps.Content[i], maps.Content[i+1]
		if list.Kind != yaml.SequenceNode {
			return nil, fail(list.Line, "maps.%s: want a list of entries", mapName.Value)
		}
		me := mapEntries{name: mapName.Value, line: mapName.Line}
		for j, item := range list.Content {
			where := fmt.Sprintf("maps.%s[%d]", mapName.Value, j)
			if item.Kind != yaml.MappingNode {
				return nil, fail(item.Line, "%s: want a mapping with key/key_hex and value/value_hex", where)
			}
			e := mapEntry{line: item.Line}
			for k := 0; k+1 < len(item.Content); k += 2 {
				field, v := item.Content[k], item.Content[k+1]
				switch field.Value {
				case "key":
					e.key = v
				case "value":
					e.value, e.hasValue = v, true
				case "key_hex", "value_hex":
					b, err := hex.DecodeString(strings.ReplaceAll(v.Value, " ", ""))
					if err != nil || v.Kind != yaml.ScalarNode {
						return nil, fail(v.Line, "%s.%s: %q is not hex", where, field.Value, v.Value)
					}
					if field.Value == "key_hex" {
						e.keyHex, e.hasKeyHex = b, true
					} else {
						e.valueHex, e.hasValue = b, true
					}
				default:
					return nil, fail(field.Line, "%s: unknown field %q (key, key_hex, value, value_hex)", where, field.Value)
				}
			}
			if e.key != nil && e.hasKeyHex || e.value != nil && e.valueHex != nil {
				return nil, fail(item.Line, "%s: give a key and a value each once, as YAML or as hex", where)
			}
			if !e.hasValue {
				return nil, fail(item.Line, "%s: no value", where)
			}
			me.entries = append(me.entries, e)
		}
		init.maps = append(init.maps, me)
	}
	return init, nil
}

// mapUpdate is one resolved entry.
type mapUpdate struct {
	mapName    string
	key, value []byte // key is nil for queues and stacks
}

// resolve turns the entries into bytes, checking them against the maps of
// the object they will be put into.
func (mi *MapInit) resolve(spec *ebpf.CollectionSpec) ([]mapUpdate, error) {
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", ErrMapInit, mi.file, line, fmt.Sprintf(format, args...))
	}
	var updates []mapUpdate
	for _, me := range mi.maps {
		ms := spec.Maps[me.name]
		if ms == nil {
			var names []string
			for name := range spec.Maps {
				names = append(names, name)
			}
			slices.Sort(names)
			return nil, fail(me.line, "the object has no map %q (maps: %s)", me.name, strings.Join(names, ", "))
		}
		keyless := ms.Type == ebpf.Queue || ms.Type == ebpf.Stack
		for _, e := range me.entries {
			u := mapUpdate{mapName: me.name}
			var err error
			switch {
			case keyless && (e.key != nil || e.hasKeyHex):
				return nil, fail(e.line, "map %s is a %s: give values only", me.name, ms.Type)
			case keyless:
			case e.hasKeyHex:
				u.key = e.keyHex
			case e.key == nil:
				return nil, fail(e.line, "map %s: no key", me.name)
			case ms.Key == nil:
				return nil, fail(e.line, "map %s has no BTF: give key_hex", me.name)
			default:
				if u.key, err = encodeValue(ms.Key, e.key); err != nil {
					return nil, fail(e.line, "map %s key: %v", me.name, err)
				}
			}
			switch {
			case e.valueHex != nil:
				u.value = e.valueHex
			case ms.Value == nil:
				return nil, fail(e.line, "map %s has no BTF: give value_hex", me.name)
			default:
				if u.value, err = encodeValue(ms.Value, e.value); err != nil {
					return nil, fail(e.line, "map %s value: %v", me.name, err)
				}
			}
			if !keyless && uint32(len(u.key)) != ms.KeySize {
				return nil, fail(e.line, "map %s: key of %d bytes, the map's are %d", me.name, len(u.key), ms.KeySize)
			}
			if uint32(len(u.value)) != ms.ValueSize {
				return nil, fail(e.line, "map %s: value of %d bytes, the map's are %d", me.name, len(u.value), ms.ValueSize)
			}
			updates = append(updates, u)
		}
	}
	return updates, nil
}

// Effect is a change that one run of a case made to a map.
type Effect struct {
	Map    string `json:"map"`
	Change string `json:"change"` // pushed, set or deleted
	Key    string `json:"key,omitempty"`
	Value  string `json:"value,omitempty"`
}

// String says it in a line that names the map as a map: "verdicts" alone
// read like the verdict of a comparison.
func (e Effect) String() string {
	switch {
	case e.Key == "":
		return fmt.Sprintf("map %s: %s %s", e.Map, e.Change, e.Value)
	case e.Change == "deleted":
		return fmt.Sprintf("map %s: deleted [%s]", e.Map, e.Key)
	}
	return fmt.Sprintf("map %s: [%s] %s %s", e.Map, e.Key, e.Change, e.Value)
}

// Maps larger than this are not compared before and after a case: the
// copy would cost more than it tells.
const maxInspectedEntries = 4096

// mapState is a copy of the maps' contents, by map and hex key.
type mapState map[string]map[string][]byte

// snapshot copies the inspectable maps, and empties queues and stacks, so
// that what a run pushes can be told from what was there.
func (l *loaded) snapshot() (mapState, error) {
	state := mapState{}
	for name, m := range l.coll.Maps {
		switch {
		case m.Type() == ebpf.Queue || m.Type() == ebpf.Stack:
			if _, err := l.drain(m); err != nil {
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
		case inspectable(m):
			entries, err := l.snapshotOne(m)
			if err != nil {
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
			state[name] = entries
		}
	}
	return state, nil
}

func inspectable(m *ebpf.Map) bool {
	switch m.Type() {
	case ebpf.Hash, ebpf.Array, ebpf.LRUHash, ebpf.LPMTrie:
		return m.MaxEntries() <= maxInspectedEntries
	}
	return false
}

func (l *loaded) drain(m *ebpf.Map) ([][]byte, error) {
	var values [][]byte
	for {
		v := make([]byte, m.ValueSize())
		err := m.LookupAndDelete(nil, &v)
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			return values, nil
		}
		if err != nil {
			return values, err
		}
		values = append(values, v)
	}
}

// effects compares the maps with a snapshot taken before the run.
func (l *loaded) effects(before mapState) ([]Effect, error) {
	var out []Effect
	names := make([]string, 0, len(l.coll.Maps))
	for name := range l.coll.Maps {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		m, spec := l.coll.Maps[name], l.spec.Maps[name]
		if m.Type() == ebpf.Queue || m.Type() == ebpf.Stack {
			values, err := l.drain(m)
			if err != nil {
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
			for _, v := range values {
				out = append(out, Effect{Map: name, Change: "pushed", Value: formatValue(spec.Value, v)})
			}
			continue
		}
		old, ok := before[name]
		if !ok {
			continue
		}
		after, err := l.snapshotOne(m)
		if err != nil {
			return nil, fmt.Errorf("map %s: %w", name, err)
		}
		keys := make([]string, 0, len(after)+len(old))
		for k := range after {
			keys = append(keys, k)
		}
		for k := range old {
			if _, ok := after[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			a, inAfter := after[k]
			o, inOld := old[k]
			key := formatKey(m, spec.Key, []byte(k))
			switch {
			case !inAfter:
				out = append(out, Effect{Map: name, Change: "deleted", Key: key})
			case !inOld || !bytes.Equal(a, o):
				out = append(out, Effect{Map: name, Change: "set", Key: key, Value: formatValue(spec.Value, a)})
			}
		}
	}
	return out, nil
}

// formatKey is formatValue, but shows an array's index as a number even
// without BTF, as for the sections of global variables.
func formatKey(m *ebpf.Map, t btf.Type, key []byte) string {
	if _, isVoid := t.(*btf.Void); (t == nil || isVoid) && m.Type() == ebpf.Array {
		if i, ok := uintValue(key, 4); ok {
			return strconv.FormatUint(i, 10)
		}
	}
	return formatValue(t, key)
}

func (l *loaded) snapshotOne(m *ebpf.Map) (map[string][]byte, error) {
	entries := map[string][]byte{}
	key, value := make([]byte, m.KeySize()), make([]byte, m.ValueSize())
	it := m.Iterate()
	for it.Next(&key, &value) {
		entries[string(key)] = bytes.Clone(value)
	}
	return entries, it.Err()
}

// apply puts the resolved entries into the loaded maps.
func (l *loaded) apply(updates []mapUpdate) error {
	for _, u := range updates {
		m := l.coll.Maps[u.mapName]
		var key any = u.key
		if u.key == nil {
			key = nil
		}
		if err := m.Update(key, u.value, ebpf.UpdateAny); err != nil {
			return fmt.Errorf("%w: map %s: %w", ErrMapInit, u.mapName, err)
		}
	}
	return nil
}
