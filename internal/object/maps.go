package object

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
	"github.com/xdpmicro/xdpmicro/internal/mapinit"
	"golang.org/x/sys/unix"
	"gopkg.in/yaml.v3"
)

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
// entries. Large maps are read as streams (internal/mapinit): entries a
// line each in YAML and JSON files are kept as text, other files read
// when the entries are resolved.
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
	maps      []mapinit.Map
	variables []assignment
	sizes     []sizing
}

// ErrMapInit reports a --map-init file that cannot be used.
var ErrMapInit = mapinit.ErrMapInit

// MaxMapInitNodes bounds a --map-init file's YAML nodes (mapinit.MaxNodes).
const MaxMapInitNodes = mapinit.MaxNodes

// Update is one resolved entry, a range, a repeat or a block of entries.
type Update = mapinit.Update

// mapEntry is one entry of a map's list.
type mapEntry = mapinit.Entry

// ReadMapInit reads and checks the syntax of a --map-init file; whether
// the maps and types fit is checked against the object before loading.
func ReadMapInit(path string) (*MapInit, error) {
	f, err := mapinit.Read(path)
	if err != nil {
		return nil, err
	}
	return fromFile(f), nil
}

// ParseMapInit parses the content of a --map-init file named name.
func ParseMapInit(name string, data []byte) (*MapInit, error) {
	f, err := mapinit.Parse(name, data)
	if err != nil {
		return nil, err
	}
	return fromFile(f), nil
}

// fromFile is the file's entries, variables and sizes, the latter as
// --set and --max-entries give theirs.
func fromFile(f *mapinit.File) *MapInit {
	mi := &MapInit{file: f.Name, maps: f.Maps}
	for _, v := range f.Variables {
		mi.variables = append(mi.variables, assignment{name: v.Name, value: v.Value, where: fmt.Sprintf("%s:%d", f.Name, v.Line), file: true})
	}
	for _, z := range f.Sizes {
		mi.sizes = append(mi.sizes, sizing{name: z.Name, n: z.N, where: fmt.Sprintf("%s:%d", f.Name, z.Line), file: true})
	}
	return mi
}

// perCPUValues gives a per-CPU map's entry one value per possible CPU: a
// single value for each, or a list of them.
func (mi *MapInit) perCPUValues(name string, ms *ebpf.MapSpec, e mapEntry) ([][]byte, error) {
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		return nil, fmt.Errorf("map %s is per-CPU, and the possible CPUs are unknown: %w", name, err)
	}
	values, list := e.ValueHex, len(e.ValueHex) > 1
	if e.ValueHex == nil {
		nodes := []*yaml.Node{e.Value}
		if list = perCPUList(ms.Value, e.Value); list {
			nodes = e.Value.Content
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
			err := putBatch(ctx, maps[updates[0].MapName], updates[:n])
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
		return u.KeyBytes != nil && u.Program == "" && u.Inner == "" && u.MapName == updates[0].MapName
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
		n += u.Entries()
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
	cpus := max(len(updates[0].PerCPU), 1)
	rows := int(min(entriesOf(updates), uint64(max(batchBytes/(keySize+valueSize*cpus), 1))))
	byteRows := func(size, n int) (reflect.Value, []byte) {
		s := reflect.MakeSlice(reflect.SliceOf(reflect.ArrayOf(size, reflect.TypeFor[byte]())), n, n)
		return s, unsafe.Slice((*byte)(s.UnsafePointer()), size*n)
	}
	keys, keyBytes := byteRows(keySize, rows)
	var values reflect.Value
	var valueBytes []byte
	var perCPU [][]byte
	if updates[0].PerCPU != nil {
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
		for i := range u.Entries() {
			u.PutKey(keyBytes[n*keySize:(n+1)*keySize], i)
			if perCPU != nil {
				if len(u.PerCPU) != cpus {
					return errors.New("per-CPU values of different lengths")
				}
				copy(perCPU[n*cpus:], u.PerCPU)
			} else {
				copy(valueBytes[n*valueSize:(n+1)*valueSize], u.ValueAt(i))
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
	m, spec := maps[u.MapName], l.mapSpec(u.MapName)
	var value any = u.ValueBytes
	switch {
	case u.PerCPU != nil:
		value = u.PerCPU
	case u.Program != "":
		value = l.program(u.Program)
	case u.Inner != "":
		value = maps[u.Inner]
	}
	var key []byte
	if u.KeyBytes != nil {
		key = make([]byte, len(u.KeyBytes))
	}
	for i := range u.Entries() {
		if i%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var err error
		if u.Block != nil {
			value = u.ValueAt(i)
		}
		if key == nil {
			err = m.Update(nil, value, ebpf.UpdateAny)
		} else {
			u.PutKey(key, i)
			err = m.Update(key, value, ebpf.UpdateAny)
		}
		if err == nil {
			continue
		}
		entry := "value " + btfvalue.Format(spec.Value, u.ValueAt(i))
		if key != nil {
			entry = "key " + formatKey(m.Type(), spec.Key, key)
		}
		if errors.Is(err, unix.E2BIG) && !isArray(m.Type()) {
			// cilium/ebpf says "key too big for map", which it is not.
			return fmt.Errorf("%s: map %s, %s: the map is full (max_entries %d; E2BIG)", u.WhereAt(i), u.MapName, entry, m.MaxEntries())
		}
		return fmt.Errorf("%s: map %s, %s: the kernel refused the entry: %w", u.WhereAt(i), u.MapName, entry, err)
	}
	return nil
}
