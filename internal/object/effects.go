package object

import (
	"bytes"
	"context"
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
	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/results"
	"golang.org/x/sys/unix"
)

// Effect is a change that one run of a case made to a map, as results
// saves it.
type Effect = results.Effect

// Maps with more entries than this are not compared before and after a
// case: the copy would cost more than it tells. xdp-filter's port map,
// one entry a port, is just within.
const maxInspectedEntries = 1 << 16

// The memory that reading maps for a checking run's effects may take.
// A map is copied before and after each case: one whose contents (its
// max_entries, keys and values, a value per possible CPU) pass
// maxInspectedBytes is not compared, nor any map once the maps compared
// hold maxAllInspectedBytes, and a note names them; so the two copies
// take at most twice that. One batched lookup reads at most
// maxBatchBytes: an 8 MiB global section is read one entry a call, not
// in buffers for 4,096 entries (32 GiB). Queues and stacks
// keep at most maxInspectedBytes of what a run pushed.
const (
	maxInspectedBytes    = 16 << 20
	maxAllInspectedBytes = 64 << 20
	maxBatchBytes        = 1 << 20
)

// MapState is a copy of the maps' contents, by map.
type MapState map[string]*mapCopy

// mapCopy is a map's entries in the order the kernel gave them, keys and
// values end to end; a per-CPU map's value is its CPUs' values end to end.
// Flat, because a map of 65536 entries would take 100 ms to index.
type mapCopy struct {
	keySize, valueSize int
	keys, values       []byte
	// mapped: a large array's copy is its shadow's (mapped.go); keys
	// and values are empty.
	mapped *mappedCopy
}

func (c *mapCopy) len() int           { return len(c.keys) / c.keySize }
func (c *mapCopy) bytes() uint64      { return uint64(len(c.keys) + len(c.values)) }
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
// kernel will not let user space read, or past the memory budget
// (maxAllInspectedBytes), is left out, and noted (unread).
func (l *Loaded) Snapshot() (MapState, error) {
	return l.SnapshotContext(context.Background())
}

// SnapshotContext is Snapshot that stops between batches once ctx is
// done, with ctx's error: a hash map is read up to its 16 MiB before it
// is found past the budget, 1.4 M entries of 12 bytes, a second here.
func (l *Loaded) SnapshotContext(ctx context.Context) (MapState, error) {
	state := MapState{}
	var copied uint64 // the most bytes the maps copied so far can hold
	var mapped uint64 // the bytes of large arrays copied from memory
	maps := l.Maps()
	for _, name := range sortedKeys(maps) {
		m := maps[name]
		if _, gone := l.unread[name]; gone {
			continue
		}
		size := contentBytes(m.Type(), m.MaxEntries(), m.KeySize(), m.ValueSize())
		switch kind, _ := mapKindOf(m.Type(), m.MaxEntries(), size, m.Flags()); kind {
		case mapDrained:
			// What was there before the case is popped and dropped.
			if _, _, err := l.drain(m, 0); err != nil && !l.unreadable(name, err) {
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
		case mapCopied:
			limit := size
			if isHash(m.Type()) {
				limit = min(size, maxInspectedBytes, maxAllInspectedBytes-copied)
			} else if copied+size > maxAllInspectedBytes {
				l.skip(name, fmt.Sprintf("%s of contents, past the %s that all maps compared may hold", mib(size), mib(maxAllInspectedBytes)))
				continue
			}
			entries, err := snapshotOne(ctx, m, limit)
			if errors.Is(err, errPastBudget) {
				l.skip(name, fmt.Sprintf("it holds more than the %s of entries left to read of a map for effects", mib(limit)))
				continue
			}
			if err != nil {
				if l.unreadable(name, err) {
					continue
				}
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
			copied += uint64(len(entries.keys) + len(entries.values))
			state[name] = entries
		case mapMapped:
			if mapped+size > maxAllMappedBytes {
				l.skip(name, fmt.Sprintf("%s of contents, past the %s that all large arrays compared may hold", mib(size), mib(maxAllMappedBytes)))
				continue
			}
			entries, err := l.snapshotMapped(name, m)
			if err != nil {
				return nil, fmt.Errorf("map %s: %w", name, err)
			}
			mapped += size
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
	// mapMapped: a large array xdpmicro created mmapable (prepare):
	// copied from memory, and compared in memory (mapped.go).
	mapMapped
	// mapFixed: readable, but programs cannot change it (the verifier
	// allows them only lookups, redirects and tail calls): not read.
	mapFixed
	// mapUnwatched: not compared, and a note says why.
	mapUnwatched
)

// mapKindOf says what the checking run does with a map of this type,
// number of entries and size of contents (contentBytes), and, for maps
// it does not compare, why.
func mapKindOf(t ebpf.MapType, entries uint32, size uint64, flags uint32) (mapKind, string) {
	switch t {
	case ebpf.Hash, ebpf.LRUHash, ebpf.PerCPUHash, ebpf.LRUCPUHash:
		// Read as far as they hold entries, not their max_entries: a
		// conntrack table of a million slots holds what its runs put in
		// (readSparse).
		return mapCopied, ""
	case ebpf.Array, ebpf.LPMTrie, ebpf.PerCPUArray:
		if flags&unix.BPF_F_RDONLY_PROG != 0 {
			return mapFixed, "" // the verifier lets no program write it
		}
		large := entries > maxInspectedEntries || size > maxInspectedBytes
		if large && t == ebpf.Array && flags&unix.BPF_F_MMAPABLE != 0 {
			if size > maxAllMappedBytes {
				return mapUnwatched, fmt.Sprintf("%s of contents, over the %s of large arrays compared", mib(size), mib(maxAllMappedBytes))
			}
			return mapMapped, ""
		}
		if entries > maxInspectedEntries {
			return mapUnwatched, fmt.Sprintf("%d entries, over %d", entries, maxInspectedEntries)
		}
		if size > maxInspectedBytes {
			return mapUnwatched, fmt.Sprintf("%s of contents, over the %s read of a map for effects", mib(size), mib(maxInspectedBytes))
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
func unwatched(ms *ebpf.MapSpec) string {
	_, why := mapKindOf(ms.Type, ms.MaxEntries, contentBytes(ms.Type, ms.MaxEntries, ms.KeySize, ms.ValueSize), ms.Flags)
	return why
}

// contentBytes is the most a map's contents take when copied: its
// entries' keys and values, a value per possible CPU for a per-CPU map.
func contentBytes(t ebpf.MapType, entries, keySize, valueSize uint32) uint64 {
	cpus := uint64(1)
	if isPerCPU(t) {
		if n, err := ebpf.PossibleCPU(); err == nil {
			cpus = uint64(n)
		}
	}
	return uint64(entries) * (uint64(keySize) + cpus*uint64(valueSize))
}

// mib writes a size in MiB, to a tenth where it is not a whole number.
func mib(bytes uint64) string {
	if bytes%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", bytes>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(bytes)/(1<<20))
}

// skip records that a map's changes are not shown, and why.
func (l *Loaded) skip(name, why string) {
	if l.unread == nil {
		l.unread = map[string]string{}
	}
	l.unread[name] = why
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
	l.skip(name, "user space could not read it: "+err.Error())
	return true
}

// errnoENOTSUPP is the kernel's internal ENOTSUPP, which leaks out of the
// bpf syscall for operations a map type lacks.
const errnoENOTSUPP = unix.Errno(524)

// UnwatchedNote names the maps of l, and of the objects loaded beside it,
// whose changes are not shown: by type and size, and those user space
// could not read.
func (l *Loaded) UnwatchedNote() string {
	if maps := l.UnwatchedMaps(); maps != "" {
		return "the checking run's changes to these maps are not shown: " + maps
	}
	return ""
}

// UnwatchedMaps lists the maps UnwatchedNote names, each with why.
func (l *Loaded) UnwatchedMaps() string {
	whys := map[string]string{}
	add := func(spec *ebpf.CollectionSpec, prefix string) {
		for name, ms := range spec.Maps {
			if why := unwatched(ms); why != "" && !strings.HasPrefix(name, ".rodata") {
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
	return strings.Join(maps, ", ")
}

// drain pops a queue or stack empty, and returns the values popped, as
// many as keep bytes hold, and how many more it dropped.
func (l *Loaded) drain(m *ebpf.Map, keep uint64) (values [][]byte, dropped int, err error) {
	v := make([]byte, m.ValueSize())
	var kept uint64
	for {
		err := m.LookupAndDelete(nil, &v)
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			return values, dropped, nil
		}
		if err != nil {
			return values, dropped, err
		}
		if kept += uint64(len(v)); kept > keep {
			dropped++
			continue
		}
		values = append(values, bytes.Clone(v))
	}
}

// Effects compares the maps with a snapshot taken before the run.
func (l *Loaded) Effects(before MapState) ([]Effect, error) {
	effects, _, err := l.Changes(before)
	return effects, err
}

// Changes compares the maps with a snapshot taken before the run, and
// returns what changed and what puts it back as the snapshot had it.
func (l *Loaded) Changes(before MapState) ([]Effect, Undo, error) {
	var out []Effect
	var undo Undo
	maps := l.Maps()
	for _, name := range sortedKeys(maps) {
		m, spec := maps[name], l.mapSpec(name)
		if _, gone := l.unread[name]; gone {
			continue
		}
		if spec == nil {
			// A map of the loader's own (an instrumented copy's counters):
			// no types to show its entries by.
			spec = &ebpf.MapSpec{}
		}
		if m.Type() == ebpf.Queue || m.Type() == ebpf.Stack {
			values, dropped, err := l.drain(m, maxInspectedBytes)
			if err != nil && !l.unreadable(name, err) {
				return nil, Undo{}, fmt.Errorf("map %s: %w", name, err)
			}
			// Emptied before the run as after it: nothing to put back.
			for _, v := range values {
				out = append(out, Effect{Map: name, Change: "pushed", Value: formatValue(spec.Value, v)})
			}
			if dropped > 0 {
				out = append(out, Effect{Map: name, Change: "pushed", Value: fmt.Sprintf("%d more values, not shown: past the %s read of a map for effects", dropped, mib(maxInspectedBytes))})
			}
			continue
		}
		old, ok := before[name]
		if !ok {
			continue
		}
		if old.mapped != nil {
			effects, writes, err := mappedChanges(name, m, spec, old)
			if err != nil {
				return nil, Undo{}, fmt.Errorf("map %s: %w", name, err)
			}
			out, undo.writes = append(out, effects...), append(undo.writes, writes...)
			continue
		}
		// A run adds few entries: twice what was read before is ample.
		after, err := snapshotOne(context.Background(), m, 2*uint64(len(old.keys)+len(old.values))+maxBatchBytes)
		if errors.Is(err, errPastBudget) {
			l.skip(name, "a run added more entries than are read of a map for effects")
			continue
		}
		if err != nil {
			if l.unreadable(name, err) {
				continue
			}
			return nil, Undo{}, fmt.Errorf("map %s: %w", name, err)
		}
		effects, writes := changes(name, m, spec, old, after)
		out, undo.writes = append(out, effects...), append(undo.writes, writes...)
	}
	undo.unwatched = l.UnwatchedNote() != ""
	return out, undo, nil
}

// Undo puts back, in the maps a snapshot copied, what a run changed:
// the old value of every entry it set, and the absence of every entry it
// added. Queues and stacks are emptied before every run and need none.
type Undo struct {
	writes []undoWrite
	// unwatched says some maps were not copied (UnwatchedNote): what a
	// run changed in them is not put back.
	unwatched bool
}

type undoWrite struct {
	m     *ebpf.Map
	key   []byte
	value []byte // nil: delete the key; a per-CPU value is its CPUs' end to end
}

// UndoWrite is one entry Apply puts back: Value is its old value (a
// per-CPU map's, its CPUs' end to end), nil to delete the key.
type UndoWrite struct {
	Map        *ebpf.Map
	Key, Value []byte
}

// ValueOn is the old value as a program on cpu reads it: a per-CPU map's
// value of that CPU, else the value; nil for a delete.
func (w UndoWrite) ValueOn(cpu int) ([]byte, error) {
	if w.Value == nil || !isPerCPU(w.Map.Type()) {
		return w.Value, nil
	}
	size := int(w.Map.ValueSize())
	if (cpu+1)*size > len(w.Value) {
		return nil, fmt.Errorf("map %s has no value for CPU %d", w.Map, cpu)
	}
	return w.Value[cpu*size : (cpu+1)*size], nil
}

// PutBack puts the maps back as before had them: what Changes finds
// changed since, undone.
func (l *Loaded) PutBack(before MapState) error {
	_, undo, err := l.Changes(before)
	if err != nil {
		return err
	}
	return undo.Apply()
}

// Writes are the entries Apply puts back, in its order.
func (u Undo) Writes() []UndoWrite {
	out := make([]UndoWrite, len(u.writes))
	for i, w := range u.writes {
		out[i] = UndoWrite{Map: w.m, Key: w.key, Value: w.value}
	}
	return out
}

// Bytes is what Apply writes: the keys and the old values.
func (u Undo) Bytes() int {
	n := 0
	for _, w := range u.writes {
		n += len(w.key) + len(w.value)
	}
	return n
}

// Len is the number of entries Apply writes or deletes.
func (u Undo) Len() int { return len(u.writes) }

// Complete says whether the undo covers every map a program could change.
func (u Undo) Complete() bool { return !u.unwatched }

// Apply writes the old entries back, and deletes the new ones.
func (u Undo) Apply() error {
	for _, w := range u.writes {
		var err error
		switch {
		case w.value == nil:
			err = w.m.Delete(w.key)
			if errors.Is(err, ebpf.ErrKeyNotExist) {
				err = nil // an LRU may have evicted it already
			}
		case isPerCPU(w.m.Type()):
			size := int(w.m.ValueSize())
			values := make([][]byte, 0, len(w.value)/size)
			for cpu := 0; (cpu+1)*size <= len(w.value); cpu++ {
				values = append(values, w.value[cpu*size:(cpu+1)*size])
			}
			err = w.m.Update(w.key, values, ebpf.UpdateAny)
		default:
			err = w.m.Update(w.key, w.value, ebpf.UpdateAny)
		}
		if err != nil {
			return fmt.Errorf("putting map %s back: %w", w.m.String(), err)
		}
	}
	return nil
}

// changes lists what differs between two copies of a map, and the writes
// that put the old copy back: entry by entry when the keys came in the
// same order (arrays, and hash maps no entry was added to or deleted
// from), by key otherwise.
func changes(name string, m *ebpf.Map, spec *ebpf.MapSpec, old, after *mapCopy) ([]Effect, []undoWrite) {
	mt := m.Type()
	var out []Effect
	var undo []undoWrite
	changed := func(key, o, a []byte) {
		// The old value is the snapshot's own bytes, not a copy: an 8 MiB
		// global is not held twice.
		undo = append(undo, undoWrite{m: m, key: bytes.Clone(key), value: o})
		k := formatKey(mt, spec.Key, key)
		switch {
		case a == nil:
			out = append(out, Effect{Map: name, Change: "deleted", Key: k})
		case isPerCPU(mt):
			out = append(out, perCPUEffects(name, k, spec.Value, int(m.ValueSize()), o, a)...)
		case o == nil || !bytes.Equal(a, o):
			out = append(out, Effect{Map: name, Change: "set", Key: k, Value: formatValue(spec.Value, a)})
		}
	}
	if bytes.Equal(old.keys, after.keys) {
		for i := range after.len() {
			if o, a := old.value(i), after.value(i); !bytes.Equal(o, a) {
				changed(after.key(i), o, a)
			}
		}
		return out, undo
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
	return out, undo
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
	if btfvalue.IsVoid(t) && isArray(mt) {
		if i, ok := btfvalue.Uint(key, 4); ok {
			return strconv.FormatUint(i, 10)
		}
	}
	return formatValue(t, key)
}

// hideKernelAddresses says whether map contents read after a run show
// kernel addresses as btfvalue.KernelAddress: when the user who ran
// xdpmicro could not read them (host.HidesKernelAddresses). A variable,
// so that tests can set it.
var hideKernelAddresses = host.HidesKernelAddresses

// formatValue formats a key or value that a program may have written,
// kernel addresses hidden from whoever could not read them.
func formatValue(t btf.Type, b []byte) string {
	if hideKernelAddresses() {
		return btfvalue.FormatHidingKernelAddresses(t, b)
	}
	return btfvalue.Format(t, b)
}

// batchSize is the number of entries a batched lookup asks for at once.
const batchSize = 4096

// errPastBudget: a map holds more than its read may take.
var errPastBudget = errors.New("past the budget")

// isHash says whether a map's entries are only those put in it.
func isHash(t ebpf.MapType) bool {
	return t == ebpf.Hash || t == ebpf.LRUHash || t == ebpf.PerCPUHash || t == ebpf.LRUCPUHash
}

// snapshotOne copies a map's entries, at most limit bytes of keys and
// values (errPastBudget past it). Maps are read in batches where the
// kernel can, one entry at a time where not.
func snapshotOne(ctx context.Context, m *ebpf.Map, limit uint64) (*mapCopy, error) {
	cpus := 1
	if isPerCPU(m.Type()) {
		n, err := ebpf.PossibleCPU()
		if err != nil {
			return nil, err
		}
		cpus = n
	}
	c := &mapCopy{keySize: int(m.KeySize()), valueSize: cpus * int(m.ValueSize())}
	err := c.readBatched(ctx, m, cpus, limit)
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
			if c.bytes() > limit {
				return nil, errPastBudget
			}
			if c.len()%batchSize == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		return c, it.Err()
	}
	value := make([]byte, m.ValueSize())
	it := m.Iterate()
	for it.Next(&key, &value) {
		c.add(key, value)
		if c.bytes() > limit {
			return nil, errPastBudget
		}
		if c.len()%batchSize == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return c, it.Err()
}

// errNoBatch: the map type cannot be read in batches (LPM tries).
var errNoBatch = errors.New("no batched lookup")

func (c *mapCopy) readBatched(ctx context.Context, m *ebpf.Map, cpus int, limit uint64) error {
	if m.Type() == ebpf.LPMTrie {
		return errNoBatch
	}
	keySize, valueSize := int(m.KeySize()), int(m.ValueSize())
	// Per-CPU values come 8-byte aligned, one per CPU.
	stride := valueSize
	if isPerCPU(m.Type()) {
		stride = (valueSize + 7) &^ 7
	}
	// As many entries a call as maxBatchBytes hold, one at least.
	batch := max(1, min(batchSize, maxBatchBytes/max(1, keySize+cpus*stride)))
	// Slices of fixed-size byte arrays, so that cilium/ebpf counts
	// entries and reads into them without copying.
	keys := reflect.MakeSlice(reflect.SliceOf(reflect.ArrayOf(keySize, reflect.TypeFor[byte]())), batch, batch)
	values := reflect.MakeSlice(reflect.SliceOf(reflect.ArrayOf(stride, reflect.TypeFor[byte]())), batch*cpus, batch*cpus)
	keyBytes := unsafeBytes(keys, batch*keySize)
	valueBytes := unsafeBytes(values, batch*cpus*stride)

	var cursor ebpf.MapBatchCursor
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
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
		if c.bytes() > limit {
			return errPastBudget
		}
	}
}

// unsafeBytes is the memory of a slice of byte arrays, n bytes.
func unsafeBytes(slice reflect.Value, n int) []byte {
	return unsafe.Slice((*byte)(slice.UnsafePointer()), n)
}
