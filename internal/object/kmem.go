package object

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/kmem"
)

// Kernel memory (internal/kmem): what loads of a chosen program hold in
// the kernel, and the refusal of a load past the budget.

// ErrKernelMemory: what a run would create in the kernel is past its
// budget (LoadOptions.KernelMemory).
var ErrKernelMemory = kmem.ErrBudget

// Footprint estimates what c's loads hold in the kernel.
func (c Chosen) Footprint() kmem.Footprint {
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		cpus = 1 // per-CPU maps are then refused when they are filled
	}
	var f kmem.Footprint
	var mapped uint64
	for _, name := range sortedKeys(c.Spec.Maps) {
		ms := c.Spec.Maps[name]
		b := kmem.MapBytes(ms, cpus)
		f.Maps = append(f.Maps, kmem.MapCost{Name: name, Spec: ms, Bytes: b, Shared: c.shared != nil && shareable(name, ms)})
		// As Snapshot takes shadows: of mmapable large arrays, up to
		// maxAllMappedBytes of contents.
		if ms.Type == ebpf.Array && ms.Flags&unix.BPF_F_MMAPABLE != 0 && !strings.HasPrefix(name, ".") {
			if size := contentBytes(ms.Type, ms.MaxEntries, ms.KeySize, ms.ValueSize); mapped+size <= maxAllMappedBytes {
				mapped += size
				f.Shadows = kmem.SatAdd(f.Shadows, b)
			}
		}
	}
	for _, ps := range c.Spec.Programs {
		f.Code = kmem.SatAdd(f.Code, kmem.ProgramBytes(ps))
	}
	return f
}

// checkOneLoad refuses an object whose one load is past the budget
// before any is made: Choose probes it (markLargeArrays) and a run loads
// it at least once.
func (s Settings) checkOneLoad(c Chosen) error {
	f := c.Footprint()
	total := f.Copy()
	if total <= s.KernelMemory() {
		return nil
	}
	for i := range f.Maps {
		f.Maps[i].Shared = false
	}
	largest, ok := f.Largest(1)
	if !ok {
		return fmt.Errorf("%w: the programs of %s take %s of kernel memory, past the budget of %s: raise it with %s SIZE",
			ErrKernelMemory, c.Object.Name, kmem.FormatSize(total), kmem.FormatSize(s.KernelMemory()), kmem.Flag)
	}
	return kmem.BudgetError(s.KernelMemory(), total, largest, fmt.Sprintf("a load of %s", c.Info.Name))
}
