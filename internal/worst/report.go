package worst

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// Report is what `xdpmicro worst` shows: the search, and the costliest
// packets it found ranked by instructions and, once timed, by time. What
// is saved is results.Worst; the rest is what explaining and timing the
// packets again takes.
type Report struct {
	results.Worst
	result *Result
	// found holds, by packet name, what the saved packet gives only as
	// text: its frame and context, and the blocks it ran.
	found map[string]found
}

// Packet is one distinct path and its packet, as results saves it.
type Packet = results.WorstPacket

// found is a packet as the search found it.
type found struct {
	frame  []byte
	ctx    packets.Context
	counts []uint64
}

// NewReport is the search's result as a report, untimed.
func NewReport(r *Result) *Report {
	rep := &Report{Worst: results.Worst{
		Object: r.Object, Program: r.Program.Name, Type: r.Program.Type.String(), Seed: r.Seed,
		Tried: r.Tried, Refused: r.Refused, Paths: r.Paths, Seconds: r.Elapsed.Seconds(), Rate: r.Rate(),
		Blocks: r.Blocks, Reached: r.Reached, Constants: r.Constants, Keys: r.Keys, Partial: r.Partial,
		Notes: r.Notes,
	}, result: r, found: map[string]found{}}
	for i, f := range r.Top {
		rep.Packets = append(rep.Packets, Packet{
			Name: fmt.Sprintf("worst-%d", i+1), Summary: packets.Summarize(f.Frame), Frame: hex.EncodeToString(f.Frame),
			Length: len(f.Frame), Context: f.Context.String(), Seed: f.Seed, Instructions: f.Instructions,
			Action: f.Action, ByInstructions: i + 1,
		})
		rep.found[rep.Packets[i].Name] = found{frame: f.Frame, ctx: f.Context, counts: f.Counts}
	}
	rep.explain()
	return rep
}

// Cases are the packets as packet cases, to time them or write them.
func (r *Report) Cases() []packets.Case {
	cases := make([]packets.Case, len(r.Packets))
	for i, p := range r.Packets {
		f := r.found[p.Name]
		cases[i] = packets.Case{Name: p.Name, Summary: p.Summary, Frame: f.frame, Context: f.ctx}
	}
	return cases
}

// AddTimes takes the packets' times, actions and map effects from a run
// of bench on Cases, ranks them by time, and says what makes each costly
// in that order.
func (r *Report) AddTimes(rep *results.Run) {
	if rep.Measured() == nil {
		return
	}
	r.Timed, r.TimingPartial, r.Environment = true, rep.Partial, &rep.Environment
	est := rep.Settings.ChosenEstimator()
	r.Estimator = string(est)
	for _, n := range rep.Environment.Notes {
		if !slices.Contains(r.Notes, n) { // loading notes are the search's too
			r.Notes = append(r.Notes, n)
		}
	}
	for _, c := range rep.Measured().Results {
		i := slices.IndexFunc(r.Packets, func(p Packet) bool { return p.Name == c.Name })
		if i < 0 {
			continue
		}
		p := &r.Packets[i]
		p.Action, p.Effects = c.Action, nil
		for _, e := range c.Effects {
			p.Effects = append(p.Effects, strings.TrimPrefix(e.String(), "map "))
		}
		if c.Instructions != 0 && c.Instructions != p.Instructions {
			r.Notes = append(r.Notes, fmt.Sprintf("%s ran %d instructions when timed, on maps as --map-init left them, and %d in the search, "+
				"after the packets before it", p.Name, c.Instructions, p.Instructions))
		}
		if c.Stats != nil {
			t := c.Stats.Of(est)
			p.Time = &t
		}
		p.Net = c.Net
	}
	r.rankByTime()
	r.explain()
}

func (r *Report) rankByTime() {
	for rank, i := range r.TimeOrder() {
		if _, ok := r.Packets[i].RankingTime(); ok {
			r.Packets[i].ByTime = rank + 1
		}
	}
}

// explain says what makes each packet costlier than those shown after it.
func (r *Report) explain() {
	if r.result == nil {
		return
	}
	order := r.Order()
	counts := make([][]uint64, len(order))
	for k, i := range order {
		counts[k] = r.found[r.Packets[i].Name].counts
	}
	reasons, versus := r.result.Explain(counts)
	for k, i := range order {
		r.Packets[i].Costly, r.Packets[i].Versus = reasons[k], ""
		if versus[k] >= 0 {
			r.Packets[i].Versus = r.Packets[order[versus[k]]].Name
		}
	}
}
