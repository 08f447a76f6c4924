package results

import (
	"cmp"
	"slices"
)

// The saved schema of `xdpmicro worst`, filled by package internal/worst.

// Worst is what `xdpmicro worst` found: the search, and the costliest
// packets it found ranked by instructions and, once timed, by time.
type Worst struct {
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
	Timed         bool         `json:"timed"`
	TimingPartial bool         `json:"timing_partial,omitempty"`
	Estimator     string       `json:"estimator,omitempty"`
	Environment   *Environment `json:"environment,omitempty"`
	Notes         []string     `json:"notes,omitempty"`
	// Packets are the costliest distinct paths, costliest in
	// instructions first.
	Packets []WorstPacket `json:"packets"`
}

// WorstPacket is one distinct path and its packet.
type WorstPacket struct {
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
	Time    *Estimate `json:"time_ns,omitempty"`
	Net     *Estimate `json:"net_ns,omitempty"`
	Effects []string  `json:"map_effects,omitempty"`
	// Costly says what it does more than Versus, the packet ranked after
	// it whose path is most like its own.
	Costly []WorstReason `json:"costly_because,omitempty"`
	Versus string        `json:"versus,omitempty"`
}

// WorstReason is one thing a packet does that cheaper packets do not: reach a
// line (Cheaper 0), or run it more times.
type WorstReason struct {
	// Line and Source are the line in the program's source and its text;
	// zero and empty without line information, and Block names the block
	// by its instructions instead. After says the code has no line of its
	// own (inlined, or the compiler's): Line is the last before it.
	File   string `json:"file,omitempty"`
	Line   uint32 `json:"line,omitempty"`
	After  bool   `json:"after_line,omitempty"`
	Source string `json:"source,omitempty"`
	Block  string `json:"block,omitempty"`
	// Count is how many times the packet ran it; Cheaper how many times
	// the cheaper packet it is compared with did (0: never).
	Count   uint64 `json:"count"`
	Cheaper uint64 `json:"cheaper"`
	// Instructions are what it costs more than the cheaper packets.
	Instructions uint64 `json:"extra_instructions"`
	// Calls are the helpers, kfuncs and functions called there: a helper
	// counts as one instruction, whatever it costs.
	Calls []string `json:"calls,omitempty"`
}

// Order is the order the packets are shown in: by time once timed, else
// by instructions; their indexes in Packets.
func (w *Worst) Order() []int {
	if w.Timed {
		return w.TimeOrder()
	}
	order := make([]int, len(w.Packets))
	for i := range order {
		order[i] = i
	}
	return order
}

// TimeOrder is the packets' indexes, costliest in time first; those not
// timed last, by instructions.
func (w *Worst) TimeOrder() []int {
	order := make([]int, len(w.Packets))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ta, oka := w.Packets[a].RankingTime()
		tb, okb := w.Packets[b].RankingTime()
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

// RankingTime is what ranks a packet by time: its time net of the floor,
// else its time; false when it has neither.
func (p WorstPacket) RankingTime() (float64, bool) {
	switch {
	case p.Net != nil:
		return p.Net.Point, true
	case p.Time != nil:
		return p.Time.Point, true
	}
	return 0, false
}
