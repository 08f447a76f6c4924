package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Options are a replay's: the capture, the program(s), and how often to
// time it.
type Options struct {
	// Capture is a pcap or pcapng file; Synthetic is traffic made in its
	// place. One of the two.
	Capture   string
	Synthetic *Synthetic
	// Programs are one program, or two builds: before, then after.
	Programs []testrun.Program
	Floor    testrun.Object
	MapInit  *testrun.MapInit
	Load     testrun.LoadOptions
	CPU      int
	// Replays is how many times the capture is timed, each on a fresh
	// load: 2 to MaxReplays.
	Replays int
	// Limit replays the first Limit packets only (0: MaxPackets).
	Limit int
	// Keep is how many packets the result lists one by one (PacketList).
	Keep int
	// Reference adds a replay timed by the kernel's run-time statistics.
	Reference bool
	// Baseline is a replay saved earlier, of the same traffic, to compare
	// the one program's with; BaselineName names it.
	Baseline     *results.Replay
	BaselineName string
	// Rate is a packet rate (packets a second) to give cores at; 0: none.
	Rate     float64
	Progress func(Progress)
	Notice   func(string)
}

// Defaults and bounds.
const (
	DefaultReplays = 5
	MaxReplays     = 100
	DefaultKeep    = 100_000
)

// Progress is how far a replay has got: Done of Total steps (bytes of
// the capture over every pass), in pass Pass of Passes.
type Progress struct {
	Pass, Passes int
	What         string
	Done, Total  int64
}

// check refuses options that cannot run, as bad input.
func (o *Options) check() error {
	switch {
	case o.Capture == "" && o.Synthetic == nil:
		return badinput.New("replay: no capture given")
	case o.Capture != "" && o.Synthetic != nil:
		return badinput.New("replay: a capture and synthetic traffic given: choose one")
	case len(o.Programs) < 1 || len(o.Programs) > 2:
		return badinput.Wrap(fmt.Errorf("replay: %d programs: want one, or two to compare", len(o.Programs)))
	case o.Replays == 0:
		o.Replays = DefaultReplays
	}
	if o.Replays < 2 || o.Replays > MaxReplays {
		return badinput.Wrap(fmt.Errorf("replay: %d replays: want 2 to %d (an interval needs two)", o.Replays, MaxReplays))
	}
	if o.Limit < 0 || o.Limit > MaxPackets {
		return badinput.Wrap(fmt.Errorf("replay: a limit of %d packets: want 1 to %d, or 0 for all", o.Limit, MaxPackets))
	}
	if o.Limit == 0 {
		o.Limit = MaxPackets
	}
	if o.Keep < 0 {
		return badinput.Wrap(fmt.Errorf("replay: keep %d packets: want 0 or more", o.Keep))
	}
	if o.Baseline != nil && len(o.Programs) != 1 {
		return badinput.New("replay: a baseline is compared with one program: not with two builds")
	}
	if o.Rate < 0 {
		return badinput.Wrap(fmt.Errorf("replay: a rate of %g packets a second: want more than 0", o.Rate))
	}
	return nil
}

// Run replays the capture through each program: once counting, then
// Replays times timed. With two programs it compares them, their timed
// replays taken in turns on one CPU. Interrupted, it returns ctx's error.
func Run(ctx context.Context, o Options) (*results.Replay, error) {
	start := time.Now()
	if err := o.check(); err != nil {
		return nil, err
	}
	probe, err := open(o) // bad input before anything is loaded
	if err != nil {
		return nil, err
	}
	size := probe.size()
	probe.Close()
	seqs, err := openAll(ctx, o)
	defer closeAll(seqs)
	if err != nil {
		return nil, err
	}
	r := &runner{o: o, size: size, passes: len(seqs) + o.Replays}
	if o.Reference {
		r.passes += len(seqs)
	}
	var reps []*results.Replay
	var timings []*timing
	err = seqs[0].Pin(func() error {
		reps, timings, err = r.all(ctx, seqs)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, rep := range reps {
		rep.Env, rep.Capture = environment(seqs[0].CPU, start), o.Capture
		if o.Synthetic != nil {
			rep.Capture, rep.Synthetic = o.Synthetic.Describe(), o.Synthetic.saved()
		}
		if rep.Mean.Point > 0 {
			rep.PPSPerCore = 1e9 / rep.Mean.Point
		}
		rep.RatePPS, rep.Cores = o.Rate, o.Rate*rep.Mean.Point*1e-9
	}
	if len(reps) == 1 && o.Baseline != nil {
		return compareSaved(o.Baseline, reps[0], o.BaselineName, o.Rate), nil
	}
	if len(reps) == 1 {
		return reps[0], nil
	}
	return compare(reps[0], reps[1], [2]*timing{timings[0], timings[1]}, o.Rate), nil
}

// openAll opens each program's sequence, the second on the first's CPU.
func openAll(ctx context.Context, o Options) ([]*testrun.Sequence, error) {
	first, err := testrun.OpenSequence(ctx, o.Programs[0], o.Floor, o.MapInit, o.Load, o.CPU, o.Notice)
	if err != nil {
		return nil, err
	}
	seqs := []*testrun.Sequence{first}
	for _, p := range o.Programs[1:] {
		s, err := testrun.OpenBeside(first, p, o.Floor, o.MapInit, o.Load)
		if err != nil {
			return seqs, err
		}
		seqs = append(seqs, s)
	}
	return seqs, nil
}

// closeAll closes the sequences, the first (which holds the CPU) last.
func closeAll(seqs []*testrun.Sequence) {
	for i := len(seqs) - 1; i >= 0; i-- {
		seqs[i].Close()
	}
}

// runner carries a replay's passes.
type runner struct {
	o      Options
	size   int64
	pass   int
	passes int
}

// all counts each program's paths, then times the replays in turns, and
// assembles each program's result.
func (r *runner) all(ctx context.Context, seqs []*testrun.Sequence) ([]*results.Replay, []*timing, error) {
	counted := make([]*countPass, len(seqs))
	for i, s := range seqs {
		c, err := r.count(ctx, s)
		if err != nil {
			return nil, nil, err
		}
		counted[i] = c
	}
	if b := r.o.Baseline; b != nil && b.Traffic != counted[0].digest {
		// Before timing: a comparison of other traffic means nothing.
		return nil, nil, badinput.Wrap(fmt.Errorf("the baseline %s replayed other traffic (%s, %d packets) than this replay (%d packets): replay the same capture, or the same synthetic traffic and seed",
			r.o.BaselineName, b.Capture, b.Packets, len(counted[0].ids)))
	}
	timings := make([]*timing, len(seqs))
	for i := range seqs {
		timings[i] = newTiming(counted[i], counted[len(seqs)-1], r.o.Replays, r.o.Keep)
	}
	for k := range r.o.Replays {
		if err := r.timed(ctx, seqs, counted, timings, k); err != nil {
			return nil, nil, err
		}
	}
	first, err := r.firstFrame()
	if err != nil {
		return nil, nil, err
	}
	reps := make([]*results.Replay, len(seqs))
	for i, s := range seqs {
		reps[i] = assemble(s, r.o.Programs[i], counted[i], timings[i])
		if reps[i].FloorWarm, err = s.FloorWarm(first); err != nil {
			return nil, nil, fmt.Errorf("the floor in a warm loop: %w", err)
		}
		if r.o.Reference {
			ref, err := r.reference(ctx, s)
			if err != nil {
				return nil, nil, err
			}
			reps[i].Reference = ref
		}
	}
	return reps, timings, nil
}

// firstFrame is the traffic's first packet: the floor's frame in a warm
// loop (Sequence.FloorWarm).
func (r *runner) firstFrame() ([]byte, error) {
	s, err := open(r.o)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	frame, err := s.next()
	if err != nil {
		return nil, fmt.Errorf("the traffic's first packet: %w", err)
	}
	return slices.Clone(frame), nil
}

// each streams the capture's packets, at most the limit, to f with
// their place, reporting progress and stopping once ctx is done.
func (r *runner) each(ctx context.Context, what string, f func(i int, frame []byte) error) (n, skipped int, err error) {
	s, err := open(r.o)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	r.pass++
	for ; n < r.o.Limit; n++ {
		frame, err := s.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, s.skips(), err
		}
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return n, s.skips(), err
			}
			r.report(what, s.done())
		}
		if err := f(n, frame); err != nil {
			return n, s.skips(), fmt.Errorf("packet %d: %w", s.records(), err)
		}
	}
	skipped = s.skips()
	if n == r.o.Limit {
		for _, err := s.next(); err == nil; _, err = s.next() {
			skipped++ // past the limit: counted, not run
		}
	}
	r.report(what, r.size)
	if n == 0 {
		return 0, skipped, fmt.Errorf("%w %s: no packet to replay (%d skipped: shorter than an Ethernet header, or with no Ethernet form)", ErrCapture, r.o.Capture, skipped)
	}
	return n, skipped, nil
}

// open opens the replay's packets from the first.
func open(o Options) (source, error) {
	if o.Synthetic != nil {
		return openSynthetic(o.Synthetic)
	}
	return openStream(o.Capture)
}

// report tells the progress, if asked: done bytes of this pass.
func (r *runner) report(what string, done int64) {
	if r.o.Progress == nil {
		return
	}
	r.o.Progress(Progress{Pass: r.pass, Passes: r.passes, What: what,
		Done: int64(r.pass-1)*r.size + min(done, r.size), Total: int64(r.passes) * r.size})
}
