package replay

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/results"
)

// maxPaths is the most distinct paths told apart; packets of any more
// share the last group, "other paths". A packet's path is kept in two
// bytes.
const maxPaths = 1<<16 - 1

// otherPath is the group of packets past maxPaths distinct paths.
const otherPath = maxPaths

// path is a distinct path: the blocks a run ran, each as often, and
// its action.
type path struct {
	action       uint32
	instructions uint64
	first        int
	packets      int
	// kinds counts the effects kinds of the packets read, by kind.
	kinds   map[string]int
	changes map[string][]results.MapChange
	read    int
}

// pathTable gives each distinct path a number, in the order met.
type pathTable struct {
	ids   map[string]uint16
	paths []*path
	key   []byte
}

func newPathTable() *pathTable { return &pathTable{ids: map[string]uint16{}} }

// id is the number of the path of a run with these block counts and
// action, first met at packet i; new says it was not met before.
func (t *pathTable) id(counts []uint64, action uint32, insns uint64, i int) (id uint16, isNew bool) {
	if id, ok := t.lookup(counts, action); ok && id != otherPath {
		t.paths[id].packets++
		return id, false
	}
	if len(t.paths) == otherPath {
		// The last group holds every path past the limit.
		t.paths = append(t.paths, &path{action: action, instructions: insns, first: i, kinds: map[string]int{}, changes: map[string][]results.MapChange{}})
	}
	if len(t.paths) > otherPath {
		t.paths[otherPath].packets++
		return otherPath, false
	}
	id = uint16(len(t.paths))
	t.ids[string(t.key)] = id
	t.paths = append(t.paths, &path{action: action, instructions: insns, first: i, packets: 1,
		kinds: map[string]int{}, changes: map[string][]results.MapChange{}})
	return id, true
}

// lookup is the number of a path met before, without counting a packet.
func (t *pathTable) lookup(counts []uint64, action uint32) (uint16, bool) {
	t.key = binary.LittleEndian.AppendUint32(t.key[:0], action)
	for _, c := range counts {
		t.key = binary.AppendUvarint(t.key, c)
	}
	id, ok := t.ids[string(t.key)]
	if !ok && len(t.paths) > otherPath {
		return otherPath, true
	}
	return id, ok
}

// addEffects records the effects kind of a packet of path id.
func (t *pathTable) addEffects(id uint16, changes []results.MapChange) {
	p := t.paths[id]
	kind := effectsKind(changes)
	p.kinds[kind]++
	p.read++
	if _, ok := p.changes[kind]; !ok {
		p.changes[kind] = changes
	}
}

// effectsKind names what a run did to the maps, map by map: an LRU or
// hash map's miss and insert, an eviction, a hit that updates, a push.
func effectsKind(changes []results.MapChange) string {
	var parts []string
	for _, c := range changes {
		if s := changeWords(c); s != "" {
			parts = append(parts, c.Map+": "+s)
		}
	}
	if len(parts) == 0 {
		return "no map change"
	}
	return strings.Join(parts, "; ")
}

// changeWords says what one run did to one map.
func changeWords(c results.MapChange) string {
	hashed := strings.Contains(strings.ToLower(c.MapType), "hash")
	lru := strings.Contains(strings.ToLower(c.MapType), "lru")
	var w []string
	switch {
	case c.Inserted > 0 && c.Deleted > 0 && lru:
		w = append(w, "miss + insert, evicts "+count(c.Deleted, "entry", "entries"))
	case c.Inserted > 0 && hashed:
		w = append(w, "miss + insert")
	case c.Inserted > 0:
		w = append(w, "insert")
	case c.Deleted > 0:
		w = append(w, "delete "+count(c.Deleted, "entry", "entries"))
	}
	switch {
	case c.Updated > 0 && hashed && c.Inserted == 0:
		w = append(w, "hit, updated")
	case c.Updated > 0:
		w = append(w, "updated")
	}
	if c.Pushed > 0 {
		w = append(w, "pushed "+count(c.Pushed, "value", "values"))
	}
	return strings.Join(w, ", ")
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// effects lists a path's kinds, the most packets first.
func (p *path) effects() []results.ReplayEffects {
	out := make([]results.ReplayEffects, 0, len(p.kinds))
	for kind, n := range p.kinds {
		out = append(out, results.ReplayEffects{Kind: kind, Changes: p.changes[kind], Packets: n})
	}
	slices.SortFunc(out, func(a, b results.ReplayEffects) int {
		if a.Packets != b.Packets {
			return b.Packets - a.Packets
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return out
}

// name is the path's name: its effects as read, its action and its
// instructions.
func (p *path) name(actionName string) string {
	e := p.effects()
	what := "effects not read"
	switch {
	case len(e) == 1:
		what = e[0].Kind
	case len(e) > 1:
		what = fmt.Sprintf("%s (%d of %d read)", e[0].Kind, e[0].Packets, p.read)
	}
	return fmt.Sprintf("%s, %d insns: %s", actionName, p.instructions, what)
}
