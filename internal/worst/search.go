package worst

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// ErrOptions: options a search cannot run with.
var ErrOptions = badinput.New("bad search options")

// Guidance is what steers the search, beyond chance.
type Guidance uint8

const (
	// Coverage keeps every packet that reaches a block no packet reached
	// before, or runs one a number of times in a range (1, 2, 3, 4-7,
	// 8-15, …) none did (AFL's hit counts).
	Coverage Guidance = 1 << iota
	// Cost keeps every packet that runs some block more times than any
	// packet before it (PerfFuzz's feedback), and mutates the costliest
	// paths found so far more than the rest: a loop run one time more is
	// a step towards the longest.
	Cost
	// Constants takes fields' values from the constants the program's
	// conditional jumps compare against (and it moves and masks with).
	Constants
	// MapKeys takes fields' values from the keys in the program's hash
	// and LPM maps once they are filled.
	MapKeys
	// Guided is all of them.
	Guided = Coverage | Cost | Constants | MapKeys
)

// Defaults of Options.
const (
	DefaultTop    = 10
	DefaultBudget = 10 * time.Second
	// DefaultSeed makes runs that name no seed the same.
	DefaultSeed = 1
)

// Bounds of Options, checked before anything is loaded.
const (
	// MaxTop bounds Top: each path kept is timed as a case.
	MaxTop = 1000
	// MaxCandidates bounds Candidates: more than a day of search at a
	// million packets a second.
	MaxCandidates = 1_000_000_000_000
	// MaxBudget bounds Budget.
	MaxBudget = 24 * time.Hour
)

// Options is a search: the program, loaded as bench loads it, the seeds it
// starts from, and when to stop.
type Options struct {
	Object  testrun.Object
	Program string // empty: the object's only measurable program
	MapInit *testrun.MapInit
	Load    testrun.LoadOptions
	// Seeds are the packets the search starts from; each one's context
	// goes with every packet made from it.
	Seeds []packets.Case
	// Budget and Candidates stop the search: after Budget, or after
	// Candidates packets were run, whichever comes first; zero: no limit
	// of that kind (one of them is required).
	Budget     time.Duration
	Candidates uint64
	// Seed seeds the mutations: the same seed tries the same packets in
	// the same order.
	Seed uint64
	// Top is how many distinct paths to keep, the costliest.
	Top int
	// Without turns guidance off: a test's control, or a blind search.
	Without Guidance
	// Progress, if set, is called about ten times a second from the
	// searching goroutine; it must return at once.
	Progress func(Progress)
}

// Progress is how far a search has got.
type Progress struct {
	Tried   uint64
	Paths   int
	Best    uint64 // the most instructions a packet ran so far
	Elapsed time.Duration
	Budget  time.Duration
}

func (o Options) check() (Options, error) {
	switch {
	case len(o.Seeds) == 0:
		return o, fmt.Errorf("%w: no packet to start from", ErrOptions)
	case o.Budget < 0 || o.Budget > MaxBudget:
		return o, fmt.Errorf("%w: time budget %s: want a positive duration up to %s", ErrOptions, o.Budget, MaxBudget)
	case o.Budget == 0 && o.Candidates == 0:
		return o, fmt.Errorf("%w: a search needs a time budget or a number of candidates", ErrOptions)
	case o.Candidates > MaxCandidates:
		return o, fmt.Errorf("%w: %d candidates: want at most %d", ErrOptions, o.Candidates, uint64(MaxCandidates))
	case o.Top < 0 || o.Top > MaxTop:
		return o, fmt.Errorf("%w: %d top packets: want 1 to %d, or 0 for %d", ErrOptions, o.Top, MaxTop, DefaultTop)
	}
	if o.Top == 0 {
		o.Top = DefaultTop
	}
	return o, nil
}

// entry is a packet the search keeps: in the corpus, to mutate, or among
// the costliest paths.
type entry struct {
	pkt    *packet
	frame  []byte
	length int
	insns  uint64
	ret    uint32
	hash   uint64
	counts []uint64 // kept only for the costliest paths
	tried  uint64   // the candidate that found it
}

// maxCorpus bounds the packets kept to mutate.
const maxCorpus = 1 << 16

// searcher is one search's state.
type searcher struct {
	o       Options
	c       *testrun.Counter
	counts  []uint64 // the last packet's block counts, valid until the next run
	m       *mutator
	b       *builder
	guide   Guidance
	corpus  []*entry
	top     []*entry // costliest first, one per path
	paths   map[uint64]struct{}
	buckets []uint8  // per block, the hit-count ranges seen
	max     []uint64 // per block, the most runs seen
	holder  []int    // per block, the corpus entry holding max, or -1
	reached []int    // blocks reached, in the order first reached
	tried   uint64
	refused uint64
	start   time.Time
	// nConstants and nKeys are the sizes of the dictionaries.
	nConstants, nKeys int
	// seedShapes are the seeds' shapes, nil where the model cannot say one.
	seedShapes []*shape
}

// Search runs packets through an instrumented copy of the program, each a
// mutation of one run before, and keeps the costliest distinct paths.
// Cancelled, it returns what it found so far, Partial, with ctx's error.
func Search(ctx context.Context, o Options) (*Result, error) {
	o, err := o.check()
	if err != nil {
		return nil, err
	}
	c, err := load(o)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s, err := newSearcher(o, c)
	if err != nil {
		return nil, err
	}
	if err := s.seed(); err != nil {
		return nil, err
	}
	runErr := s.loop(ctx)
	if runErr != nil && ctx.Err() == nil {
		return nil, runErr
	}
	for _, e := range s.top {
		if err := s.simplify(e); err != nil {
			return nil, err
		}
	}
	res := s.result()
	res.Partial = runErr != nil
	return res, runErr
}

func newSearcher(o Options, c *testrun.Counter) (*searcher, error) {
	s := &searcher{o: o, c: c, b: newBuilder(), guide: Guided &^ o.Without, paths: map[uint64]struct{}{}, start: time.Now()}
	s.m = &mutator{rng: rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))}
	if s.guide&Constants != 0 {
		if d := constantsOf(c.Instructions); !d.empty() {
			s.m.dicts, s.nConstants = append(s.m.dicts, d), d.size()
		}
	}
	if s.guide&MapKeys != 0 {
		d, err := keysOf(c.Maps())
		if err != nil {
			return nil, err
		}
		if !d.empty() {
			s.m.dicts, s.nKeys = append(s.m.dicts, d), d.size()
		}
	}
	n := len(c.Blocks)
	s.buckets, s.max, s.holder = make([]uint8, n), make([]uint64, n), make([]int, n)
	for i := range s.holder {
		s.holder[i] = -1
	}
	return s, nil
}

// seed runs every seed, as it is and, where the model can say it, as a
// shape to change field by field; all of them stay in the corpus.
func (s *searcher) seed() error {
	for i, c := range s.o.Seeds {
		pkts := []*packet{{raw: c.Frame, seed: i}}
		sh, ok := shapeOf(c.Frame)
		if ok {
			pkts = append(pkts, &packet{shape: sh.clone(), seed: i})
		}
		s.seedShapes = append(s.seedShapes, sh)
		for _, p := range pkts {
			e, err := s.try(p)
			if err != nil {
				return err
			}
			if e != nil {
				slot := s.slot()
				s.judge(s.counts, slot)
				s.place(e, slot)
			}
		}
	}
	return nil
}

// loop mutates and runs packets until the budget is spent or ctx done.
func (s *searcher) loop(ctx context.Context) error {
	if len(s.corpus) == 0 {
		return fmt.Errorf("%w: the kernel ran none of the %d packets to start from", ErrOptions, len(s.o.Seeds))
	}
	lastProgress := time.Now()
	for {
		if s.tried%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			now := time.Now()
			if s.o.Budget > 0 && now.Sub(s.start) >= s.o.Budget {
				return nil
			}
			if s.o.Progress != nil && now.Sub(lastProgress) >= 100*time.Millisecond {
				s.o.Progress(s.progress())
				lastProgress = now
			}
		}
		if s.o.Candidates > 0 && s.tried >= s.o.Candidates {
			return nil
		}
		parent := s.parent()
		e, err := s.try(s.m.child(parent.pkt, parent.length))
		if err != nil {
			return err
		}
		if e == nil {
			continue
		}
		if slot := s.slot(); s.judge(s.counts, slot) {
			s.place(e, slot)
		}
	}
}

func (s *searcher) progress() Progress {
	p := Progress{Tried: s.tried, Paths: len(s.paths), Elapsed: time.Since(s.start), Budget: s.o.Budget}
	if len(s.top) > 0 {
		p.Best = s.top[0].insns
	}
	return p
}

// parent chooses the packet to mutate next: with Cost guidance, often one
// of the costliest paths or a packet that holds some block's most runs.
func (s *searcher) parent() *entry {
	if s.guide&Cost != 0 {
		switch r := s.m.n(10); {
		case r < 3 && len(s.top) > 0:
			return s.top[s.m.n(len(s.top))]
		case r < 5 && len(s.reached) > 0:
			if h := s.holder[s.reached[s.m.n(len(s.reached))]]; h >= 0 {
				return s.corpus[h]
			}
		}
	}
	return s.corpus[s.m.n(len(s.corpus))]
}

// try builds and runs a packet; nil for one that cannot be built or that
// the kernel refuses to run.
func (s *searcher) try(p *packet) (*entry, error) {
	frame, err := p.build(s.b)
	if err != nil {
		return nil, nil // a shape gopacket cannot serialize: not a packet
	}
	ret, counts, err := s.c.Run(frame, s.c.Contexts[p.seed])
	s.tried++
	s.counts = counts
	if errors.Is(err, testrun.ErrFrameRefused) {
		s.refused++
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	e := &entry{pkt: p, frame: frame, length: len(frame), ret: ret, hash: pathHash(counts), tried: s.tried}
	e.insns = s.c.Total(counts)
	s.paths[e.hash] = struct{}{}
	s.offer(e, counts)
	return e, nil
}

// judge records the runs' counts, naming index as the holder of every
// new maximum, and says whether they did anything new.
func (s *searcher) judge(counts []uint64, index int) bool {
	news := false
	for b, n := range counts {
		if n == 0 {
			continue
		}
		if s.max[b] == 0 {
			s.reached = append(s.reached, b)
		}
		if s.guide&Coverage != 0 {
			if bk := bucket(n); s.buckets[b]&bk == 0 {
				s.buckets[b] |= bk
				news = true
			}
		}
		if n > s.max[b] {
			s.max[b] = n
			if s.guide&Cost != 0 {
				s.holder[b] = index
				news = true
			}
		}
	}
	return news
}

// slot is where the next packet kept goes in the corpus: at its end, or,
// when it is full, in place of a random packet that is no seed, which
// then holds no block's maximum any more.
func (s *searcher) slot() int {
	if len(s.corpus) < maxCorpus {
		return len(s.corpus)
	}
	i := len(s.o.Seeds) + s.m.n(len(s.corpus)-len(s.o.Seeds))
	for b, h := range s.holder {
		if h == i {
			s.holder[b] = -1
		}
	}
	return i
}

// place puts e in the corpus at slot.
func (s *searcher) place(e *entry, slot int) {
	if slot == len(s.corpus) {
		s.corpus = append(s.corpus, e)
		return
	}
	s.corpus[slot] = e
}

// bucket is the range of a block's run count, a bit each: 1, 2, 3, 4-7,
// 8-15, 16-31, 32-127, 128 and more.
func bucket(n uint64) uint8 {
	switch {
	case n <= 3:
		return 1 << (n - 1)
	case n < 8:
		return 1 << 3
	case n < 16:
		return 1 << 4
	case n < 32:
		return 1 << 5
	case n < 128:
		return 1 << 6
	}
	return 1 << 7
}

// pathHash identifies a path by how many times it ran each block: FNV-1a.
func pathHash(counts []uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range counts {
		for range 8 {
			h ^= c & 0xff
			h *= 1099511628211
			c >>= 8
		}
	}
	return h
}

// offer keeps e among the costliest paths if it is one: a path seen first
// keeps its first packet.
func (s *searcher) offer(e *entry, counts []uint64) {
	if len(s.top) == s.o.Top && e.insns <= s.top[len(s.top)-1].insns {
		return
	}
	for _, t := range s.top {
		if t.hash == e.hash {
			return
		}
	}
	e.counts = slices.Clone(counts)
	i, _ := slices.BinarySearchFunc(s.top, e.insns, func(t *entry, insns uint64) int {
		// Costliest first; among equals, the first found.
		switch {
		case t.insns > insns:
			return -1
		case t.insns < insns:
			return 1
		}
		return -1
	})
	s.top = slices.Insert(s.top, i, e)
	if len(s.top) > s.o.Top {
		s.top = s.top[:s.o.Top]
	}
}
