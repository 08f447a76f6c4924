package replay

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// Effects are read, by copying the copy's maps before and after a run,
// for every packet of the first readAll, for the readAfterNew packets
// after a path first met unread, and for any other packet while reading
// has taken less than readBase and a readShare of the counting replay: a
// small capture's effects are all read, a large one's spread over it at
// a bounded cost. (A stride that doubled every readAll packets read katran's
// maps 1,000 times in a 1 M-packet capture, 10 s of its 16 s count.)
const (
	readAll      = 128
	readAfterNew = 16
	readBase     = 200 * time.Millisecond
	readShare    = 0.25
)

// countPass is what the counting replay found: each packet's path.
type countPass struct {
	table   *pathTable
	ids     []uint16
	skipped int
	// strayed counts the paths readUnread left unread: the second pass
	// took another path at their first packet.
	strayed int
	// digest is the packets' SHA-256, each frame after its length.
	digest string
}

// readEffects says whether packet i's effects are read, given the
// packets still to read after a new path and the time reading has taken
// of the time counting has.
func readEffects(i, pending int, reading, counting time.Duration) bool {
	return i < readAll || pending > 0 || reading < readBase+time.Duration(readShare*float64(counting))
}

// count replays the capture once through s's instrumented copy: each
// packet's path, and its effects where read.
func (r *runner) count(ctx context.Context, s *testrun.Sequence) (*countPass, error) {
	c := &countPass{table: newPathTable()}
	pending := 0
	start := time.Now()
	var reading time.Duration
	digest := sha256.New()
	n, skipped, err := r.each(ctx, "counting "+s.Info.Name, func(i int, frame []byte) error {
		digest.Write(binary.BigEndian.AppendUint32(nil, uint32(len(frame))))
		digest.Write(frame)
		var ret uint32
		var counts []uint64
		var changes []results.MapChange
		var err error
		read := readEffects(i, pending, reading, time.Since(start))
		if read {
			at := time.Now()
			ret, counts, changes, err = s.CountEffects(frame)
			reading += time.Since(at)
		} else {
			ret, counts, err = s.Count(frame)
		}
		if err != nil {
			return fmt.Errorf("the instrumented copy: %w", err)
		}
		id, isNew := c.table.id(counts, ret, s.Total(counts), i)
		c.ids = append(c.ids, id)
		switch {
		case read:
			c.table.addEffects(id, changes)
			pending = max(pending-1, 0)
		case isNew:
			pending = readAfterNew
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.ids, c.skipped, c.digest = c.ids[:n], skipped, hex.EncodeToString(digest.Sum(nil))
	return c, r.readUnread(ctx, s, c)
}

// maxLateReads bounds the packets readUnread reads.
const maxLateReads = 1000

// readUnread reads the effects of the first packet of each path that
// no packet read, in a second counting replay from the maps as loaded:
// the copy is at that packet's state again when it comes.
func (r *runner) readUnread(ctx context.Context, s *testrun.Sequence, c *countPass) error {
	want := map[int]uint16{}
	for id, p := range c.table.paths {
		if p.read == 0 && len(want) < maxLateReads {
			want[p.first] = uint16(id)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if err := s.ReloadCopy(); err != nil {
		return err
	}
	r.passes++
	_, _, err := r.each(ctx, "reading effects, "+s.Info.Name, func(i int, frame []byte) error {
		id, ok := want[i]
		if !ok {
			_, _, err := s.Count(frame)
			return err
		}
		ret, counts, changes, err := s.CountEffects(frame)
		if err != nil {
			return err
		}
		if again, _ := c.table.lookup(counts, ret); again != id {
			// A program that reads a clock or a random number (katran's
			// LRU ages its entries) need not take the same path twice:
			// the path's effects stay unread, and a note says so.
			c.strayed++
			return nil
		}
		c.table.addEffects(id, changes)
		return nil
	})
	return err
}

// floorEvery is how often the floor is timed, after one packet in so
// many: its figure is a mean, and each run costs a call.
const floorEvery = 4

// timing gathers the timed replays' figures.
type timing struct {
	own, key *countPass // the program's paths; the paths compared by (the after build's)
	replays  int
	// per replay: sums of ns and counts, the whole, by own path and by
	// key path; the floor's.
	sum, floorSum  []float64
	floorN         []int
	pathSum, pathN [][]float64
	keySum, keyN   [][]float64
	hist           histogram
	kept           []float64 // sums over replays, of the first packets
	mismatches     int
	packets        int
	// per replay, sums of ns by bin of binSize consecutive packets
	binSum  [][]float64
	binSize int
}

func newTiming(own, key *countPass, replays, keep int) *timing {
	t := &timing{own: own, key: key, replays: replays, packets: len(own.ids),
		sum: make([]float64, replays), floorSum: make([]float64, replays), floorN: make([]int, replays),
		kept: make([]float64, min(keep, len(own.ids))), hist: newHistogram()}
	t.binSize = max(1, (t.packets+results.MaxReplayBins-1)/results.MaxReplayBins)
	for range replays {
		t.binSum = append(t.binSum, make([]float64, (t.packets+t.binSize-1)/t.binSize))
		t.pathSum, t.pathN = append(t.pathSum, make([]float64, len(own.table.paths))), append(t.pathN, make([]float64, len(own.table.paths)))
		t.keySum, t.keyN = append(t.keySum, make([]float64, len(key.table.paths))), append(t.keyN, make([]float64, len(key.table.paths)))
	}
	return t
}

// timed replays the capture through a fresh load of each sequence's
// program, two builds in lock-step, packet by packet, the first to run
// alternating: each packet's run timed by the kernel, at the same moment
// in both builds, so that the host's drift hits both alike; the floor
// runs after one packet in floorEvery, and counts for both.
func (r *runner) timed(ctx context.Context, seqs []*testrun.Sequence, counted []*countPass, ts []*timing, k int) error {
	for _, s := range seqs {
		if err := s.Reload(ctx); err != nil {
			return err
		}
	}
	_, _, err := r.each(ctx, fmt.Sprintf("replay %d of %d", k+1, r.o.Replays), func(i int, frame []byte) error {
		if i >= len(counted[0].ids) {
			return fmt.Errorf("the capture changed since it was counted: more packets")
		}
		for j := range seqs {
			if i%2 == 1 {
				j = len(seqs) - 1 - j
			}
			if err := ts[j].time(seqs[j], counted[j], frame, i, k); err != nil {
				return err
			}
		}
		if i%floorEvery != 0 {
			return nil
		}
		f, err := seqs[0].TimeFloor(frame)
		if err != nil {
			return fmt.Errorf("the floor: %w", err)
		}
		for _, t := range ts {
			t.floorSum[k] += float64(f)
			t.floorN[k]++
		}
		return nil
	})
	return err
}

// time runs packet i through s and adds its time to replay k's.
func (t *timing) time(s *testrun.Sequence, c *countPass, frame []byte, i, k int) error {
	ret, ns, err := s.Time(frame)
	if err != nil {
		return err
	}
	own, key := c.ids[i], t.key.ids[i]
	if ret != c.table.paths[own].action {
		t.mismatches++
	}
	v := float64(ns)
	t.sum[k] += v
	t.pathSum[k][own] += v
	t.pathN[k][own]++
	t.keySum[k][key] += v
	t.keyN[k][key]++
	t.hist.add(ns)
	t.binSum[k][i/t.binSize] += v
	if i < len(t.kept) {
		t.kept[i] += v
	}
	return nil
}

// floor is replay k's floor mean, ns.
func (t *timing) floor(k int) float64 {
	if t.floorN[k] == 0 {
		return 0
	}
	return t.floorSum[k] / float64(t.floorN[k])
}

// reference replays the capture once more through a fresh load, the
// kernel's run-time statistics on: the program's run_time_ns growth
// over its run_cnt, less the floor's.
func (r *runner) reference(ctx context.Context, s *testrun.Sequence) (*results.ReplayReference, error) {
	if err := s.Reload(ctx); err != nil {
		return nil, err
	}
	off, err := testrun.EnableRunTimeStats()
	if err != nil {
		return nil, err
	}
	defer off()
	p0, f0, err := s.RunTime()
	if err != nil {
		return nil, err
	}
	_, _, err = r.each(ctx, "run-time statistics, "+s.Info.Name, func(i int, frame []byte) error {
		if _, _, err := s.Time(frame); err != nil {
			return err
		}
		if i%floorEvery == 0 {
			_, err := s.TimeFloor(frame)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	p1, f1, err := s.RunTime()
	if err != nil {
		return nil, err
	}
	if p1.Runs == p0.Runs || f1.Runs == f0.Runs {
		return nil, fmt.Errorf("run-time statistics counted no run")
	}
	raw := float64(p1.NS-p0.NS) / float64(p1.Runs-p0.Runs)
	floor := float64(f1.NS-f0.NS) / float64(f1.Runs-f0.Runs)
	return &results.ReplayReference{Mean: raw - floor, Raw: raw, Floor: floor}, nil
}
