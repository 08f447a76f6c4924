package testrun

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/insncount"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
)

// replayChunk is how many runs of a flows replay one call makes: a call
// of 2^16 runs of a miss path takes tens of ms, so that a cancelled run
// stops soon and a signal spoils little.
const replayChunk = 1 << 16

// replayAttempts bounds the replays a signal may cut short: a call that
// a signal interrupts ran an unknown share of its flows.
const replayAttempts = 3

// flowRunner runs a flows=N case's flows in turn through the
// instrumented copy: through a restorer of its own, which makes each
// flow from its index as the timed runs' does, in calls of replayChunk
// runs; where none loads (a program that is not XDP), a call a flow.
// A call a flow took 5.6 µs here, 3 minutes for the two passes of 2^24.
type flowRunner struct {
	twin *object.Loaded
	c    CaseResult
	r    *restorer
	buf  []byte
}

func newFlowRunner(twin *object.Loaded, c CaseResult) *flowRunner {
	fr := &flowRunner{twin: twin, c: c}
	if twin.Info.Type != ebpf.XDP {
		return fr
	}
	// As the case's own restorer: the bytes written back where the
	// program changes them, the ends moved back where it moves them.
	write := []bool{c.Output != nil}
	move := []bool{c.Output != nil && len(c.Output) != len(c.Case.Frame)}
	r, err := newRestorer(&program{Loaded: twin}, []packets.Case{c.Case}, move, write, []*packets.FlowSet{c.flows})
	if err == nil {
		if err = r.choose(0); err != nil {
			r.Close()
		}
	}
	if err == nil {
		fr.r = r
	}
	return fr
}

func (fr *flowRunner) close() {
	if fr.r != nil {
		fr.r.Close()
	}
}

// pass runs every flow once, in turn from the first. interrupted says a
// signal cut a call short: the pass is spoiled.
func (fr *flowRunner) pass(ctx context.Context) (interrupted bool, err error) {
	n := fr.c.flows.N()
	if fr.r != nil {
		if err := fr.r.setNextFlow(0, 0); err != nil {
			return false, err
		}
	}
	for done := 0; done < n; {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		k := min(n-done, replayChunk)
		if fr.r == nil {
			for i := done; i < done+k; i++ {
				fr.buf = fr.c.flows.Into(fr.buf, i)
				if _, _, _, err := fr.twin.RunOnce(fr.buf, fr.c.ctxIn); err != nil {
					return false, fmt.Errorf("the instrumented copy: %w", err)
				}
			}
		} else if _, _, err := testRun(fr.r.Prog.FD(), fr.c.Case.Frame, fr.c.ctxIn, uint32(k)); errors.Is(err, unix.EINTR) {
			return true, nil
		} else if err != nil {
			return false, fmt.Errorf("the instrumented copy through a restorer: %w", fr.r.RunError(err, fr.c.Case.Frame, fr.c.ctxIn))
		}
		done += k
	}
	return false, nil
}

// replayFlows runs a flows=N case's flows in turn through the
// instrumented copy twice, from the maps as loaded and back to them,
// counting the runs that took a new flow's path: one that runs a block
// the case's first run ran and its later run did not. Without such a
// block no run is told a miss.
func replayFlows(ctx context.Context, twin *object.Loaded, counted *insncount.Program, c CaseResult, first, later []uint64) (*FlowReplay, error) {
	missBlock := -1
	for b := range first {
		if first[b] > 0 && later[b] == 0 {
			missBlock = b
			break
		}
	}
	before, err := twin.Snapshot()
	if err != nil {
		return nil, err
	}
	fr := newFlowRunner(twin, c)
	defer fr.close()
	for range replayAttempts {
		r, interrupted, err := fr.replay(ctx, counted, missBlock, first)
		if err != nil {
			return nil, err
		}
		if err := twin.PutBack(before); err != nil {
			return nil, err
		}
		if !interrupted {
			return r, nil
		}
	}
	return nil, fmt.Errorf("the replay of %d flows was cut short by signals %d times", c.flows.N(), replayAttempts)
}

// replay is replayFlows' two passes, from the maps as they are.
func (fr *flowRunner) replay(ctx context.Context, counted *insncount.Program, missBlock int, first []uint64) (*FlowReplay, bool, error) {
	r := &FlowReplay{Flows: fr.c.flows.N()}
	for pass := range 2 {
		if err := counted.Reset(); err != nil {
			return nil, false, err
		}
		interrupted, err := fr.pass(ctx)
		if err != nil || interrupted {
			return nil, interrupted, err
		}
		counts, err := counted.Counts(nil)
		if err != nil {
			return nil, false, err
		}
		r.Instructions[pass] = counted.Rewrite.Total(counts)
		if missBlock >= 0 {
			r.Misses[pass] = int(counts[missBlock] / first[missBlock])
		}
	}
	return r, false, nil
}

// setNextFlow makes case ci's next run through the restorer its flow i.
func (r *restorer) setNextFlow(ci int, i uint32) error {
	frames := r.Maps()["frames"]
	value := make([]byte, frames.ValueSize())
	if err := frames.Lookup(uint32(ci), value); err != nil {
		return fmt.Errorf("restorer: case %d: %w", ci, err)
	}
	binary.NativeEndian.PutUint32(value[16:], i) // struct frame's next
	if err := frames.Put(uint32(ci), value); err != nil {
		return fmt.Errorf("restorer: case %d: %w", ci, err)
	}
	return nil
}
