package object

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/kmem"
)

// Loads of one chosen program share the maps no program may write: those
// created read-only to programs (BPF_F_RDONLY_PROG: .rodata, and the
// large arrays markLargeArrays proves are never written). Every load
// would hold the same contents (the object's, then the map-init file's),
// and no run can change them, so one map serves all: katran's ring of
// 33.5 million entries (256 MiB) is created and filled once a run, not
// once a placement. Each load holds its own file descriptor
// (MapReplacements clones it), so a map lives while any load does.
type sharedMaps struct {
	mu sync.Mutex
	// maps are this holder's own descriptors of the shared maps, while
	// refs loads hold them; nil when none does.
	maps map[string]*ebpf.Map
	refs int
	// filled are the shared maps a map-init file's entries were put in.
	filled map[string]bool
}

// shareable says whether loads of a program may share the map: no
// program can write it, and its contents are data, not the load's own
// programs or maps, or what a live run points at its interfaces.
func shareable(name string, ms *ebpf.MapSpec) bool {
	if ms.Flags&unix.BPF_F_RDONLY_PROG == 0 || ms.Pinning != ebpf.PinNone {
		return false
	}
	switch ms.Type {
	case ebpf.Array, ebpf.PerCPUArray, ebpf.Hash, ebpf.PerCPUHash, ebpf.LPMTrie:
		return !strings.HasPrefix(name, ".") || strings.HasPrefix(name, ".rodata")
	}
	return false
}

// replacements are the maps a new load takes in place of creating its
// own, and a release for when the load is closed; the first load (none
// held) shares nothing yet, and adopt takes its maps.
func (s *sharedMaps) replacements() map[string]*ebpf.Map {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.maps)
}

// adopt counts a new load of spec, coll: the first one's shareable maps
// become the ones later loads take.
func (s *sharedMaps) adopt(spec *ebpf.CollectionSpec, coll *ebpf.Collection) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refs++
	if s.maps != nil {
		return
	}
	s.maps, s.filled = map[string]*ebpf.Map{}, map[string]bool{}
	for name, ms := range spec.Maps {
		m := coll.Maps[name]
		if m == nil || !shareable(name, ms) {
			continue
		}
		if own, err := m.Clone(); err == nil {
			s.maps[name] = own
		}
	}
}

// release counts a load closed; the last one frees the holder's maps.
func (s *sharedMaps) release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refs--; s.refs > 0 {
		return
	}
	kmem.Linger(s.maps)
	for _, m := range s.maps {
		m.Close()
	}
	s.maps, s.filled, s.refs = nil, nil, 0
}

// own are the maps of a load's but those it shares (which the holder
// closes last).
func (s *sharedMaps) own(all map[string]*ebpf.Map) map[string]*ebpf.Map {
	if s == nil {
		return all
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	own := map[string]*ebpf.Map{}
	for name, m := range all {
		if s.maps[name] == nil {
			own[name] = m
		}
	}
	return own
}

// unfilled drops the updates of shared maps an earlier load filled, and
// returns a function that records the rest's shared maps filled.
func (s *sharedMaps) unfilled(updates []Update) ([]Update, func()) {
	if s == nil {
		return updates, func() {}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var keep []Update
	filling := map[string]bool{}
	for _, u := range updates {
		switch {
		case s.filled[u.MapName]:
		case s.maps[u.MapName] != nil:
			filling[u.MapName] = true
			keep = append(keep, u)
		default:
			keep = append(keep, u)
		}
	}
	return keep, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.filled != nil {
			maps.Copy(s.filled, filling)
		}
	}
}

// SharedMaps are the maps l shares with other loads of its program, by
// name: a copy of the program (an instrumented one) takes them too,
// rather than another copy of each, and puts nothing more in them once
// the loads' map-init entries are.
func (l *Loaded) SharedMaps() map[string]*ebpf.Map {
	s := l.shared
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.maps)
}

// WithoutShared are the updates but those of maps l shares with other
// loads, which a load of its program filled already.
func (l *Loaded) WithoutShared(updates []Update) []Update {
	shared := l.SharedMaps()
	if len(shared) == 0 {
		return updates
	}
	return slices.DeleteFunc(slices.Clone(updates), func(u Update) bool { return shared[u.MapName] != nil })
}
