package livenet

import (
	"encoding/binary"
	"fmt"

	"github.com/cilium/ebpf"
)

// cpumapQueue is the queue size given each CPU of a cpumap: frames beyond
// it, waiting for the CPU's kthread, are dropped.
const cpumapQueue = 192

// FillDevmap points the keys of a devmap or devmap_hash, 0 to
// MaxEntries-1 and at most MaxDevmapFill of them, at xm0, so that a
// redirect through any of them sends the frame out of xm0 to xm1
// (Transmitted). The kernel looks a devmap's ifindex up in the updating
// thread's namespace, so the updates are made inside the pair's.
func (p *Pair) FillDevmap(m *ebpf.Map) error {
	if t := m.Type(); t != ebpf.DevMap && t != ebpf.DevMapHash {
		return fmt.Errorf("livenet: %w: %v is not a devmap", ErrMapType, t)
	}
	value, err := entry(m, uint32(p.ingress))
	if err != nil {
		return err
	}
	return p.Inside(func() error {
		for key := range min(m.MaxEntries(), MaxDevmapFill) {
			if err := m.Update(key, value, ebpf.UpdateAny); err != nil {
				return fmt.Errorf("livenet: devmap key %d: %w", key, err)
			}
		}
		return nil
	})
}

// MaxDevmapFill bounds the keys FillDevmap fills: a devmap takes no
// batches, so each key is a system call (some 1.5 µs), and an entry some
// 64 bytes of kernel memory; a devmap of 2^32-1 entries would take hours
// and hundreds of GiB. Programs redirect through a key per port or per
// CPU, far fewer; a map-init file fills any others.
const MaxDevmapFill = 1 << 16

// FillCpumap gives every key of a cpumap that is a possible CPU, 0 to
// min(MaxEntries, possible CPUs)-1, a queue and no program, so that a
// redirect through any of them hands the frame to that CPU's kthread,
// which gives it to xm0's stack as an skb (Passed). A cpumap's key is the
// CPU, so there is nothing else to choose.
func FillCpumap(m *ebpf.Map) error {
	if t := m.Type(); t != ebpf.CPUMap {
		return fmt.Errorf("livenet: %w: %v is not a cpumap", ErrMapType, t)
	}
	value, err := entry(m, cpumapQueue)
	if err != nil {
		return err
	}
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		return fmt.Errorf("livenet: possible CPUs: %w", err)
	}
	for key := range uint32(min(int(m.MaxEntries()), cpus)) {
		if err := m.Update(key, value, ebpf.UpdateAny); err != nil {
			return fmt.Errorf("livenet: cpumap key (CPU) %d: %w", key, err)
		}
	}
	return nil
}

// entry is a devmap's or cpumap's value: 4 bytes, the ifindex or queue
// size alone (the layout before programs could be attached to entries),
// or 8, followed by a program fd of 0, none.
func entry(m *ebpf.Map, first uint32) ([]byte, error) {
	if m.KeySize() != 4 {
		return nil, fmt.Errorf("livenet: %w: %v has %d-byte keys, not 4", ErrMapType, m, m.KeySize())
	}
	size := m.ValueSize()
	if size != 4 && size != 8 {
		return nil, fmt.Errorf("livenet: %w: %v has %d-byte values, not 4 or 8", ErrMapType, m, size)
	}
	value := make([]byte, size)
	binary.NativeEndian.PutUint32(value, first)
	return value, nil
}
