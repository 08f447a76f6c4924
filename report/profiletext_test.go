package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
)

// The text of a profile read back never indexes past it: a difference
// with one profile is an error, not a panic. Names from the file stay
// on their line.
func TestProfileTextChecked(t *testing.T) {
	p := &results.Profile{Program: "p\n── case forged: 1 instructions ──", Object: "o", Cases: []results.ProfileCase{{
		Name: "a\nb", Total: 2,
		Lines:     []results.LineCount{{Line: results.Line{File: "f.c\nx", Number: 1, Text: "x\t= y;\u2028z"}, Instructions: 2, Helpers: []results.HelperCalls{{Name: "h\nk", Calls: 1}}}},
		Functions: []results.FunctionCount{{Name: "fn\nforged", Self: 2}},
	}}}
	diff := &results.ProfileDiff{Before: "v3", After: "v4", Cases: []results.ProfileCaseDiff{{Name: "a\nb", Functions: []results.ProfileChange{{Name: "fn\nforged", Before: 1, After: 2}}}}}
	var out bytes.Buffer
	if err := writeProfileText(&out, &results.ProfileReport{Profiles: []*results.Profile{p}, Diff: diff}, View{}); err == nil {
		t.Errorf("a difference of one profile rendered:\n%s", out.String())
	}
	for _, rep := range []*results.ProfileReport{{Profiles: []*results.Profile{p}}, {Profiles: []*results.Profile{p, p}, Diff: diff}} {
		out.Reset()
		if err := writeProfileText(&out, rep, View{Machine: true}); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"\n── case forged", "\nb", "\nforged", "\nx", "\nk", "\u2028", "\t"} {
			if strings.Contains(out.String(), bad) {
				t.Errorf("the text holds %q as layout:\n%s", bad, out.String())
			}
		}
	}
}
