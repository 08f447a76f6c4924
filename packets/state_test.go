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
	for _, bad := range []string{"", "cold", "first,first", "flows=1", "flows=x", "flows=65537"} {
		if _, err := ParseStates(bad); !errors.Is(err, ErrState) || !errors.Is(err, badinput.Err) {
			t.Errorf("%q: %v, want a bad map state", bad, err)
		}
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
