package insncount

import "github.com/cilium/ebpf"

// keepTailCallTargets puts back into the copy cs, unchanged, the programs
// that spec's program arrays hold from the start (an object's static
// initialisers): loading a program array needs them. A tail call into
// one runs it uncounted, as the package says.
func keepTailCallTargets(spec, cs *ebpf.CollectionSpec) {
	for _, m := range cs.Maps {
		if m.Type != ebpf.ProgramArray {
			continue
		}
		for _, kv := range m.Contents {
			name, ok := kv.Value.(string)
			if !ok || cs.Programs[name] != nil || spec.Programs[name] == nil {
				continue
			}
			cs.Programs[name] = spec.Programs[name].Copy()
		}
	}
}
