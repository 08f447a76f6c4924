package packets

import (
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// The limits of a selection of cases. Whatever the files given, reading
// them holds at most MaxCaseFile bytes of a case file and its YAML nodes
// (maxNodes of them: about 35 MB at worst), or one packet of a capture at
// a time (internal/capture.MaxCapture), and then the cases kept: at most
// MaxCases of them, MaxFrameBytes of frames together.
const (
	// MaxCases bounds the cases of a selection, after padding to sizes.
	// Every case is sampled in every round, on every load of every
	// program, and each keeps its figures in the report of every load:
	// a thousand cases of bench's 16 loads, ten rounds each, took 34 s
	// and 2.1 GB here, and wrote 104 MB of JSON.
	MaxCases = 1000
	// MaxFrameBytes bounds the bytes of all the cases' frames together:
	// a thousand frames of 4 KiB, more than XDP's test run takes, or 16
	// of the largest a capture holds. Every frame is kept, in hex, in the
	// report of every load.
	MaxFrameBytes = 4 << 20
	// MaxCaseFile bounds a YAML or JSON case file's size: room for the
	// hex of MaxFrameBytes of frames, and comments.
	MaxCaseFile = 16 << 20
	// MaxCaptureFile bounds a capture file's size, as any other input's.
	MaxCaptureFile = 256 << 20
	// DefaultPcapLimit is how many distinct packets of a capture are
	// kept when no limit is given: as many as a selection may hold.
	DefaultPcapLimit = MaxCases
	// maxNodes bounds a case file's YAML nodes as yamlNodes counts them:
	// yaml.v3 builds every node of a document, 250 to 350 bytes each,
	// before a case is read, and 40 MB of aliases made 2.1 GB of them.
	// A case of a frame counts 10, one of layers 20 to 60 (the commented
	// example's), so that MaxCases cases fit.
	maxNodes = 100_000
)

// ErrLimit is wrapped by every error of a selection beyond the limits.
var ErrLimit = badinput.New("beyond the packet limits")

// tally adds up cases against MaxCases and MaxFrameBytes.
type tally struct {
	cases, bytes int
}

// add counts cs, or says which limit they pass.
func (t *tally) add(cs ...Case) error {
	for _, c := range cs {
		t.cases++
		t.bytes += len(c.Frame)
	}
	switch {
	case t.cases > MaxCases:
		return fmt.Errorf("%w: more than %d cases", ErrLimit, MaxCases)
	case t.bytes > MaxFrameBytes:
		return fmt.Errorf("%w: more than %d MiB of frames", ErrLimit, MaxFrameBytes>>20)
	}
	return nil
}

// fits says whether c fits beside what was counted.
func (t tally) fits(c Case) bool {
	return t.cases+1 <= MaxCases && t.bytes+len(c.Frame) <= MaxFrameBytes
}
