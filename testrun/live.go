package testrun

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/livenet"
	"github.com/xdpmicro/xdpmicro/internal/object"
)

// Live frames (Linux 5.18, BPF_F_TEST_XDP_LIVE_FRAMES): the kernel carries
// out each run's action on a real frame, transmitting it, redirecting it or
// handing it to the stack, in batches, where a plain test run only returns
// the action. The frames arrive on a veth pair of the run's own
// (internal/livenet), whose counters confirm where they went.

// Live configures the runs of the programs whose Program.Live is set.
type Live struct {
	// Net is where the frames go (OpenLiveNet); every program of the run
	// has its maps filled and runs inside it, live or not.
	Net *LiveNet
	// Batch is the frames the kernel runs and flushes together; 0 for
	// its default, DefaultBatch.
	Batch uint32
}

// DefaultBatch is the kernel's batch of live frames when none is given.
const DefaultBatch = 64

// batch is the frames a batch of live frames holds. The checks send
// whole batches: one frame alone would neither meet a recycled page nor
// tell a program that alternates its action from one that does not.
func (l *Live) batch() uint32 { return cmp.Or(l.Batch, DefaultBatch) }

// MaxBatch is the kernel's largest batch (NAPI_POLL_WEIGHT).
const MaxBatch = 256

// ErrLiveMismatch: live frames did not go where the checking run's
// action says they would.
var ErrLiveMismatch = errors.New("live frames went elsewhere")

// pin runs f on the measuring CPU, inside the live frames' namespace when
// the run has one: the kernel finds ctx's ingress_ifindex in the calling
// thread's namespace. Pin's thread is discarded afterwards, whatever f
// left it in.
func (p *plan) pin(f func() error) error {
	return host.Pin(p.cpu, func() error {
		if p.cfg.Live == nil {
			return f()
		}
		leave, err := p.cfg.Live.Net.pair.Enter()
		if err != nil {
			return err
		}
		err = f()
		return errors.Join(err, leave())
	})
}

// liveContext gives an XDP case's context the pair's ingress device, so
// that every program, live or not, runs as if the frame arrived there.
func (p *plan) liveContext(programType ebpf.ProgramType, ctxIn []byte, frame int) []byte {
	if p.cfg.Live == nil || programType != ebpf.XDP {
		return ctxIn
	}
	const dataEnd, ingressIfindex, rxQueue, size = 4, 12, 16, 24
	if ctxIn == nil {
		ctxIn = make([]byte, size)
		binary.NativeEndian.PutUint32(ctxIn[dataEnd:], uint32(frame))
	}
	binary.NativeEndian.PutUint32(ctxIn[ingressIfindex:], uint32(p.cfg.Live.Net.pair.Ingress()))
	binary.NativeEndian.PutUint32(ctxIn[rxQueue:], 0)
	return ctxIn
}

// validateLive refuses what live frames cannot run.
func (c Config) validateLive() error {
	live := slices.ContainsFunc(c.Programs, func(p Program) bool { return p.Live })
	switch {
	case c.Live != nil && c.Live.Net == nil:
		// Every program's maps are filled through it, live or not.
		return fmt.Errorf("%w: live frames need a network to send them to", ErrConfig)
	case !live:
		return nil
	case c.Live == nil:
		return fmt.Errorf("%w: live programs need a network to send their frames to", ErrConfig)
	case c.Live.Batch > MaxBatch:
		return fmt.Errorf("%w: a batch of %d live frames: the kernel takes at most %d", ErrConfig, c.Live.Batch, MaxBatch)
	case c.SingleRun:
		return fmt.Errorf("%w: live frames come from the kernel's own page pool in batches: they cannot be run one a call", ErrConfig)
	case c.Timer == TimerStats:
		return fmt.Errorf("%w: live frames are timed by the kernel's figure, not run-time statistics", ErrConfig)
	}
	return nil
}

// applyMapInit puts map-init's entries into l's maps; under --live from a
// thread inside the pair's namespace, because the kernel looks a devmap
// entry's ifindex up in the namespace of the thread that writes it: from
// the host's, an ifindex meaning xm0 named a host interface, and live
// frames went out of it.
func (p *plan) applyMapInit(ctx context.Context, l *program, updates []object.Update) error {
	if p.cfg.Live == nil || len(updates) == 0 {
		return l.ApplyContext(ctx, updates)
	}
	return p.cfg.Live.Net.pair.Inside(func() error { return l.ApplyContext(ctx, updates) })
}

// checkLiveMapInit refuses, before anything is loaded, a devmap or
// devmap_hash entry of map-init that names any interface but xm0. Its
// ifindex is looked up in the pair's namespace (applyMapInit), whose
// other interfaces, lo and xm1, drop a redirected frame where no counter
// sees it; what names none there the kernel would refuse.
func checkLiveMapInit(pair *livenet.Pair, updates []object.Update) error {
	for _, u := range updates {
		if t := u.MapType(); t != ebpf.DevMap && t != ebpf.DevMapHash {
			continue
		}
		key, value := u.Key(), u.Value()
		if len(key) != 4 || len(value) < 4 {
			continue // not a devmap's layout: the kernel refuses the map
		}
		ifindex := int(binary.NativeEndian.Uint32(value))
		if ifindex == pair.Ingress() || ifindex == 0 && u.MapType() == ebpf.DevMap {
			continue // 0 leaves a devmap's entry empty
		}
		what := "no interface"
		if name := pair.LinkName(ifindex); name != "" {
			what = name
		}
		links := pair.Links()
		return fmt.Errorf("%w: %s: map %s, key %d: ifindex %d is %s in the network namespace live frames run in, whose interfaces are %s (%d), %s (%d) and %s (%d); "+
			"under --live frames may leave only by %s, where they are counted: give %d, or leave the map out of --map-init and xdpmicro points every entry at %s",
			object.ErrMapInit, u.Where(), u.Map(), binary.NativeEndian.Uint32(key), ifindex, what,
			pair.LinkName(links[0]), links[0], pair.LinkName(links[1]), links[1], pair.LinkName(links[2]), links[2],
			livenet.IngressName, pair.Ingress(), livenet.IngressName)
	}
	return nil
}

// fillRedirectMaps points the devmaps, cpumaps and xskmaps of a live
// program's load that map-init left alone at the pair, so that a redirect
// through them goes somewhere.
func (p *plan) fillRedirectMaps(l *program, updates []object.Update) error {
	given := map[string]bool{}
	for _, u := range updates {
		given[u.Map()] = true
	}
	for name, m := range l.Maps() {
		if given[name] {
			continue
		}
		var err error
		switch m.Type() {
		case ebpf.DevMap, ebpf.DevMapHash:
			err = p.cfg.Live.Net.pair.FillDevmap(m)
		case ebpf.CPUMap:
			err = livenet.FillCpumap(m)
		case ebpf.XSKMap:
			if p.cfg.Repeat > livenet.SocketFrames {
				return fmt.Errorf("%w: map %s: live frames redirected into an AF_XDP socket must fit its rings, %d frames a call; --repeat %d asks for more",
					ErrConfig, name, livenet.SocketFrames, p.cfg.Repeat)
			}
			err = p.cfg.Live.Net.pair.FillXskmap(m)
		}
		if err != nil {
			return fmt.Errorf("map %s: %w", name, err)
		}
	}
	return nil
}

// checkLive runs every case of a live program once as a batch of live
// frames and confirms from the pair's counters that they went where the
// checking run's action says: XDP_TX and a redirect to the pair out to
// the peer, XDP_PASS and a cpumap to the stack, the others nowhere. A
// case whose program changes the frame is confirmed later, through its
// restorer (checkLiveRestored).
func (p *plan) checkLive(l *program, cases []CaseResult) error {
	batch := p.cfg.Live.batch()
	for _, c := range cases {
		if c.Output != nil {
			continue
		}
		if err := p.confirmCall(c, uint64(batch), func() error {
			_, _, _, _, err := l.call(c.Case.Frame, c.ctxIn, uint32(batch))
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// liveReuse is how many batches the check of a restored live case runs in
// one call: the kernel recycles a call's pages from the second batch on,
// and they come back with what the program wrote, which the restorer must
// undo (without it, flip_proto's later batches went to the stack).
const liveReuse = 4

// checkLiveRestored confirms, through its restorer, every case a live
// program changes the frame of: the kernel recycles live frames' pages
// without restoring their contents, so each run of such a case goes
// through the restorer, which writes the frame back before the program
// runs (the kernel itself resets its ends). A case no restorer reproduces
// is refused.
func (p *plan) checkLiveRestored(progs []*program, res *Result) error {
	for i, l := range progs {
		if !l.live {
			continue
		}
		for ci, c := range res.Programs[i].Cases {
			if c.Output == nil {
				continue
			}
			if !c.Restored || p.restorers == nil {
				return fmt.Errorf("%w: case %s: the program changes its frame, and live frames recycle their pages without restoring what it wrote; no restorer reproduces its runs (notes say why)", ErrConfig, c.Case.Name)
			}
			r := p.restorers[i]
			if err := r.choose(ci); err != nil {
				return err
			}
			frames := uint64(liveReuse * p.cfg.Live.batch())
			if err := p.confirmCall(c, frames, func() error {
				_, _, _, _, err := r.call(c.Case.Frame, c.ctxIn, uint32(frames))
				return err
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// confirmCall makes call, which sends frames live frames of case c, and
// confirms from the pair's counters that they went where c's action says.
func (p *plan) confirmCall(c CaseResult, frames uint64, call func() error) error {
	before, err := p.cfg.Live.Net.pair.Quiet()
	if err != nil {
		return err
	}
	if err := call(); err != nil {
		return fmt.Errorf("case %s, live: %w", c.Case.Name, err)
	}
	grew, err := p.cfg.Live.Net.pair.Settle(before, frames)
	if err != nil {
		return err
	}
	return confirmLive(c, grew, frames)
}

// confirmLive says whether frames live frames of case c, which the
// counters saw grow by grew, went where its action says.
func confirmLive(c CaseResult, grew livenet.Counts, frames uint64) error {
	sent, passed, received := grew.Transmitted, grew.Passed, grew.Received
	var want string
	var ok bool
	switch c.Action {
	case "XDP_TX":
		want, ok = "out to the peer", sent == frames && passed+received == 0
	case "XDP_REDIRECT":
		// All to one place: the same frame redirected elsewhere run by run
		// is an action that depends on more than the frame.
		want = "all one way: out to the peer, to the stack or to the socket"
		ok = sent == frames && passed+received == 0 || passed == frames && sent+received == 0 || received == frames && sent+passed == 0
	case "XDP_PASS":
		want, ok = "to the stack", passed == frames && sent+received == 0
	default:
		want, ok = "nowhere", sent+passed+received == 0
	}
	if !ok {
		return fmt.Errorf("%w: case %s returned %s, so its %d live frames should have gone %s; the peer saw %d, the stack %d and the AF_XDP socket %d",
			ErrLiveMismatch, c.Case.Name, c.Action, frames, want, sent, passed, received)
	}
	return nil
}
