package packets

import (
	"fmt"
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
)

// ErrState reports a map state that is not one.
var ErrState = badinput.New("bad map state")

// ParseState checks a map state as a user writes it (steady or first)
// and returns it in its one spelling.
func ParseState(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == StateSteady || s == StateFirst {
		return s, nil
	}
	return "", fmt.Errorf("%w: %q: want steady or first", ErrState, s)
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
