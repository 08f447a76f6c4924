package report

import (
	"strings"

	"github.com/xdpmicro/xdpmicro/results"
)

// contextNotes say what context a case was run with, which it was asked
// to, and what its program changed of it, which matters (see lines.go).
func contextNotes(c results.Case) []note {
	var out []note
	if c.Context != "" {
		out = append(out, method("%s: run with context %s", c.Name, c.Context))
	}
	if len(c.ContextChanges) > 0 {
		changes := make([]string, len(c.ContextChanges))
		for i, ch := range c.ContextChanges {
			changes[i] = ch.String()
		}
		out = append(out, mattering("%s: the program changed its context (%s): the kernel runs a call's repeats on one context",
			c.Name, strings.Join(changes, ", ")))
	}
	return out
}
