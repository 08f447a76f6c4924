package report

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter/tw"
)

// writeLive shows a live comparison: each case's test run, its live
// frames, and the difference, what carrying out its action costs a frame.
func (c comparison) writeLive(w io.Writer, l lines, confidence float64, outliers []*sides) error {
	fmt.Fprintf(w, "program:     %s\nlive frames: batches of %d on a %s\n", printableLine(c.Before), c.Live.Batch, c.Live.Target)
	table := newTable(w, tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight)
	table.Header("case", "action", "test run, ns", "live, ns", fmt.Sprintf("action costs, ns [%g%% CI]", 100*confidence), "outliers")
	var all tally
	for i, cc := range c.Cases {
		d := cc.Difference
		cell := ""
		if s := outliers[i]; s != nil {
			cell = s.cell(outliersCounts, false)
			all = all.plus(s.before.plus(s.after))
		}
		row := []string{cc.Name, cc.Action,
			estimateCell(cc.Before),
			estimateCell(cc.After),
			fmt.Sprintf("%+.1f [%+.1f %+.1f]", d.Point, d.Lower, d.Upper), cell}
		if err := table.Append(row); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	l.note("  ", mattering("live: every frame's action carried out (XDP_TX and redirects out to the veth's peer, XDP_PASS to the stack as an skb, "+
		"an xskmap's redirect copied to an AF_XDP socket), its flush spread over the batch; a veth, not a NIC's DMA; "+
		"counters on the peer, the stack and the socket confirmed where each case's frames went"))
	l.note("  ", method("test run and live frames measured interleaved, sample by sample on one CPU, each over its own loads; the difference's interval from the %s", c.Test))
	l.note("  ", foundNote(all))
	fmt.Fprintln(w)
	return nil
}
