package engine

import (
	"github.com/xdpmicro/xdpmicro/internal/profile"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// linesNamed is how many changed lines a comparison names per case.
const linesNamed = 3

// addLineChanges names, for every case whose instruction count changed
// between the two builds, the lines whose counts changed most: from the
// block counts the run kept. A build whose counts cannot be attributed
// leaves the comparison as it was: the counts still stand.
func addLineChanges(c *results.Comparison, res testrun.Result) {
	if c == nil || len(res.Programs) != 2 {
		return
	}
	var profiles [2]*profile.Profile
	for i, pr := range res.Programs {
		p, err := profileOf(pr)
		if err != nil {
			return
		}
		profiles[i] = p
	}
	diff := profile.Compare(profiles[0], profiles[1])
	for i := range c.Cases {
		cc := &c.Cases[i]
		if !cc.InsnsCounted() || cc.InsnsBefore == cc.InsnsAfter {
			continue
		}
		for _, d := range diff.Cases {
			if d.Name != cc.Name {
				continue
			}
			for _, l := range d.Lines[:min(linesNamed, len(d.Lines))] {
				cc.LinesChanged = append(cc.LinesChanged, results.LineChange{Line: l.Name, Before: l.Before, After: l.After})
			}
		}
	}
}
