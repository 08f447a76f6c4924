package worst

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// What makes a packet costly, said in the program's own source lines
// where its BTF has them: the lines it reaches that cheaper packets do
// not, and those it runs more often than any of them.

// blockInfo is a basic block and the source line it belongs to.
type blockInfo struct {
	start, end int
	line       *btf.Line // nil without line information
	// after says no instruction of the block has a line of its own:
	// line is the last one before it.
	after bool
	calls []string // the helpers, kfuncs and functions it calls
}

// blockInfos gives each block the first line its instructions have, or
// the nearest line before it: BTF marks only where a line's code begins.
func blockInfos(insns asm.Instructions, blocks []testrun.Block) []blockInfo {
	out := make([]blockInfo, len(blocks))
	own := func(i int) *btf.Line {
		if l, ok := insns[i].Source().(*btf.Line); ok && l.LineNumber() > 0 {
			return l
		}
		return nil
	}
	var current *btf.Line
	for i, b := range blocks {
		out[i] = blockInfo{start: b.Start, end: b.End, line: current, after: true}
		for j := b.Start; j < b.End && j < len(insns); j++ {
			if l := own(j); l != nil {
				if out[i].after {
					out[i].line, out[i].after = l, false
				}
				current = l
			}
			if name := callee(&insns[j]); name != "" {
				out[i].calls = append(out[i].calls, name)
			}
		}
	}
	return out
}

// callee names what ins calls: a helper as its C name (FnMapPushElem
// is bpf_map_push_elem), a kfunc or a function by its symbol; "" for
// an instruction that calls nothing.
func callee(ins *asm.Instruction) string {
	switch {
	case ins.IsBuiltinCall():
		name := strings.TrimPrefix(asm.BuiltinFunc(ins.Constant).String(), "Fn")
		var b strings.Builder
		b.WriteString("bpf")
		for _, r := range name {
			if unicode.IsUpper(r) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		}
		return b.String()
	case ins.IsKfuncCall(), ins.IsFunctionCall():
		return ins.Reference()
	}
	return ""
}

// Reason is one thing a packet does that cheaper packets do not, as
// results saves it.
type Reason = results.WorstReason

// maxReasons are the reasons given a packet: the costliest.
const maxReasons = 3

// Explain says, for each packet of counts in the order given (the
// costliest first), what it reaches, or runs more often, than the packet
// after it whose path is most like its own: the difference that makes
// it the costlier. The index of that packet comes with the reasons; the
// last packet has none to be compared with (-1).
func (r *Result) Explain(counts [][]uint64) (reasons [][]Reason, versus []int) {
	reasons, versus = make([][]Reason, len(counts)), make([]int, len(counts))
	for k := range counts {
		versus[k] = -1
		best := uint64(0)
		for j := k + 1; j < len(counts); j++ {
			if d := r.distance(counts[k], counts[j]); versus[k] < 0 || d < best {
				versus[k], best = j, d
			}
		}
		if versus[k] >= 0 {
			reasons[k] = r.explain(counts[k], counts[versus[k]])
		}
	}
	return reasons, versus
}

// distance is how many instructions two paths do not share.
func (r *Result) distance(a, b []uint64) uint64 {
	var d uint64
	for i := range min(len(a), len(b), len(r.blocks)) {
		n := r.blocks[i].end - r.blocks[i].start
		if a[i] > b[i] {
			d += (a[i] - b[i]) * uint64(n)
		} else {
			d += (b[i] - a[i]) * uint64(n)
		}
	}
	return d
}

// explain lists the lines mine runs more often than cheaper, by the
// instructions that adds, most first.
func (r *Result) explain(mine, cheaper []uint64) []Reason {
	byLine := map[string]*Reason{}
	var order []string
	for b, n := range mine {
		if b >= len(r.blocks) || b >= len(cheaper) || n <= cheaper[b] {
			continue
		}
		bi, most := r.blocks[b], cheaper[b]
		extra := (n - most) * uint64(bi.end-bi.start)
		key := fmt.Sprintf("block %d–%d", bi.start, bi.end-1)
		reason := Reason{Block: key, Count: n, Cheaper: most, Instructions: extra, Calls: bi.calls}
		if bi.line != nil {
			key = fmt.Sprintf("%s:%d", bi.line.FileName(), bi.line.LineNumber())
			reason.File, reason.Line, reason.After = filepath.Base(bi.line.FileName()), bi.line.LineNumber(), bi.after
			reason.Source, reason.Block = strings.TrimSpace(bi.line.Line()), ""
		}
		if have, ok := byLine[key]; ok {
			// One line, several blocks: the most run stands for it, and
			// the line's own code for the code after it.
			have.Instructions += extra
			have.After = have.After && reason.After
			for _, c := range bi.calls {
				if !slices.Contains(have.Calls, c) {
					have.Calls = append(have.Calls, c)
				}
			}
			if n > have.Count {
				have.Count, have.Cheaper = n, most
			}
			continue
		}
		byLine[key], order = &reason, append(order, key)
	}
	var reasons []Reason
	for _, key := range order {
		reasons = append(reasons, *byLine[key])
	}
	slices.SortStableFunc(reasons, func(a, b Reason) int { return cmp.Compare(b.Instructions, a.Instructions) })
	return reasons[:min(len(reasons), maxReasons)]
}
