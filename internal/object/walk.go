package object

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/internal/kmem"
)

// MaxWalkProcessed bounds VerifierWalk: the verifier's log at level 2
// takes about 100 to 400 bytes an instruction processed (a line, and the
// registers at branches), so a program it processed more often than
// this would take tens of MB of log, and is not walked.
const MaxWalkProcessed = 300_000

// The lines of the verifier's log at level 2 that stand for one
// instruction processed (kernel/bpf/verifier.c, do_check): the
// instruction itself ("12: (bf) r6 = r1"), or its state pruned as
// already seen ("12: safe", "from 9 to 12: safe").
var (
	walkedInsn = regexp.MustCompile(`(?m)^(\d+): (?:\([0-9a-f]{2}\)|safe\s*$)`)
	walkedJump = regexp.MustCompile(`(?m)^from \d+ to (\d+): safe\s*$`)
)

// VerifierWalk loads the named program of spec with the verifier's log at
// level 2, and counts how often the verifier processed each instruction,
// by raw offset (a 64-bit load takes two). The counts add up to the
// instructions processed, or an error says they do not. Nothing stays
// loaded.
func VerifierWalk(spec *ebpf.CollectionSpec, program string) (map[int]uint64, error) {
	return verifierWalk(spec, program, nil)
}

// VerifierWalk is VerifierWalk of l's program, its load taking the maps
// l shares with other loads of it (share.go) rather than copies: a
// comparison's walk of katran made a third 256 MiB ring beside the two
// builds', past the kernel memory budget.
func (l *Loaded) VerifierWalk() (map[int]uint64, error) {
	return verifierWalk(l.Spec, l.Info.Name, l.SharedMaps())
}

func verifierWalk(spec *ebpf.CollectionSpec, program string, shared map[string]*ebpf.Map) (map[int]uint64, error) {
	kmem.AwaitFreed()
	coll, err := ebpf.NewCollectionWithOptions(spec, ebpf.CollectionOptions{
		Programs:        ebpf.ProgramOptions{LogLevel: ebpf.LogLevelInstruction | ebpf.LogLevelStats},
		MapReplacements: shared,
	})
	if err != nil {
		return nil, fmt.Errorf("load with the verifier's log at level 2: %w", err)
	}
	defer coll.Close()
	return parseWalk(coll.Programs[program].VerifierLog)
}

// parseWalk counts the instructions a log at level 2 shows processed.
func parseWalk(log string) (map[int]uint64, error) {
	stats, err := parseVerifierLog(log)
	if err != nil {
		return nil, err
	}
	counts := map[int]uint64{}
	var sum uint64
	for _, re := range []*regexp.Regexp{walkedInsn, walkedJump} {
		for _, m := range re.FindAllStringSubmatch(log, -1) {
			i, err := strconv.Atoi(m[1])
			if err != nil {
				return nil, fmt.Errorf("the verifier's log: instruction %q: %w", m[1], err)
			}
			counts[i]++
			sum++
		}
	}
	if sum != stats.Processed {
		return nil, fmt.Errorf("the verifier's log shows %d instructions processed, its statistics %d: a format this kernel writes otherwise", sum, stats.Processed)
	}
	return counts, nil
}
