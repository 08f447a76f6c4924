package kmem

import (
	"sync"
	"time"

	"github.com/cilium/ebpf"
)

// Maps closed linger. A closed load's maps are freed only once its
// programs are, after an RCU grace period: katran's 256 MiB ring stayed
// some 20 ms after its load was closed here. A comparison's next group
// of loads then created its rings while the last group's were still
// there: three rings at once, 1,163 MiB of maps for a run the kernel
// memory budget held to 1 GiB. So the large maps a close lets go are
// remembered, and the next load waits, a bounded time, until they are
// gone (internal/object's loads).

// lingerBytes is the least a map holds to be waited for.
const lingerBytes = 16 << 20

// lingerWait bounds the wait of a load for the maps closed before it.
const lingerWait = 500 * time.Millisecond

var lingering struct {
	sync.Mutex
	ids []ebpf.MapID
}

// Linger remembers the large maps of maps, about to be closed, to wait
// for.
func Linger(maps map[string]*ebpf.Map) {
	var ids []ebpf.MapID
	for _, m := range maps {
		if uint64(m.MaxEntries())*uint64(m.ValueSize()+m.KeySize()) < lingerBytes {
			continue
		}
		if info, err := m.Info(); err == nil {
			if id, ok := info.ID(); ok {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	lingering.Lock()
	lingering.ids = append(lingering.ids, ids...)
	lingering.Unlock()
}

// AwaitFreed waits, at most lingerWait, until the maps Linger remembered
// are freed; it takes no reference to them (an ID's next is looked up).
func AwaitFreed() {
	lingering.Lock()
	defer lingering.Unlock()
	deadline := time.Now().Add(lingerWait)
	for len(lingering.ids) > 0 && time.Now().Before(deadline) {
		left := lingering.ids[:0]
		for _, id := range lingering.ids {
			if next, err := ebpf.MapGetNextID(id - 1); err == nil && next == id {
				left = append(left, id)
			}
		}
		lingering.ids = left
		if len(left) > 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	lingering.ids = nil // past the wait: not waited for again
}
