package testrun

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/object"
)

// Placements spread over the code's offset in its cache line. A load's
// speed depends on where the JIT put its code: on this host, bundled v4's
// fizz read 4 % slower in every load whose image began in the first 36
// bytes of a 64-byte line than in every load that began later, and no
// other load differed. The kernel starts each image at a random offset
// (bpf_jit_binary_pack_alloc), so the eight loads of a run held anywhere
// from two to seven slow ones, and runs' means moved by that mix while
// each run's interval, over its own loads, could not know. Loading more
// candidates and keeping loads at evenly spaced ranks of their offsets
// samples the offsets as a stratified sample does: every run holds the
// same mix, and the interval over the loads, still computed as if drawn
// at random, only errs wide.

// cacheLine is the span whose offset is spread: the fetch and cache line
// of x86-64 and arm64 cores; a spread over it is one over 32 bytes too.
const cacheLine = 64

// candidatesPerLoad is how many loads of a program are drawn for each
// one kept.
const candidatesPerLoad = 3

// The time spent on extra candidates is at most what the loads kept took,
// or minExtraTime, and never more than maxExtraTime: a large program
// loads in tenths of a second, and the time budget holds the loading too.
const (
	minExtraTime = 50 * time.Millisecond
	maxExtraTime = 500 * time.Millisecond
)

// loadCandidates loads want loads of each of the chosen programs, in
// turns, and returns each program's loads in the order loaded. Where it
// can it draws per times more and keeps want of them spread over their code's
// offset; the others are closed. On error it closes them all; once ctx
// is done it stops between loads, with ctx's error.
func loadCandidates(ctx context.Context, chosen []object.Chosen, want []int, per int) ([][]*object.Loaded, error) {
	drawn := make([][]*object.Loaded, len(chosen))
	target := make([]int, len(chosen))
	for i, c := range chosen {
		target[i] = want[i]
		if spreadable(c, want[i]) {
			target[i] = want[i] * per
		}
	}
	var neededTime, extraTime time.Duration
	for turn := range slices.Max(target) {
		for i, c := range chosen {
			needed := turn < want[i]
			if turn >= target[i] || !needed && extraTime > min(max(neededTime, minExtraTime), maxExtraTime) {
				continue
			}
			began := time.Now()
			l, err := orAbandon(ctx, c.Load, (*object.Loaded).Close)
			if needed {
				neededTime += time.Since(began)
			} else {
				extraTime += time.Since(began)
			}
			if ctx.Err() != nil {
				// Cancelled meanwhile: no load more, needed or not.
				if err == nil {
					l.Close()
				}
				err, needed = ctx.Err(), true
			}
			if err != nil && needed {
				for _, ls := range drawn {
					for _, l := range ls {
						l.Close()
					}
				}
				return nil, err
			}
			if err != nil {
				// A candidate the kernel refused (memory, a limit) only
				// narrows the choice.
				target[i] = turn
				continue
			}
			drawn[i] = append(drawn[i], l)
		}
	}
	for i := range drawn {
		kept, dropped := spreadByOffset(drawn[i], want[i], codeOffset)
		for _, l := range dropped {
			l.Close()
		}
		drawn[i] = kept
	}
	return drawn, nil
}

// spreadable says whether more candidates of c can be drawn: a program
// already in the kernel has one placement.
func spreadable(c object.Chosen, want int) bool {
	return want > 1 && c.Object.Prog == nil
}

// codeOffset is the offset of l's program's JIT image within its cache
// line, and false where the kernel does not tell the address (no JIT,
// or kptr_restrict).
func codeOffset(l *object.Loaded) (int, bool) {
	info, err := l.Prog.Info()
	if err != nil {
		return 0, false
	}
	addrs, ok := info.JitedKsymAddrs()
	if !ok || len(addrs) == 0 || addrs[0] == 0 {
		return 0, false
	}
	return int(addrs[0] % cacheLine), true
}

// spreadByOffset keeps want of the candidates, those at evenly spaced
// ranks of their offsets, in the order they were loaded, and returns the
// rest apart. Without every offset, it keeps the first want.
func spreadByOffset[T any](candidates []T, want int, offset func(T) (int, bool)) (kept, dropped []T) {
	if len(candidates) <= want {
		return candidates, nil
	}
	type ranked struct{ order, offset int }
	ranks := make([]ranked, len(candidates))
	for i, c := range candidates {
		o, ok := offset(c)
		if !ok {
			return candidates[:want], candidates[want:]
		}
		ranks[i] = ranked{i, o}
	}
	slices.SortStableFunc(ranks, func(a, b ranked) int { return cmp.Compare(a.offset, b.offset) })
	keep := make([]bool, len(candidates))
	for k := range want {
		keep[ranks[(2*k+1)*len(candidates)/(2*want)].order] = true
	}
	for i, c := range candidates {
		if keep[i] {
			kept = append(kept, c)
		} else {
			dropped = append(dropped, c)
		}
	}
	return kept, dropped
}

// loadPlacements loads every placement of p.picked, spread as above, and
// returns the loads in picked's order.
func (p *plan) loadPlacements(ctx context.Context) ([]*object.Loaded, error) {
	var keys, want []int
	var chosen []object.Chosen
	for i, c := range p.picked {
		k := slices.Index(keys, p.programOf[i])
		if k < 0 {
			keys, want, chosen = append(keys, p.programOf[i]), append(want, 0), append(chosen, c)
			k = len(keys) - 1
		}
		want[k]++
	}
	// As many candidates a load as the kernel memory budget holds.
	drawn, err := loadCandidates(ctx, chosen, want, cmp.Or(p.candidates, candidatesPerLoad))
	if err != nil {
		return nil, err
	}
	loads := make([]*object.Loaded, len(p.picked))
	next := make([]int, len(keys))
	for i := range p.picked {
		k := slices.Index(keys, p.programOf[i])
		if next[k] < len(drawn[k]) {
			loads[i] = drawn[k][next[k]]
			next[k]++
		}
	}
	return loads, nil
}
