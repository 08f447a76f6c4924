package stats

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// A bootstrap resample draws n of n samples with replacement. Drawn
// sample by sample, that is n random indices. Samples fall into groups of
// equal values, and all a resample's statistics need is how many draws
// each group took: multinomially distributed counts. Those can be drawn
// one group at a time instead, as conditional binomials, whose cost does
// not grow with n; a binomial costs as much as a hundred indices, though.
// So the largest groups are drawn as binomials, and the draws left over
// fall by index on the samples of the other groups: exact either way.

// resampling says how a bootstrap draws its resamples.
type resampling struct {
	// expand writes each resample out in full, sample by sample, for the
	// statistics of a slice; otherwise a resample is a tally's counts.
	expand bool
	// binomials is how many of the largest groups a tally draws as
	// binomials.
	binomials int
}

// Costs per resample, in units of one index drawn and counted (about 2 ns
// on an AMD EPYC; BenchmarkResampling measures them, n = 2000): a binomial
// of gonum's costs about binomialCost, as it takes logarithms and
// log-gamma functions whatever its n and p; statistics cost about
// perSampleCost for each sample of a resample written out, and
// perGroupCost for each group of a tally. So of 2000 samples, a tally is
// the cheaper up to about 800 distinct values (measured: about 1000), and
// binomials draw all of up to about 18 groups of equal size.
const (
	binomialCost  = 110.0
	perSampleCost = 1.0
	perGroupCost  = 1.5
)

// chooseResampling returns the cheapest resampling of n samples, or rounds,
// in groups of equal ones of those sizes, whose statistics are taken over
// statGroups groups: the groups themselves for one sample, each side's
// distinct values for paired samples.
func chooseResampling(n int, sizes []int, statGroups int) resampling {
	binomials, drawing := cheapestDraw(sizes)
	// Drawing, adding up counts, statistics.
	tallied := drawing + float64(len(sizes)) + perGroupCost*float64(statGroups)
	if expanded := (1 + perSampleCost) * float64(n); expanded < tallied {
		return resampling{expand: true}
	}
	return resampling{binomials: binomials}
}

// cheapestDraw returns how many of the largest of groups of those sizes
// are the cheapest drawn as binomials, and the cost of drawing so.
func cheapestDraw(sizes []int) (binomials int, cost float64) {
	if len(sizes) == 1 {
		return 0, 0 // the one group takes every draw
	}
	desc := slices.SortedFunc(slices.Values(sizes), func(a, b int) int { return cmp.Compare(b, a) })
	byIndex := 0 // samples drawn by index
	for _, s := range desc {
		byIndex += s
	}
	cost = float64(byIndex)
	for b := 1; b < len(desc); b++ {
		byIndex -= desc[b-1]
		c := binomialCost*float64(b) + float64(byIndex)
		if b == len(desc)-1 {
			c = binomialCost * float64(b) // the last group takes the draws left
		}
		if c < cost {
			binomials, cost = b, c
		}
	}
	return binomials, cost
}

// indexSource draws indices uniformly from [0, n) for n < 2³¹, exactly,
// by Lemire's multiply-and-reject on 32-bit halves of a PCG's outputs.
// It takes half the outputs rand.Rand.IntN would and calls no method
// through an interface: drawing by index, that is most of the time.
type indexSource struct {
	pcg *rand.PCG
	n   uint64
	// reject is 2³² mod n: a product whose low half falls below it belongs
	// to a partial last copy of [0, n) and is drawn again.
	reject uint32
}

func newIndexSource(pcg *rand.PCG, n int) indexSource {
	if n == 0 {
		return indexSource{pcg: pcg}
	}
	return indexSource{pcg: pcg, n: uint64(n), reject: uint32(-uint32(n) % uint32(n))}
}

// scale maps 32 random bits to an index.
func (s indexSource) scale(bits uint32) int32 {
	m := uint64(bits) * s.n
	for uint32(m) < s.reject {
		m = (s.pcg.Uint64() >> 32) * s.n
	}
	return int32(m >> 32)
}

// count draws indices into groupOf, whose length is n, and counts each as
// its group, counts[groupOf[i]].
func (s indexSource) count(counts []int, groupOf []int32, draws int) {
	for range draws / 2 {
		bits := s.pcg.Uint64()
		counts[groupOf[s.scale(uint32(bits))]]++
		counts[groupOf[s.scale(uint32(bits>>32))]]++
	}
	if draws%2 == 1 {
		counts[groupOf[s.scale(uint32(s.pcg.Uint64()))]]++
	}
}

// identity is the group of each of n samples that are their own groups.
func identity(n int) []int32 {
	g := make([]int32, n)
	for i := range g {
		g[i] = int32(i)
	}
	return g
}

// resampler draws bootstrap resamples of n samples in groups: how many of
// n draws with replacement fall in each group.
type resampler struct {
	n   int
	pcg *rand.PCG
	// binomial are the groups drawn as binomials, in order; size their
	// sizes, and rest[i] the samples in binomial[i] and all groups after
	// it, those drawn by index included, so that each group's share of
	// the draws left is an exact ratio of integers.
	binomial   []int32
	size, rest []int
	// byIndex is the group of each sample of the other groups, on which
	// the draws left fall by index.
	byIndex []int32
	index   indexSource
	// lone is the only group drawn by index, which takes every draw left
	// without drawing, or -1 if there are several.
	lone int32
}

// newResampler prepares drawing from samples in the groups groupOf gives,
// with sizes[j] samples in group j (nil if no group is drawn as a
// binomial), the largest binomials of them as binomials.
func newResampler(groupOf []int32, sizes []int, binomials int, seed uint64) resampler {
	pcg := rand.NewPCG(seed, pcgStream)
	m := resampler{n: len(groupOf), pcg: pcg, byIndex: groupOf, lone: -1}
	if binomials > 0 {
		groups := make([]int32, len(sizes))
		for j := range groups {
			groups[j] = int32(j)
		}
		slices.SortStableFunc(groups, func(a, b int32) int { return cmp.Compare(sizes[b], sizes[a]) })
		m.binomial = groups[:binomials]
		m.size, m.rest = make([]int, binomials), make([]int, binomials)
		left := m.n
		for i, g := range m.binomial {
			m.size[i], m.rest[i] = sizes[g], left
			left -= sizes[g]
		}
		asBinomial := make([]bool, len(sizes))
		for _, g := range m.binomial {
			asBinomial[g] = true
		}
		m.byIndex = nil
		for _, g := range groupOf {
			if !asBinomial[g] {
				m.byIndex = append(m.byIndex, g)
			}
		}
	}
	if len(m.byIndex) > 0 && !slices.ContainsFunc(m.byIndex, func(g int32) bool { return g != m.byIndex[0] }) {
		m.lone = m.byIndex[0]
	}
	m.index = newIndexSource(pcg, len(m.byIndex))
	return m
}

// draw fills counts, one per group, with a resample.
func (m resampler) draw(counts []int) {
	clear(counts)
	left := m.n
	// Given what the groups before it took, each group's count is
	// binomial: each draw left falls in it with probability size/rest.
	for i, g := range m.binomial {
		if left == 0 {
			return
		}
		b := distuv.Binomial{N: float64(left), P: float64(m.size[i]) / float64(m.rest[i]), Src: m.pcg}
		c := int(b.Rand())
		counts[g] = c
		left -= c
	}
	if m.lone >= 0 {
		counts[m.lone] = left
		return
	}
	m.index.count(counts, m.byIndex, left)
}
