package object

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/kmem"
)

// Large arrays (a load balancer's consistent-hash ring: 33 million
// entries) take seconds to read through the bpf syscall, and every case
// is checked against a copy taken before it. xdpmicro creates them
// mmapable instead (markLargeArrays). The copy is kept in a shadow array
// of the same shape, in the kernel, mapped too: a snapshot writes into it
// only what differs, and a case's changes are found by comparing the two
// mappings. Measured on a 268 MB ring here: 15 to 35 ms a pass, where a
// copy into fresh process memory took 1.5 s to fault its pages in.
// Shadows take at most maxAllMappedBytes of kernel memory.
const maxAllMappedBytes = 512 << 20

// mappedChunk is how much of a mapping is compared at once: the copy
// that reads it stays in cache.
const mappedChunk = 1 << 20

// largeMaps are the maps of spec too large to read for every case:
// arrays, per-CPU arrays and LPM tries over maxInspectedEntries entries
// or maxInspectedBytes of contents (hash maps are read as far as they
// hold entries). .rodata, which no program can change, is left out.
func largeMaps(spec *ebpf.CollectionSpec) []string {
	var large []string
	for _, name := range sortedKeys(spec.Maps) {
		ms := spec.Maps[name]
		switch {
		case ms.Type != ebpf.Array && ms.Type != ebpf.PerCPUArray && ms.Type != ebpf.LPMTrie,
			ms.Flags&(unix.BPF_F_MMAPABLE|unix.BPF_F_RDONLY_PROG) != 0, strings.HasPrefix(name, ".rodata"):
			continue
		}
		if ms.MaxEntries > maxInspectedEntries || contentBytes(ms.Type, ms.MaxEntries, ms.KeySize, ms.ValueSize) > maxInspectedBytes {
			large = append(large, name)
		}
	}
	return large
}

// markLargeArrays prepares the large maps of spec so that the checking
// run's changes to them are found without reading them through the bpf
// syscall, and says how. Most are configuration (a load balancer's ring)
// that the programs only read: a load of spec with them read-only to
// programs (BPF_F_RDONLY_PROG) tells, and those the verifier accepts so
// are created so, and need no watching; where it refuses them all, each
// is tried alone. The arrays left are created mmapable, and compared in
// memory with a shadow (snapshotMapped); per-CPU arrays and LPM tries
// left stay unwatched, noted. Either way a program reaches an element as
// before: the JIT inlines the same lookup (the verifier folds only frozen
// read-only maps' values), and the flags change only what user space and
// the verifier may do.
func markLargeArrays(spec *ebpf.CollectionSpec) []string {
	large := largeMaps(spec)
	if len(large) == 0 {
		return nil
	}
	readOnly, answered := loadsReadOnly(spec, large)
	if !answered {
		return nil // not the verifier's answer: the load proper will say what is wrong
	}
	if readOnly == nil && len(large) > 1 {
		for _, name := range large {
			if ok, _ := loadsReadOnly(spec, []string{name}); ok != nil {
				readOnly = append(readOnly, name)
			}
		}
	}
	var notes, arrays []string
	for _, name := range large {
		switch {
		case slices.Contains(readOnly, name):
			spec.Maps[name].Flags |= unix.BPF_F_RDONLY_PROG
		case spec.Maps[name].Type == ebpf.Array:
			spec.Maps[name].Flags |= unix.BPF_F_MMAPABLE
			arrays = append(arrays, name)
		}
	}
	if len(readOnly) > 0 {
		notes = append(notes, fmt.Sprintf("maps too large to read for every case are created read-only to programs (BPF_F_RDONLY_PROG): "+
			"they loaded so, which proves no run changes them: %s", strings.Join(readOnly, ", ")))
	}
	if len(arrays) > 0 {
		notes = append(notes, fmt.Sprintf("arrays too large to read through the bpf syscall for every case, which a program writes, are created mmapable (BPF_F_MMAPABLE), "+
			"so that what a run changes in them is found in memory; programs reach them as before: %s", strings.Join(arrays, ", ")))
	}
	return notes
}

// loadsReadOnly loads spec with the named maps read-only to programs, and
// returns them if the verifier accepts it; answered says the verifier
// answered (a refusal or an acceptance), not another error.
func loadsReadOnly(spec *ebpf.CollectionSpec, names []string) (readOnly []string, answered bool) {
	probe := spec.Copy()
	for _, name := range names {
		probe.Maps[name].Flags |= unix.BPF_F_RDONLY_PROG
	}
	kmem.AwaitFreed()
	// At BPF_LOG_STATS: the refusal alone is asked, not the log of its
	// path, which cilium/ebpf would otherwise load again to grow.
	coll, err := ebpf.NewCollectionWithOptions(probe, ebpf.CollectionOptions{
		Programs: ebpf.ProgramOptions{LogLevel: ebpf.LogLevelStats},
	})
	if err == nil {
		kmem.Linger(coll.Maps)
		coll.Close()
		return names, true
	}
	var ve *ebpf.VerifierError
	return nil, errors.As(err, &ve)
}

// shadow is the copy of one large array that the latest snapshot took,
// with both mapped: the array read-only, the shadow to write.
type shadow struct {
	m         *ebpf.Map
	mem, copy []byte
	// generation counts the snapshots taken into it: a copy of an older
	// one is no longer there to compare with.
	generation uint64
}

// elementStride is how far apart an array's elements lie in its memory.
func elementStride(m *ebpf.Map) int { return (int(m.ValueSize()) + 7) &^ 7 }

// mappedCopy is a snapshot's record of a large array: its shadow as the
// snapshot left it.
type mappedCopy struct {
	shadow     *shadow
	generation uint64
}

// snapshotMapped brings the shadow of a large array up to its contents.
func (l *Loaded) snapshotMapped(name string, m *ebpf.Map) (*mapCopy, error) {
	s := l.shadows[name]
	if s == nil {
		var err error
		if s, err = newShadow(m); err != nil {
			return nil, err
		}
		if l.shadows == nil {
			l.shadows = map[string]*shadow{}
		}
		l.shadows[name] = s
	}
	for off := 0; off < len(s.mem); off += mappedChunk {
		end := min(off+mappedChunk, len(s.mem))
		if !bytes.Equal(s.mem[off:end], s.copy[off:end]) {
			copy(s.copy[off:end], s.mem[off:end])
		}
	}
	s.generation++
	return &mapCopy{keySize: 4, valueSize: int(m.ValueSize()), mapped: &mappedCopy{s, s.generation}}, nil
}

// newShadow creates a large array's shadow, and maps both.
func newShadow(m *ebpf.Map) (*shadow, error) {
	size := int(m.MaxEntries()) * elementStride(m)
	sm, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Array, KeySize: m.KeySize(), ValueSize: m.ValueSize(),
		MaxEntries: m.MaxEntries(), Flags: unix.BPF_F_MMAPABLE})
	if err != nil {
		return nil, fmt.Errorf("create its shadow: %w", err)
	}
	s := &shadow{m: sm}
	if s.mem, err = unix.Mmap(m.FD(), 0, size, unix.PROT_READ, unix.MAP_SHARED); err != nil {
		sm.Close()
		return nil, fmt.Errorf("map its memory: %w", err)
	}
	if s.copy, err = unix.Mmap(sm.FD(), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED); err != nil {
		s.free()
		return nil, fmt.Errorf("map its shadow: %w", err)
	}
	return s, nil
}

func (s *shadow) free() {
	for _, b := range [][]byte{s.mem, s.copy} {
		if b != nil {
			_ = unix.Munmap(b)
		}
	}
	s.m.Close()
}

// mappedChanges compares a large array with the shadow a snapshot left,
// and lists what changed, element by element, with the writes that put
// the snapshot's values back.
func mappedChanges(name string, m *ebpf.Map, spec *ebpf.MapSpec, old *mapCopy) ([]Effect, []undoWrite, error) {
	s := old.mapped.shadow
	if s.generation != old.mapped.generation {
		return nil, nil, fmt.Errorf("a later snapshot replaced the copy to compare with")
	}
	stride, size := elementStride(m), int(m.ValueSize())
	// Whole elements a chunk, so that none straddles two.
	chunk := max(stride, mappedChunk/stride*stride)
	var out []Effect
	var undo []undoWrite
	for off := 0; off < len(s.mem); off += chunk {
		end := min(off+chunk, len(s.mem))
		if bytes.Equal(s.mem[off:end], s.copy[off:end]) {
			continue
		}
		for e := off; e+size <= end; e += stride {
			o, a := s.copy[e:e+size], s.mem[e:e+size]
			if bytes.Equal(o, a) {
				continue
			}
			key := binary.NativeEndian.AppendUint32(nil, uint32(e/stride))
			undo = append(undo, undoWrite{m: m, key: key, value: bytes.Clone(o)})
			out = append(out, Effect{Map: name, Change: "set", Key: formatKey(m.Type(), spec.Key, key), Value: formatValue(spec.Value, bytes.Clone(a))})
		}
	}
	return out, undo, nil
}

// FreeCopies frees what snapshots of large arrays keep: their shadows in
// the kernel, and the mappings.
func (l *Loaded) FreeCopies() {
	for _, s := range l.shadows {
		s.free()
	}
	l.shadows = nil
}
