package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/printable"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
)

// loadsNote says how many loads each figure is over and how they were
// grouped, and how far the loads of each case differ; ok is false for a
// run of one load.
func (r doc) loadsNote() (n note, ok bool) {
	if len(r.Programs) == 0 {
		return note{}, false
	}
	p := r.Measured()
	var spreads []string
	loads := 0
	for _, c := range p.Results {
		if c.Stats == nil || c.Stats.Loads == nil {
			continue
		}
		l := c.Stats.Loads
		loads = len(l.Points)
		spreads = append(spreads, fmt.Sprintf("%s %s %%", c.Name, percent(l.StdDev/l.Estimate.Point)))
	}
	if loads == 0 {
		return note{}, false
	}
	env := r.Environment
	grouping := "all measured together"
	if env.Groups > 1 {
		grouping = fmt.Sprintf("in %d groups of %d, each loaded, anchored and sampled apart", env.Groups, env.LoadsPerGroup)
	}
	return method("loads: each program loaded %d times, %s (each load is compiled to its own address); "+
		"a %s figure is the mean over its loads, its interval Student's t over them, the groups as random effects; "+
		"the loads' standard deviation: %s", loads, grouping, r.shownEstimator(), strings.Join(spreads, ", ")), true
}

// narrowsIt says, for cases short of the precision asked that were
// measured over several loads, what would narrow their intervals: more
// loads where the loads differ more than each one's own noise says, else
// more time; "" for a run of one load.
func narrowsIt(cases []results.Case) string {
	placed, noisy, wander := false, false, false
	for _, c := range cases {
		if c.Stats == nil || c.Stats.Loads == nil {
			continue
		}
		placed = true
		l := c.Stats.Loads
		wander = wander || l.Wander >= stats.HostWander
		// Within is a 95 % half-width: about two of a load's own
		// standard deviations.
		noisy = noisy || l.Within/2 > l.StdDev/l.Estimate.Point/2
	}
	switch {
	case !placed:
		return ""
	case wander:
		return "; most of it is how far this host moves from run to run (below): more time would not narrow it"
	case noisy:
		return "; each load's own noise is a large part of it: more --time narrows it, and adds groups of loads"
	}
	return "; the loads differ more than their own noise: more loads narrow it (--placements N, or more --time, which adds groups of loads), longer sampling of each would not"
}

// phaseNote says that the machine's speed changed during the run, as the
// floor's loads show group by group, and that the figures were scaled to
// its fastest phase (stats.PhaseFactors); ok is false where it did not.
func (r doc) phaseNote() (n note, ok bool) {
	ph := r.Phase()
	if ph == nil {
		return note{}, false
	}
	within := ""
	if ph.Groups > ph.Fast {
		within = fmt.Sprintf("%d of %d groups ran up to ×%.2f slower than the fast phase, each scaled by its floor", ph.Groups-ph.Fast, ph.Groups, ph.Slowest)
		switch {
		case ph.AtSlow:
			within = fmt.Sprintf("%d of %d groups met a phase up to ×%.2f faster: they are left out, and the figures are those of the speed the other %d met", ph.Fast, ph.Groups, ph.Slowest, ph.Groups-ph.Fast)
		case ph.LeftOut > 0:
			within = fmt.Sprintf("%d of %d groups ran up to ×%.2f slower than the fast phase: their loads are left out", ph.Groups-ph.Fast, ph.Groups, ph.Slowest)
		}
	}
	if ph.Split && ph.Recalled == 0 {
		// The next run may stand at either speed: which one this run
		// stood at matters less than that the figures span both.
		return mattering("the machine ran at two speeds up to ×%.2f apart (%d of %d groups at the faster): the next run may "+
			"stand at either, so every interval spans both, as does a comparison with this run", ph.Slowest, ph.Fast, ph.Groups), true
	}
	if ph.Recalled == 0 {
		if ph.AtSlow {
			return mattering("the machine's speed changed during the run: %s", within), true
		}
		return mattering("the machine's speed changed during the run: %s; every figure is given at the fast phase", within), true
	}
	if within != "" {
		within = "; " + within
	}
	// Within one phase the figures follow the run's floor only as far as
	// the history saw the phase itself move (analysis.AtRecalled).
	lead := "every figure is scaled to this machine's fast phase"
	switch {
	case ph.Share < 0.005:
		lead = "this run met the machine's fast phase"
		within = ", and its figures stand as measured: the runs before it did not move beyond their floors' own noise, " +
			"or are too few to say how far that phase moves" + within
	case ph.Share < 0.995 && ph.DriftAssumed:
		within = fmt.Sprintf(", followed %.0f %%: the runs before it are too few to say how far that phase moves, "+
			"taken as %.0f %% from run to run against the floors' own noise", 100*ph.Share, 100*math.Sqrt(stats.PriorDrift)) + within
	case ph.Share < 0.995:
		within = fmt.Sprintf(", followed %.0f %%: as far as the runs before it moved beyond their floors' own noise", 100*ph.Share) + within
	}
	if r.Comparison != nil && r.Comparison.Mode == results.Interleaved {
		// A phase moves what a change costs (analysis works out by how much).
		if spread := r.Comparison.ChangeSpread; spread > 1.005 {
			within += fmt.Sprintf("; each change's size there is known to within ×%.2f of the size measured", spread)
		}
	}
	return mattering("%s as %s on this boot and CPU read it "+
		"(--history): floor %s ns; this run's read %s ns (×%.2f)%s",
		lead, runsText(ph.RecalledRuns), printable.NS(ph.Recalled), printable.NS(ph.RunFloor), ph.RunFloor/ph.Recalled, within), true
}

// wanderNote says that the run met a host that changes speed, so that
// every interval holds how far such a host moves a run's level, and what
// gives narrower figures there; ok is false on a steady host.
func (r doc) wanderNote() (n note, ok bool) {
	w := 0.0
	for _, p := range r.Programs {
		for _, c := range p.Results {
			if c.Stats != nil && c.Stats.Loads != nil {
				w = max(w, c.Stats.Loads.Wander)
			}
		}
	}
	if w <= stats.SteadyWander {
		return note{}, false
	}
	why := "its speed changed during the run"
	if steal := r.Environment.MachineLoad.StealShare; steal >= stats.StealToWander {
		why = fmt.Sprintf("the hypervisor stole %.0f %% of the measuring CPU", 100*steal)
		if r.Phase() != nil {
			why += " and its speed changed during the run"
		}
	}
	return mattering("this host moves: %s; its level moves some %.1f %% from run to run, beyond what a run sees, "+
		"and every interval holds it: compare builds interleaved (--before/--after); for narrower figures, a quieter machine", why, 100*w), true
}

// runsText is "the run before" or "N earlier runs".
func runsText(n int) string {
	if n == 1 {
		return "the run before"
	}
	return fmt.Sprintf("%d earlier runs", n)
}
