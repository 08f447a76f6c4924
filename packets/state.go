package packets

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// Map states a case's runs can be timed in. BPF_PROG_TEST_RUN runs every
// repeat of a call on the same maps: a stateful program (an LRU flow
// table, conntrack) takes its first-run path once, a miss and an insert,
// and its steady path, a hit, from then on.
const (
	// StateSteady: the maps as the case's own earlier runs left them,
	// after a warm-up; what repeats of one call give.
	StateSteady = "steady"
	// StateFirst: every run sees the maps as they were before the first:
	// a new flow, a miss, a cold table.
	StateFirst = "first"
	// StateFlowsPrefix starts "flows=N": each run sees the next of N
	// flows in turn, its source address and port stepped (Flows), as a
	// stream of flows would; misses and hits as they come.
	StateFlowsPrefix = "flows="
)

// MaxFlows bounds N in flows=N: 2^24, the sources the kernel's own XDP
// load-balancer benchmark draws, more than a load balancer's LRU holds
// (katran's 100,000 a CPU), so that a stream of new flows fills the table
// and evicts. Nothing is kept per flow (FlowSet), so N costs no memory.
const MaxFlows = 1 << 24

// ErrState reports a map state that is not one.
var ErrState = badinput.New("bad map state")

// ParseState checks a map state as a user writes it (steady, first or
// flows=N) and returns it in its one spelling.
func ParseState(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == StateSteady || s == StateFirst:
		return s, nil
	case strings.HasPrefix(s, StateFlowsPrefix):
		n, err := strconv.Atoi(strings.TrimPrefix(s, StateFlowsPrefix))
		if err != nil || n < 2 || n > MaxFlows {
			return "", fmt.Errorf("%w: %q: flows=N wants N in 2..%d (2^24)", ErrState, s, MaxFlows)
		}
		return StateFlowsPrefix + strconv.Itoa(n), nil
	}
	return "", fmt.Errorf("%w: %q: want steady, first or flows=N", ErrState, s)
}

// FlowsOf is N of a flows=N state, 0 for any other.
func FlowsOf(state string) int {
	rest, ok := strings.CutPrefix(state, StateFlowsPrefix)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return 0
	}
	return n
}

// ParseStates reads a comma list of map states (--state), each once.
func ParseStates(list string) ([]string, error) {
	var states []string
	for _, s := range strings.Split(list, ",") {
		st, err := ParseState(s)
		if err != nil {
			return nil, err
		}
		for _, seen := range states {
			if seen == st {
				return nil, fmt.Errorf("%w: %q is listed twice", ErrState, st)
			}
		}
		states = append(states, st)
	}
	return states, nil
}

// InStates gives every case once per state, named name@state, with its
// state set. A case whose packet file gave it a state keeps it, and its
// name: the file said what it is. One state of none given names nothing
// anew: a run of today's cases in one state keeps their names.
func InStates(cases []Case, states []string) []Case {
	if len(states) == 0 {
		return cases
	}
	var out []Case
	for _, c := range cases {
		if c.State != "" {
			out = append(out, c)
			continue
		}
		for _, st := range states {
			k := c
			k.State = st
			if len(states) > 1 || st != StateSteady {
				k.Name = c.Name + "@" + st
			}
			out = append(out, k)
		}
	}
	return out
}
