package worst

import (
	"time"

	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Result is what a search found: the costliest distinct paths, and how
// hard it looked.
type Result struct {
	Object  string
	Program testrun.ProgramInfo
	// Notes say what xdpmicro changed of the object to load it.
	Notes   []string
	Seed    uint64
	Without Guidance
	Tried   uint64 // packets run
	Refused uint64 // packets the kernel would not run
	Paths   int    // distinct block paths seen
	Elapsed time.Duration
	Blocks  int // basic blocks of the program
	Reached int // blocks some packet reached
	// Constants and Keys are the values taken from the program's jumps
	// and its maps' keys (zero when that guidance is off).
	Constants, Keys int
	Partial         bool // cancelled before its budget was spent
	// Top are the costliest distinct paths, costliest first: one packet
	// each, the first found.
	Top []Found
	// blocks are the program's basic blocks, to explain paths.
	blocks []blockInfo
}

// Rate is the packets run per second.
func (r *Result) Rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Tried) / r.Elapsed.Seconds()
}

// Found is one distinct path and the first packet that took it.
type Found struct {
	Frame   []byte
	Context packets.Context
	// Seed is the case the packet descends from.
	Seed         string
	Instructions uint64
	Return       uint32
	Action       string
	// Counts are the runs of each basic block.
	Counts []uint64
	// Tried says when it was found: as the Tried-th packet run.
	Tried uint64
}

func (s *searcher) result() *Result {
	c := s.c
	r := &Result{
		Object: s.o.Object.Name, Program: c.Info, Notes: c.Notes, Seed: s.o.Seed, Without: s.o.Without,
		Tried: s.tried, Refused: s.refused, Paths: len(s.paths), Elapsed: time.Since(s.start),
		Blocks: len(c.Blocks), Reached: len(s.reached),
		Constants: s.nConstants, Keys: s.nKeys,
		blocks: blockInfos(c.Instructions, c.Blocks),
	}
	for _, e := range s.top {
		seed := s.o.Seeds[e.pkt.seed]
		r.Top = append(r.Top, Found{
			Frame: e.frame, Context: seed.Context, Seed: seed.Name, Instructions: e.insns,
			Return: e.ret, Action: object.ActionName(c.Info.Type, e.ret), Counts: e.counts, Tried: e.tried,
		})
	}
	return r
}
