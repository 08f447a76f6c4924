package main

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Help lists a command's flags by topic, as registered, each with its
// placeholder and its default in words where the value alone says
// little, once, and wrapped to a width a terminal shows.
func TestHelpFlags(t *testing.T) {
	code, stdout, _ := runCLI("bench", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	_, flags, ok := strings.Cut(stdout, "\nFlags:\n")
	if !ok {
		t.Fatalf("no flags in help:\n%s", stdout)
	}
	for _, line := range strings.Split(flags, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("help line of %d columns: %q", n, line)
		}
	}
	entries, order := helpEntries(flags)
	text := strings.Join(strings.Fields(flags), " ")
	for _, want := range []string{
		"--program NAME", "(default all the object's measurable ones)",
		"--repeat N", "(default 0: chosen so that a sample lasts about 200µs, 60µs with --before/--after)",
		"--after OBJECT", "(default OBJECT)",
		"--output FILE", "--pcap-limit N", "(default 1000)",
		`(default "linear")`, "(default 2s, or 5s with --before/--after)", "(default auto)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("bench help lacks %q", want)
		}
	}
	// A described default replaces the value's: no second "(default 0)".
	for _, flag := range []string{"repeat", "samples", "placements", "pcap-limit", "after", "class", "fail-on"} {
		if n := strings.Count(entries[flag], "(default"); n != 1 {
			t.Errorf("--%s shows %d defaults: %s", flag, n, entries[flag])
		}
	}
	// By topic: what to run, the cases, sampling, output, comparisons.
	last := -1
	for _, flag := range []string{"program", "class", "sampling", "cpu", "format", "before", "fail-on"} {
		at := slices.Index(order, flag)
		if at < last {
			t.Errorf("--%s is listed out of its topic's order: %v", flag, order)
		}
		last = at
	}

	// compare describes its own default where bench's would be wrong.
	_, stdout, _ = runCLI("compare", "--help")
	if text := strings.Join(strings.Fields(stdout), " "); !strings.Contains(text, "(default the new file's, warning if they differ)") {
		t.Errorf("compare help does not say whose estimator it compares by:\n%s", stdout)
	}
}

// helpEntries splits help's flag list into each flag's text, by name,
// and the names in the order listed.
func helpEntries(flags string) (map[string]string, []string) {
	entries := map[string]string{}
	var order []string
	for _, line := range strings.Split(flags, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(line)-len(strings.TrimLeft(line, " ")) <= 6 && strings.HasPrefix(fields[0], "-") {
			name := fields[0]
			if !strings.HasPrefix(name, "--") && len(fields) > 1 { // -o, --output
				name = fields[1]
			}
			order = append(order, strings.TrimPrefix(name, "--"))
		}
		if len(order) > 0 {
			entries[order[len(order)-1]] += strings.Join(fields, " ") + " "
		}
	}
	return entries, order
}
