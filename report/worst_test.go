package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
)

// A reason names the line, its source shortened to one line, and says
// how much more often the packet ran it than the cheaper one did.
func TestReasonText(t *testing.T) {
	for _, c := range []struct {
		reason results.WorstReason
		want   string
	}{
		{results.WorstReason{Line: 12, Source: "if (x)\n\t\treturn XDP_DROP;", Count: 3, Cheaper: 1}, `runs line 12 "if (x) return XDP_DROP;" 3× (not 1×)`},
		{results.WorstReason{Block: "insns 4-9", Count: 2, Calls: []string{"bpf_map_lookup_elem"}}, "reaches insns 4-9 2×, calls bpf_map_lookup_elem"},
		{results.WorstReason{Line: 7, After: true, Count: 1}, "reaches code after line 7"},
	} {
		if got := reasonText(c.reason); got != c.want {
			t.Errorf("reasonText(%+v) = %q, want %q", c.reason, got, c.want)
		}
	}
}

// A packet file of other packets than the report's is refused, not
// written with the wrong names.
func TestWritePacketsCountsCases(t *testing.T) {
	r := &results.Worst{Packets: []results.WorstPacket{{Name: "p1"}}}
	var out bytes.Buffer
	if err := writeWorstPackets(&out, r, nil); err == nil || !strings.Contains(err.Error(), "1 packets given 0 cases") {
		t.Fatalf("writeWorstPackets with no cases: %v", err)
	}
	if out.Len() > 0 {
		t.Errorf("wrote %q", out.String())
	}
}
