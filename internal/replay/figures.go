package replay

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/stats"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// histogram counts runs by their whole ns, as the kernel gives them:
// exact percentiles in memory bounded by the values met, not the runs.
type histogram struct {
	low  []uint64          // below dense
	high map[uint32]uint64 // the rest
	n    uint64
}

const dense = 1 << 16

func newHistogram() histogram {
	return histogram{low: make([]uint64, dense), high: map[uint32]uint64{}}
}

func (h *histogram) add(ns uint32) {
	h.n++
	if ns < dense {
		h.low[ns]++
		return
	}
	h.high[ns]++
}

// quantile is the smallest value with at least q of the runs at or below
// it.
func (h *histogram) quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(h.n)))
	want = max(want, 1)
	var seen uint64
	for v, c := range h.low {
		if seen += c; seen >= want {
			return float64(v)
		}
	}
	keys := make([]uint32, 0, len(h.high))
	for k := range h.high {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if seen += h.high[k]; seen >= want {
			return float64(k)
		}
	}
	return float64(keys[len(keys)-1])
}

// predict is the mean of xs with an interval meant to hold one more
// draw's: Student's t at 95 % with the spread of xs, widened by
// sqrt(1 + 1/n) for the draw's own spread.
func predict(xs []float64) stats.Estimate {
	n := float64(len(xs))
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / n
	if len(xs) < 2 {
		return stats.Estimate{Point: mean, Lower: mean, Upper: mean}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
	half := t * sd * math.Sqrt(1+1/n)
	return stats.Estimate{Point: mean, Lower: mean - half, Upper: mean + half}
}

// assemble turns one program's passes into its result.
func assemble(s *testrun.Sequence, prog testrun.Program, c *countPass, t *timing) *results.Replay {
	rep := &results.Replay{Schema: results.ReplaySchema, Program: s.Info.Name, Object: prog.Object.Name, Type: s.Info.Type.String(),
		Packets: len(c.ids), Skipped: c.skipped, Replays: t.replays, Timer: results.ReplayTimer,
		ActionMismatches: t.mismatches, Notes: slices.Clone(s.Notes)}
	if c.strayed > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d paths' map effects are not known: a second counting replay took another path at their first packet, "+
			"as a program that reads a clock or a random number may", c.strayed))
	}
	n := float64(len(c.ids))
	var floorAll float64
	for k := range t.replays {
		f := t.floor(k)
		floorAll += f
		rep.ReplayMeans = append(rep.ReplayMeans, t.sum[k]/n-f)
	}
	rep.Floor = floorAll / float64(t.replays)
	rep.Mean = predict(rep.ReplayMeans)
	rep.P50, rep.P90, rep.P99 = t.hist.quantile(0.5)-rep.Floor, t.hist.quantile(0.9)-rep.Floor, t.hist.quantile(0.99)-rep.Floor
	rep.Paths = pathsOf(s, c, t)
	rep.Kinds = kindsOf(rep.Paths, t)
	rep.Sequence = t.sequence()
	rep.Traffic = c.digest
	for i, v := range t.kept {
		rep.PacketList = append(rep.PacketList, results.ReplayPacket{Index: i, Path: int(c.ids[i]), NS: v/float64(t.replays) - rep.Floor})
	}
	rep.PacketsLeftOut = len(c.ids) - len(t.kept)
	return rep
}

// pathsOf is each path group's figures, the most packets first.
func pathsOf(s *testrun.Sequence, c *countPass, t *timing) []results.ReplayPath {
	var total float64 // the traffic's time net of the floor, over the replays
	for k := range t.replays {
		total += t.sum[k] - float64(len(c.ids))*t.floor(k)
	}
	out := make([]results.ReplayPath, 0, len(c.table.paths))
	for id, p := range c.table.paths {
		var means []float64
		var net float64
		for k := range t.replays {
			if t.pathN[k][id] > 0 {
				means = append(means, t.pathSum[k][id]/t.pathN[k][id]-t.floor(k))
			}
			net += t.pathSum[k][id] - t.pathN[k][id]*t.floor(k)
		}
		rp := results.ReplayPath{ID: id, Name: p.name(s.ActionName(p.action)), Action: s.ActionName(p.action),
			Instructions: p.instructions, First: p.first, Packets: p.packets,
			PacketShare: float64(p.packets) / float64(len(c.ids)), Effects: p.effects(), EffectsRead: p.read}
		if id == otherPath {
			rp.Name = "other paths (past the distinct paths told apart)"
		}
		if len(means) > 0 {
			rp.Mean, rp.ReplayMeans = predict(means), means
		}
		if total != 0 {
			rp.TimeShare = net / total
		}
		out = append(out, rp)
	}
	slices.SortStableFunc(out, func(a, b results.ReplayPath) int { return b.Packets - a.Packets })
	return out
}

// sequence is the cost per packet over the sequence, bin by bin: the
// replays' mean, lowest and highest, each net of its replay's floor.
func (t *timing) sequence() []results.ReplayBin {
	bins := make([]results.ReplayBin, len(t.binSum[0]))
	for b := range bins {
		first := b * t.binSize
		n := min(t.binSize, t.packets-first)
		bin := results.ReplayBin{First: first, Packets: n, Low: math.Inf(1), High: math.Inf(-1)}
		for k := range t.replays {
			m := t.binSum[k][b]/float64(n) - t.floor(k)
			bin.Mean += m / float64(t.replays)
			bin.Low, bin.High = min(bin.Low, m), max(bin.High, m)
		}
		bins[b] = bin
	}
	return bins
}

// environment is where the replay ran.
func environment(cpu int, start time.Time) results.ReplayEnvironment {
	release, _ := host.Kernel()
	return results.ReplayEnvironment{Kernel: release, CPUModel: host.CPUModel(), CPU: cpu, Start: start, Wall: time.Since(start)}
}

// kindsOf gathers the paths by action and their most read effects kind.
func kindsOf(paths []results.ReplayPath, t *timing) []results.ReplayKind {
	index := map[string]int{}
	var kinds []results.ReplayKind
	for _, p := range paths {
		effects := "effects not read"
		if len(p.Effects) > 0 {
			effects = p.Effects[0].Kind
		}
		name := p.Action + ": " + effects
		i, ok := index[name]
		if !ok {
			i, index[name] = len(kinds), len(kinds)
			kinds = append(kinds, results.ReplayKind{Name: name, Instructions: [2]uint64{p.Instructions, p.Instructions}})
		}
		k := &kinds[i]
		k.Packets += p.Packets
		k.PacketShare += p.PacketShare
		k.TimeShare += p.TimeShare
		k.Paths = append(k.Paths, p.ID)
		k.Instructions[0], k.Instructions[1] = min(k.Instructions[0], p.Instructions), max(k.Instructions[1], p.Instructions)
	}
	for i := range kinds {
		var means []float64
		for r := range t.replays {
			var sum, n float64
			for _, id := range kinds[i].Paths {
				sum, n = sum+t.pathSum[r][id], n+t.pathN[r][id]
			}
			if n > 0 {
				means = append(means, sum/n-t.floor(r))
			}
		}
		kinds[i].Mean, kinds[i].ReplayMeans = predict(means), means
	}
	slices.SortStableFunc(kinds, func(a, b results.ReplayKind) int { return b.Packets - a.Packets })
	return kinds
}
