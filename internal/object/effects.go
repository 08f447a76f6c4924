package object

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
	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
	"golang.org/x/sys/unix"
)

// Effect is a change that one run of a case made to a map.
type Effect struct {
	Map    string
	Change string // pushed, set or deleted
	Key    string
	Value  string
	// CPU is the CPU whose value of a per-CPU map changed.
	CPU *int
}

// Maps with more entries than this are not compared before and after a
// case: the copy would cost more than it tells. xdp-filter's port map,
// one entry a port, is just within.
const maxInspectedEntries = 1 << 16

// MapState is a copy of the maps' contents, by map.
type MapState map[string]*mapCopy

// mapCopy is a map's entries in the order the kernel gave them, keys and
// values end to end; a per-CPU map's value is its CPUs' values end to end.
// Flat, because a map of 65536 entries would take 100 ms to index.
type mapCopy struct {
	keySize, valueSize int
	keys, values       []byte
}

func (c *mapCopy) len() int           { return len(c.keys) / c.keySize }
func (c *mapCopy) key(i int) []byte   { return c.keys[i*c.keySize : (i+1)*c.keySize] }
func (c *mapCopy) value(i int) []byte { return c.values[i*c.valueSize : (i+1)*c.valueSize] }
func (c *mapCopy) add(key, value []byte) {
	c.keys, c.values = append(c.keys, key...), append(c.values, value...)
}
func (c *mapCopy) index() map[string]int {
	m := make(map[string]int, c.len())
	for i := range c.len() {
		m[string(c.key(i))] = i
	}
	return m
}

// Snapshot copies the inspectable maps, and empties queues and stacks, so
// that what a run pushes can be told from what was there. A map the
// kernel will not let user space read is left out, and noted (unread).
func (l *Loaded) Snapshot() (MapState, error) {
	state := MapState{}
	maps := l.Maps()
	for _, name := range sortedKeys(maps) {
		m := maps[name]
		if _, gone := l.unread[name]; gone {
			continue
		}
		switch kind, _ := mapKindOf(m.Type(), m.MaxEntries()); kind {
		case mapDrained:
			if _, err := l.drain(m); err != nil && !l.unreadable(name, err) {
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
		case mapCopied:
			entries, err := snapshotOne(m)
			if err != nil {
				if l.unreadable(name, err) {
					continue
				}
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
			state[name] = entries
		}
	}
	return state, nil
}

// mapKind is what the checking run does with a map's contents.
type mapKind int

const (
	// mapCopied: copied before and after each case, and compared.
	mapCopied mapKind = iota
	// mapDrained: queues and stacks, emptied before and popped after.
	mapDrained
	// mapFixed: readable, but programs cannot change it (the verifier
	// allows them only lookups, redirects and tail calls): not read.
	mapFixed
	// mapUnwatched: not compared, and a note says why.
	mapUnwatched
)

// mapKindOf says what the checking run does with a map of this type and
// size, and, for maps it does not compare, why.
func mapKindOf(t ebpf.MapType, entries uint32) (mapKind, string) {
	switch t {
	case ebpf.Hash, ebpf.Array, ebpf.LRUHash, ebpf.LPMTrie, ebpf.PerCPUHash, ebpf.PerCPUArray, ebpf.LRUCPUHash:
		if entries > maxInspectedEntries {
			return mapUnwatched, fmt.Sprintf("%d entries, over %d", entries, maxInspectedEntries)
		}
		return mapCopied, ""
	case ebpf.Queue, ebpf.Stack:
		return mapDrained, ""
	case ebpf.ProgramArray, ebpf.ArrayOfMaps, ebpf.HashOfMaps, ebpf.DevMap, ebpf.DevMapHash, ebpf.CPUMap:
		// User space reads them (program and map IDs, interfaces, queue
		// sizes), but they hold configuration that no program can change.
		return mapFixed, ""
	case ebpf.XSKMap, ebpf.SockMap, ebpf.SockHash, ebpf.ReusePortSockArray:
		// Sockets: a lookup from user space fails (EOPNOTSUPP for an
		// XSKMAP) or gives at most a socket's cookie.
		return mapUnwatched, t.String() + ", whose sockets user space cannot read"
	}
	return mapUnwatched, t.String()
}

// unwatched says why changes to a map of this type and size are not
// shown, or "" if they are, or if programs cannot change it.
func unwatched(t ebpf.MapType, entries uint32) string {
	_, why := mapKindOf(t, entries)
	return why
}

// unreadable records, and says so, when err is the kernel refusing to let
// user space iterate or read a map (EOPNOTSUPP, ENOTSUPP, EINVAL): a map
// type this version does not know to skip. Its changes are then not
// shown, with a note, and the run goes on.
func (l *Loaded) unreadable(name string, err error) bool {
	if !errors.Is(err, ebpf.ErrNotSupported) && !errors.Is(err, unix.EOPNOTSUPP) &&
		!errors.Is(err, errnoENOTSUPP) && !errors.Is(err, unix.EINVAL) {
		return false
	}
	if l.unread == nil {
		l.unread = map[string]string{}
	}
	l.unread[name] = "user space could not read it: " + err.Error()
	return true
}

// errnoENOTSUPP is the kernel's internal ENOTSUPP, which leaks out of the
// bpf syscall for operations a map type lacks.
const errnoENOTSUPP = unix.Errno(524)

// UnwatchedNote names the maps of l, and of the objects loaded beside it,
// whose changes are not shown: by type and size, and those user space
// could not read.
func (l *Loaded) UnwatchedNote() string {
	whys := map[string]string{}
	add := func(spec *ebpf.CollectionSpec, prefix string) {
		for name, ms := range spec.Maps {
			if why := unwatched(ms.Type, ms.MaxEntries); why != "" && !strings.HasPrefix(name, ".rodata") {
				whys[prefix+name] = why
			}
		}
	}
	add(l.Spec, "")
	for _, o := range l.others {
		add(o.spec, o.Prefix)
	}
	for name, why := range l.unread {
		whys[name] = why
	}
	if len(whys) == 0 {
		return ""
	}
	var maps []string
	for _, name := range sortedKeys(whys) {
		maps = append(maps, fmt.Sprintf("%s (%s)", name, whys[name]))
	}
	return "the checking run's changes to these maps are not shown: " + strings.Join(maps, ", ")
}

func (l *Loaded) drain(m *ebpf.Map) ([][]byte, error) {
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

// Effects compares the maps with a snapshot taken before the run.
func (l *Loaded) Effects(before MapState) ([]Effect, error) {
	var out []Effect
	maps := l.Maps()
	for _, name := range sortedKeys(maps) {
		m, spec := maps[name], l.mapSpec(name)
		if _, gone := l.unread[name]; gone {
			continue
		}
		if m.Type() == ebpf.Queue || m.Type() == ebpf.Stack {
			values, err := l.drain(m)
			if err != nil && !l.unreadable(name, err) {
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
			for _, v := range values {
				out = append(out, Effect{Map: name, Change: "pushed", Value: btfvalue.Format(spec.Value, v)})
			}
			continue
		}
		old, ok := before[name]
		if !ok {
			continue
		}
		after, err := snapshotOne(m)
		if err != nil {
			if l.unreadable(name, err) {
				continue
			}
			return nil, fmt.Errorf("map %s: %w", name, err)
		}
		out = append(out, changes(name, m, spec, old, after)...)
	}
	return out, nil
}

// changes lists what differs between two copies of a map: entry by entry
// when the keys came in the same order (arrays, and hash maps no entry was
// added to or deleted from), by key otherwise.
func changes(name string, m *ebpf.Map, spec *ebpf.MapSpec, old, after *mapCopy) []Effect {
	mt := m.Type()
	var out []Effect
	changed := func(key, o, a []byte) {
		k := formatKey(mt, spec.Key, key)
		switch {
		case a == nil:
			out = append(out, Effect{Map: name, Change: "deleted", Key: k})
		case isPerCPU(mt):
			out = append(out, perCPUEffects(name, k, spec.Value, int(m.ValueSize()), o, a)...)
		case o == nil || !bytes.Equal(a, o):
			out = append(out, Effect{Map: name, Change: "set", Key: k, Value: btfvalue.Format(spec.Value, a)})
		}
	}
	if bytes.Equal(old.keys, after.keys) {
		for i := range after.len() {
			if o, a := old.value(i), after.value(i); !bytes.Equal(o, a) {
				changed(after.key(i), o, a)
			}
		}
		return out
	}
	oldIndex, afterIndex := old.index(), after.index()
	keys := make([]string, 0, len(afterIndex)+len(oldIndex))
	for k := range afterIndex {
		keys = append(keys, k)
	}
	for k := range oldIndex {
		if _, ok := afterIndex[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		var o, a []byte
		if i, ok := oldIndex[k]; ok {
			o = old.value(i)
		}
		if i, ok := afterIndex[k]; ok {
			a = after.value(i)
		}
		if !bytes.Equal(o, a) || (o == nil) != (a == nil) {
			changed([]byte(k), o, a)
		}
	}
	return out
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
		out = append(out, Effect{Map: name, Change: "set", Key: key, Value: btfvalue.Format(t, a), CPU: &cpu})
	}
	return out
}

// formatKey is formatValue, but shows an array's index as a number even
// without BTF, as for the sections of global variables.
func formatKey(mt ebpf.MapType, t btf.Type, key []byte) string {
	if btfvalue.IsVoid(t) && isArray(mt) {
		if i, ok := btfvalue.Uint(key, 4); ok {
			return strconv.FormatUint(i, 10)
		}
	}
	return btfvalue.Format(t, key)
}

// batchSize is the number of entries a batched lookup asks for at once.
const batchSize = 4096

// snapshotOne copies a map's entries. Maps are read in batches where the
// kernel can, one entry at a time where not.
func snapshotOne(m *ebpf.Map) (*mapCopy, error) {
	cpus := 1
	if isPerCPU(m.Type()) {
		n, err := ebpf.PossibleCPU()
		if err != nil {
			return nil, err
		}
		cpus = n
	}
	c := &mapCopy{keySize: int(m.KeySize()), valueSize: cpus * int(m.ValueSize())}
	err := c.readBatched(m, cpus)
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, ebpf.ErrNotSupported) && !errors.Is(err, errNoBatch) {
		return nil, err
	}
	c.keys, c.values = nil, nil
	key := make([]byte, m.KeySize())
	if cpus > 1 || isPerCPU(m.Type()) {
		var values [][]byte
		it := m.Iterate()
		for it.Next(&key, &values) {
			c.add(key, bytes.Join(values, nil))
		}
		return c, it.Err()
	}
	value := make([]byte, m.ValueSize())
	it := m.Iterate()
	for it.Next(&key, &value) {
		c.add(key, value)
	}
	return c, it.Err()
}

// errNoBatch: the map type cannot be read in batches (LPM tries).
var errNoBatch = errors.New("no batched lookup")

func (c *mapCopy) readBatched(m *ebpf.Map, cpus int) error {
	if m.Type() == ebpf.LPMTrie {
		return errNoBatch
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

	var cursor ebpf.MapBatchCursor
	for {
		n, err := m.BatchLookup(&cursor, keys.Interface(), values.Interface(), nil)
		c.keys = append(c.keys, keyBytes[:n*keySize]...)
		if stride == valueSize {
			c.values = append(c.values, valueBytes[:n*cpus*stride]...)
		} else {
			for i := range n * cpus {
				c.values = append(c.values, valueBytes[i*stride:i*stride+valueSize]...)
			}
		}
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// unsafeBytes is the memory of a slice of byte arrays, n bytes.
func unsafeBytes(slice reflect.Value, n int) []byte {
	return unsafe.Slice((*byte)(slice.UnsafePointer()), n)
}
