package engine

import (
	"cmp"

	"fmt"

	"github.com/xdpmicro/xdpmicro/results"

	"github.com/xdpmicro/xdpmicro/testrun"
)

// Live frames. A test run returns the program's action without carrying
// it out; with live frames (Linux 5.18) the kernel transmits, redirects or
// passes each frame to the stack, as received on a veth pair of the run's
// own. Measuring the program both ways in the same rounds, each over its
// own loads, makes the difference what the action costs, with an
// interval, judged as a comparison is.

// asLive makes the one program two: its plain test run, then the same
// program with live frames, compared.
func asLive(o Config) Config {
	plain := *o.measured()
	live := plain
	live.Live, live.Label = true, "live"
	batch := o.LiveBatch
	if batch == 0 {
		batch = testrun.DefaultBatch
	}
	live.Object.Name = fmt.Sprintf("%s, live frames (batches of %d, on a veth)", plain.Object.Name, batch)
	plain.Label = "test run"
	o.Programs = []testrun.Program{plain, live}
	o.Compared = true
	return o
}

// markLive says in the report that its comparison is the live one.
func (o *runner) markLive(rep *results.Run) {
	markLiveAs(rep, results.Live{Batch: cmp.Or(o.LiveBatch, testrun.DefaultBatch), Target: "veth pair in a network namespace of its own"})
}

// markLiveAs says in the report that its comparison is the live one, as
// live says the frames ran: a run's own, or a saved run's analysed again.
func markLiveAs(rep *results.Run, live results.Live) {
	c := rep.Comparison
	c.Live = &live
	for i := range c.Cases {
		after := c.Cases[i].After
		c.Cases[i].Live = &after
		// The action is the plain test run's, the first program: the
		// measured one (the last) carried it out.
		if cases := rep.Programs[0].Results; i < len(cases) {
			c.Cases[i].Action = cases[i].Action
		}
	}
}
