package testrun

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// Effect is a change that one run of a case made to a map.
type Effect struct {
	Map    string `json:"map"`
	Change string `json:"change"` // pushed, set or deleted
	Key    string `json:"key,omitempty"`
	Value  string `json:"value,omitempty"`
	// CPU is the CPU whose value of a per-CPU map changed.
	CPU *int `json:"cpu,omitempty"`
}

func (e Effect) String() string {
	cpu := ""
	if e.CPU != nil {
		cpu = fmt.Sprintf(" (CPU %d)", *e.CPU)
	}
	switch {
	case e.Key == "":
		return fmt.Sprintf("%s: %s %s", e.Map, e.Change, e.Value)
	case e.Change == "deleted":
		return fmt.Sprintf("%s: deleted [%s]", e.Map, e.Key)
	}
	return fmt.Sprintf("%s: [%s] %s %s%s", e.Map, e.Key, e.Change, e.Value, cpu)
}

// Maps with more entries than this are not compared before and after a
// case: the copy would cost more than it tells. xdp-filter's port map,
// one entry a port, is just within.
const maxInspectedEntries = 1 << 16

// mapState is a copy of the maps' contents, by map and key. A per-CPU
// map's value is the values of every possible CPU end to end.
type mapState map[string]map[string][]byte

// snapshot copies the inspectable maps, and empties queues and stacks, so
// that what a run pushes can be told from what was there.
func (l *loaded) snapshot() (mapState, error) {
	state := mapState{}
	for _, name := range sortedKeys(l.coll.Maps) {
		m := l.coll.Maps[name]
		switch {
		case m.Type() == ebpf.Queue || m.Type() == ebpf.Stack:
			if _, err := l.drain(m); err != nil {
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
		case unwatched(m.Type(), m.MaxEntries()) == "":
			entries, err := snapshotOne(m)
			if err != nil {
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
			state[name] = entries
		}
	}
	return state, nil
}

// unwatched says why changes to a map of this type and size are not
// shown, or "" if they are.
func unwatched(t ebpf.MapType, entries uint32) string {
	switch t {
	case ebpf.Hash, ebpf.Array, ebpf.LRUHash, ebpf.LPMTrie, ebpf.PerCPUHash, ebpf.PerCPUArray, ebpf.LRUCPUHash:
		if entries > maxInspectedEntries {
			return fmt.Sprintf("%d entries, over %d", entries, maxInspectedEntries)
		}
		return ""
	case ebpf.Queue, ebpf.Stack:
		return ""
	}
	return t.String()
}

// unwatchedNote names the maps of spec whose changes are not shown.
func unwatchedNote(spec *ebpf.CollectionSpec) string {
	var maps []string
	for _, name := range sortedKeys(spec.Maps) {
		ms := spec.Maps[name]
		if why := unwatched(ms.Type, ms.MaxEntries); why != "" && !strings.HasPrefix(name, ".rodata") {
			maps = append(maps, fmt.Sprintf("%s (%s)", name, why))
		}
	}
	if len(maps) == 0 {
		return ""
	}
	return "the checking run's changes to these maps are not shown: " + strings.Join(maps, ", ")
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
	for _, name := range sortedKeys(l.coll.Maps) {
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
		after, err := snapshotOne(m)
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
			key := formatKey(m.Type(), spec.Key, []byte(k))
			switch {
			case !inAfter:
				out = append(out, Effect{Map: name, Change: "deleted", Key: key})
			case isPerCPU(m.Type()):
				out = append(out, perCPUEffects(name, key, spec.Value, int(m.ValueSize()), o, a)...)
			case !inOld || !bytes.Equal(a, o):
				out = append(out, Effect{Map: name, Change: "set", Key: key, Value: formatValue(spec.Value, a)})
			}
		}
	}
	return out, nil
}

// perCPUEffects are the changes to one entry of a per-CPU map, one for
// each CPU whose value changed; old is nil for a new entry.
func perCPUEffects(name, key string, t btf.Type, size int, old, new []byte) []Effect {
	var out []Effect
	for cpu := 0; (cpu+1)*size <= len(new); cpu++ {
		a := new[cpu*size : (cpu+1)*size]
		if old != nil && bytes.Equal(a, old[cpu*size:(cpu+1)*size]) {
			continue
		}
		if old == nil && !slices.ContainsFunc(a, func(b byte) bool { return b != 0 }) {
			continue // a new entry's other CPUs start at zero
		}
		out = append(out, Effect{Map: name, Change: "set", Key: key, Value: formatValue(t, a), CPU: &cpu})
	}
	return out
}

// formatKey is formatValue, but shows an array's index as a number even
// without BTF, as for the sections of global variables.
func formatKey(mt ebpf.MapType, t btf.Type, key []byte) string {
	if isVoid(t) && isArray(mt) {
		if i, ok := uintValue(key, 4); ok {
			return strconv.FormatUint(i, 10)
		}
	}
	return formatValue(t, key)
}

// batchSize is the number of entries a batched lookup asks for at once.
const batchSize = 4096

// snapshotOne copies a map's entries, by key; a per-CPU map's value is
// its CPUs' values end to end. Maps are read in batches where the kernel
// can, one entry at a time where not.
func snapshotOne(m *ebpf.Map) (map[string][]byte, error) {
	entries, err := snapshotBatched(m)
	if err == nil {
		return entries, nil
	}
	if !errors.Is(err, ebpf.ErrNotSupported) && !errors.Is(err, errNoBatch) {
		return nil, err
	}
	entries = map[string][]byte{}
	key := make([]byte, m.KeySize())
	if isPerCPU(m.Type()) {
		var values [][]byte
		it := m.Iterate()
		for it.Next(&key, &values) {
			entries[string(key)] = bytes.Join(values, nil)
		}
		return entries, it.Err()
	}
	value := make([]byte, m.ValueSize())
	it := m.Iterate()
	for it.Next(&key, &value) {
		entries[string(key)] = bytes.Clone(value)
	}
	return entries, it.Err()
}

// errNoBatch: the map type cannot be read in batches (LPM tries).
var errNoBatch = errors.New("no batched lookup")

func snapshotBatched(m *ebpf.Map) (map[string][]byte, error) {
	if m.Type() == ebpf.LPMTrie {
		return nil, errNoBatch
	}
	cpus := 1
	if isPerCPU(m.Type()) {
		n, err := ebpf.PossibleCPU()
		if err != nil {
			return nil, err
		}
		cpus = n
	}
	keySize, valueSize := int(m.KeySize()), int(m.ValueSize())
	// Per-CPU values come 8-byte aligned, one per CPU.
	stride := valueSize
	if isPerCPU(m.Type()) {
		stride = (valueSize + 7) &^ 7
	}
	// Slices of fixed-size byte arrays, so that cilium/ebpf counts
	// entries and reads into them without copying.
	keys := reflect.MakeSlice(reflect.SliceOf(reflect.ArrayOf(keySize, reflect.TypeFor[byte]())), batchSize, batchSize)
	values := reflect.MakeSlice(reflect.SliceOf(reflect.ArrayOf(stride, reflect.TypeFor[byte]())), batchSize*cpus, batchSize*cpus)
	keyBytes := unsafeBytes(keys, batchSize*keySize)
	valueBytes := unsafeBytes(values, batchSize*cpus*stride)

	entries := map[string][]byte{}
	var cursor ebpf.MapBatchCursor
	for {
		n, err := m.BatchLookup(&cursor, keys.Interface(), values.Interface(), nil)
		for i := range n {
			key := string(keyBytes[i*keySize : (i+1)*keySize])
			value := make([]byte, 0, cpus*valueSize)
			for cpu := range cpus {
				at := (i*cpus + cpu) * stride
				value = append(value, valueBytes[at:at+valueSize]...)
			}
			entries[key] = value
		}
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			return entries, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// unsafeBytes is the memory of a slice of byte arrays, n bytes.
func unsafeBytes(slice reflect.Value, n int) []byte {
	return unsafe.Slice((*byte)(slice.UnsafePointer()), n)
}
