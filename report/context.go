package report

import (
	"fmt"
	"strings"
)

// contextNotes say what context a case was run with, and what its program
// changed of it.
func contextNotes(c Case) []string {
	var out []string
	if c.Context != "" {
		out = append(out, fmt.Sprintf("%s: run with context %s", c.Name, c.Context))
	}
	if len(c.ContextChanges) > 0 {
		changes := make([]string, len(c.ContextChanges))
		for i, ch := range c.ContextChanges {
			changes[i] = ch.String()
		}
		out = append(out, fmt.Sprintf("%s: the program changed its context (%s): the kernel runs a call's repeats on one context",
			c.Name, strings.Join(changes, ", ")))
	}
	return out
}
