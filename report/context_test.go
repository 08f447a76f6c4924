package report

import (
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/engine"
	"github.com/xdpmicro/xdpmicro/internal/runfixture"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// A case run with a context says so, and what its program changed of it,
// in the table and the JSON; a case without says nothing of it.
func TestContextNotes(t *testing.T) {
	res := runfixture.SampleResult(t)
	ctx, err := packets.ParseContext("mark=0x2a,cb0=1")
	if err != nil {
		t.Fatal(err)
	}
	c := &res.Programs[0].Results[0]
	c.Context = ctx.String()
	c.ContextChanges = []results.ContextChange{{Field: "mark", In: 0x2a, Out: 0x2b}}
	r, err := engine.New(results.Settings{Confidence: 0.95, Resamples: 1000}, res, stats.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// The context asked for is the method; its change matters.
	table := rendered(t, r, Table)
	if !strings.Contains(table, "fizz: the program changed its context (mark 0x2a -> 0x2b)") || strings.Contains(table, "run with context") {
		t.Errorf("the default table lacks the context's change, or shows the context asked for:\n%s", table)
	}
	table = renderView(t, r, Table, View{Verbose: true})
	for _, want := range []string{"fizz: run with context mark=0x2a,cb[0]=1", "fizz: the program changed its context (mark 0x2a -> 0x2b)"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "short: run with context") {
		t.Error("a case without context has a context note")
	}
	js := rendered(t, r, JSON)
	if !strings.Contains(js, `"context": "mark=0x2a,cb[0]=1"`) || !strings.Contains(js, `"field": "mark"`) || strings.Count(js, `"context"`) != 1 {
		t.Errorf("JSON lacks the context or its changes, or has them twice:\n%s", js)
	}
}
