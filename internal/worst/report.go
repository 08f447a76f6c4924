package worst

import (
	"cmp"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
)

// Report is what `xdpmicro worst` shows: the search, and the costliest
// packets it found ranked by instructions and, once timed, by time.
type Report struct {
	Object  string `json:"object"`
	Program string `json:"program"`
	Type    string `json:"type"`
	Seed    uint64 `json:"seed"`
	// Tried are the packets run, in Seconds; Rate a second.
	Tried   uint64  `json:"tried"`
	Refused uint64  `json:"refused,omitempty"`
	Paths   int     `json:"distinct_paths"`
	Seconds float64 `json:"search_seconds"`
	Rate    float64 `json:"candidates_per_second"`
	Blocks  int     `json:"blocks"`
	Reached int     `json:"blocks_reached"`
	// Constants and Keys are the values the search took from the
	// program's jumps and its maps' keys.
	Constants int  `json:"dictionary_constants"`
	Keys      int  `json:"dictionary_keys"`
	Partial   bool `json:"partial,omitempty"` // the search was interrupted
	// Timed says the packets were timed; TimingPartial that the timing
	// was interrupted. Estimator is the time's.
	Timed         bool                 `json:"timed"`
	TimingPartial bool                 `json:"timing_partial,omitempty"`
	Estimator     string               `json:"estimator,omitempty"`
	Environment   *results.Environment `json:"environment,omitempty"`
	Notes         []string             `json:"notes,omitempty"`
	// Packets are the costliest distinct paths, costliest in
	// instructions first.
	Packets []Packet `json:"packets"`
	result  *Result
}

// Packet is one distinct path and its packet.
type Packet struct {
	// Name is the packet's case name, worst-N by instructions.
	Name    string `json:"name"`
	Summary string `json:"summary"`
	Frame   string `json:"frame_hex"`
	Length  int    `json:"frame_length"`
	Context string `json:"context,omitempty"`
	Seed    string `json:"seed"` // the case it descends from
	// Instructions are those the search counted; Action its return.
	Instructions uint64 `json:"instructions"`
	Action       string `json:"action"`
	// ByInstructions and ByTime are its ranks, 1 the costliest; ByTime
	// 0 when untimed.
	ByInstructions int `json:"rank_by_instructions"`
	ByTime         int `json:"rank_by_time,omitempty"`
	// Time is the estimate of a run, Net the same net of the floor.
	Time    *results.Estimate `json:"time_ns,omitempty"`
	Net     *results.Estimate `json:"net_ns,omitempty"`
	Effects []string          `json:"map_effects,omitempty"`
	// Costly says what it does more than Versus, the packet ranked after
	// it whose path is most like its own.
	Costly []Reason `json:"costly_because,omitempty"`
	Versus string   `json:"versus,omitempty"`
	frame  []byte
	ctx    packets.Context
	counts []uint64
}

// NewReport is the search's result as a report, untimed.
func NewReport(r *Result) *Report {
	rep := &Report{
		Object: r.Object, Program: r.Program.Name, Type: r.Program.Type.String(), Seed: r.Seed,
		Tried: r.Tried, Refused: r.Refused, Paths: r.Paths, Seconds: r.Elapsed.Seconds(), Rate: r.Rate(),
		Blocks: r.Blocks, Reached: r.Reached, Constants: r.Constants, Keys: r.Keys, Partial: r.Partial,
		Notes: r.Notes, result: r,
	}
	for i, f := range r.Top {
		rep.Packets = append(rep.Packets, Packet{
			Name: fmt.Sprintf("worst-%d", i+1), Summary: packets.Summarize(f.Frame), Frame: hex.EncodeToString(f.Frame),
			Length: len(f.Frame), Context: f.Context.String(), Seed: f.Seed, Instructions: f.Instructions,
			Action: f.Action, ByInstructions: i + 1, frame: f.Frame, ctx: f.Context, counts: f.Counts,
		})
	}
	rep.explain()
	return rep
}

// Cases are the packets as packet cases, to time them or write them.
func (r *Report) Cases() []packets.Case {
	cases := make([]packets.Case, len(r.Packets))
	for i, p := range r.Packets {
		cases[i] = packets.Case{Name: p.Name, Summary: p.Summary, Frame: p.frame, Context: p.ctx}
	}
	return cases
}

// AddTimes takes the packets' times, actions and map effects from a run
// of bench on Cases, ranks them by time, and says what makes each costly
// in that order.
func (r *Report) AddTimes(rep *results.Report) {
	if len(rep.Programs) == 0 {
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
	for _, c := range rep.Programs[0].Results {
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

// timeOf is what ranks a packet by time: its time net of the floor, else
// its time; false when it has neither.
func (p Packet) timeOf() (float64, bool) {
	switch {
	case p.Net != nil:
		return p.Net.Point, true
	case p.Time != nil:
		return p.Time.Point, true
	}
	return 0, false
}

func (r *Report) rankByTime() {
	order := r.byTime()
	for rank, i := range order {
		if _, ok := r.Packets[i].timeOf(); ok {
			r.Packets[i].ByTime = rank + 1
		}
	}
}

// byTime are the packets' indexes, costliest in time first; those not
// timed last, by instructions.
func (r *Report) byTime() []int {
	order := make([]int, len(r.Packets))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ta, oka := r.Packets[a].timeOf()
		tb, okb := r.Packets[b].timeOf()
		switch {
		case oka && okb:
			return cmp.Compare(tb, ta)
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		}
		return 0
	})
	return order
}

// Order is the order packets are shown in: by time once timed, else by
// instructions.
func (r *Report) Order() []int {
	if r.Timed {
		return r.byTime()
	}
	order := make([]int, len(r.Packets))
	for i := range order {
		order[i] = i
	}
	return order
}

// explain says what makes each packet costlier than those shown after it.
func (r *Report) explain() {
	if r.result == nil {
		return
	}
	order := r.Order()
	counts := make([][]uint64, len(order))
	for k, i := range order {
		counts[k] = r.Packets[i].counts
	}
	reasons, versus := r.result.Explain(counts)
	for k, i := range order {
		r.Packets[i].Costly, r.Packets[i].Versus = reasons[k], ""
		if versus[k] >= 0 {
			r.Packets[i].Versus = r.Packets[order[versus[k]]].Name
		}
	}
}
