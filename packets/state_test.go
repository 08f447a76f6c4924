package packets

import (
	"errors"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

func TestParseStates(t *testing.T) {
	got, err := ParseStates(" First,steady")
	if err != nil || strings.Join(got, ",") != "first,steady" {
		t.Errorf("got %q, %v", got, err)
	}
	for _, bad := range []string{"", "cold", "first,first", "flows=1", "flows=x", "flows=16777217"} {
		if _, err := ParseStates(bad); !errors.Is(err, ErrState) || !errors.Is(err, badinput.Err) {
			t.Errorf("%q: %v, want a bad map state", bad, err)
		}
	}
	// Up to 2^24 flows, past a load balancer's LRU; the refusal says so.
	if got, err := ParseStates("flows=16777216,flows=100000"); err != nil || strings.Join(got, ",") != "flows=16777216,flows=100000" {
		t.Errorf("2^24 and 100000 flows: %q, %v", got, err)
	}
	if _, err := ParseState("flows=16777217"); err == nil || !strings.Contains(err.Error(), "flows=N wants N in 2..16777216 (2^24)") {
		t.Errorf("2^24+1 flows: %v, want the bounds", err)
	}
}

// Each case once per state, named for it; one steady state names
// nothing anew; a case with its own state keeps it and its name.
func TestInStates(t *testing.T) {
	cases := []Case{{Name: "a"}, {Name: "b", State: StateFirst}}
	names := func(cs []Case) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name+"="+c.State)
		}
		return strings.Join(out, " ")
	}
	if got := names(InStates(cases, []string{StateFirst, StateSteady})); got != "a@first=first a@steady=steady b=first" {
		t.Errorf("two states: %s", got)
	}
	if got := names(InStates(cases, []string{StateSteady})); got != "a=steady b=first" {
		t.Errorf("steady: %s", got)
	}
	if got := names(InStates(cases, nil)); got != "a= b=first" {
		t.Errorf("none: %s", got)
	}
	twice := InStates(InStates(cases, []string{StateFirst, StateSteady}), []string{StateFirst, StateSteady})
	if got := names(twice); got != "a@first=first a@steady=steady b=first" {
		t.Errorf("expanded twice: %s", got)
	}
}

// A packet file's state: key sets the case's; a bad one is refused with
// its line.
func TestFileState(t *testing.T) {
	cases, err := ParseFile("p.yaml", []byte("cases:\n  - name: syn\n    state: first\n    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}\n    tcp: {src: 1, dst: 80, flags: [syn]}\n"))
	if err != nil || len(cases) != 1 || cases[0].State != StateFirst {
		t.Fatalf("%+v, %v", cases, err)
	}
	_, err = ParseFile("p.yaml", []byte("cases:\n  - name: syn\n    state: cold\n    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}\n"))
	if !errors.Is(err, ErrPacketFile) || !strings.Contains(err.Error(), "p.yaml:3") {
		t.Errorf("bad state: %v", err)
	}
}

// A case may give the frame its program must leave, by layers or whole,
// and the map effects its checking run must make.
func TestFileExpectations(t *testing.T) {
	file := `cases:
  - name: syn
    ipv4: {src: 192.0.2.1, dst: 198.51.100.1}
    tcp: {src: 1, dst: 80, flags: [syn]}
    output:
      ipv4: {src: 198.51.100.1, dst: 192.0.2.1}
      tcp: {src: 80, dst: 1, flags: [syn, ack]}
    effects: ["map flows: * set *", "map .bss: [0] set {hits: 0, misses: 1, drops: 0}"]
  - name: none
    frame: "020000000002 020000000001 0800 00"
    effects: []
`
	cases, err := ParseFile("p.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	syn, none := cases[0], cases[1]
	switch {
	case len(syn.ExpectOutput) < 54 || string(syn.ExpectOutput) == string(syn.Frame) || !syn.CheckEffects || len(syn.ExpectEffects) != 2:
		t.Errorf("syn: output %x, effects %v %q", syn.ExpectOutput, syn.CheckEffects, syn.ExpectEffects)
	case none.ExpectOutput != nil || !none.CheckEffects || len(none.ExpectEffects) != 0:
		t.Errorf("none: output %x, effects %v %q", none.ExpectOutput, none.CheckEffects, none.ExpectEffects)
	}
	for _, bad := range []string{
		"cases:\n  - name: a\n    frame: \"020000000002020000000001080000\"\n    effects: map x\n",
		"cases:\n  - name: a\n    frame: \"020000000002020000000001080000\"\n    effects: [\"\"]\n",
		"cases:\n  - name: a\n    frame: \"020000000002020000000001080000\"\n    output: {name: b}\n",
	} {
		if _, err := ParseFile("p.yaml", []byte(bad)); !errors.Is(err, ErrPacketFile) || !strings.Contains(err.Error(), "p.yaml:") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
