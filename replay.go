package xdpmicro

import (
	"context"
	"fmt"

	"github.com/xdpmicro/xdpmicro/bpf"
	"github.com/xdpmicro/xdpmicro/internal/replay"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// ReplayOptions are a replay of a capture (Replay): the capture, the
// program or the two builds, the maps' start, and how often to time it.
// Zero fields are the defaults.
type ReplayOptions struct {
	// Capture is a pcap or pcapng file, read as a stream; Synthetic is
	// traffic made in its place (SyntheticPacket gives its packet). One
	// of the two.
	Capture   string
	Synthetic *SyntheticTraffic
	// Programs are the program replayed, or two builds, before then
	// after, replayed on the same traffic and compared.
	Programs []Program
	MapInit  *MapInit
	Load     LoadOptions
	// CPU pins the runs to one CPU; nil lets xdpmicro choose.
	CPU *int
	// Replays is how many times the capture is timed, each on a fresh
	// load (DefaultReplays; 2 to MaxReplays).
	Replays int
	// Limit replays the first Limit packets only (0: all, at most
	// MaxReplayPackets).
	Limit int
	// Keep is how many packets the result lists one by one, from the
	// first (0: DefaultReplayKeep; negative: none).
	Keep int
	// RunTimeStats adds one replay timed by the kernel's run-time
	// statistics (kernel.bpf_stats_enabled, on for that replay only), as
	// an independent figure beside the mean.
	RunTimeStats bool
	// Rate is a packet rate, packets a second, to give the cores a
	// comparison's change takes at it; 0: none.
	Rate float64
	// Baseline is a replay saved earlier (results.LoadReplayBaseline) of
	// the same traffic, to compare the one program's replay with;
	// BaselineName names it in the report.
	Baseline     *results.Replay
	BaselineName string
}

// Defaults and bounds of a replay.
const (
	DefaultReplays    = replay.DefaultReplays
	MaxReplays        = replay.MaxReplays
	DefaultReplayKeep = replay.DefaultKeep
	MaxReplayPackets  = replay.MaxPackets
)

// SyntheticTraffic is traffic made without a capture: a case's packet
// over N flows (up to MaxSyntheticFlows), drawn uniformly or by Zipf's
// law, a share of the packets opening new flows, from a seed.
type SyntheticTraffic = replay.Synthetic

// MaxSyntheticFlows is the most flows synthetic traffic draws from.
const MaxSyntheticFlows = replay.MaxFlows

// SyntheticPacket is the packet synthetic traffic is made of: a class or
// mix case as bench's --class names it (tcp-syn, udp-dns), or the first
// packet of a packet file or capture. An unknown name is ErrBadInput.
func SyntheticPacket(name string) (packets.Case, error) { return replay.TemplateCase(name) }

// ReplayProgress is how far a replay has got.
type ReplayProgress = replay.Progress

// ReplayObserver hears of a replay while it goes.
type ReplayObserver interface {
	Replaying(ReplayProgress)
	Notice(string)
}

// Replay runs a capture's packets in their order through the program,
// its maps carried from one packet to the next, starting from the maps
// as loaded and MapInit: once on its instrumented copy, for each
// packet's path (its instructions, action and map effects kind), then
// Replays times timed, each on a fresh load. It gives the traffic's mean
// cost per packet net of the floor, with an interval meant to hold the
// next replay's, the percentiles per packet, and each path group's
// shares of packets and of time; with two builds, the change (docs/replay.md).
// A capture that cannot be read is ErrBadInput.
func Replay(ctx context.Context, o ReplayOptions, obs ReplayObserver) (*results.Replay, error) {
	if len(o.Programs) < 1 || len(o.Programs) > 2 {
		return nil, fmt.Errorf("%w: replay %d programs: want one, or two to compare", ErrOptions, len(o.Programs))
	}
	progs, err := targets(o.Programs)
	if err != nil {
		return nil, err
	}
	ro := replay.Options{Capture: o.Capture, Synthetic: o.Synthetic, Programs: progs, Floor: testrun.Object{Name: "floor", ELF: bpf.Floor()},
		MapInit: o.MapInit, Load: o.Load, CPU: testrun.AnyCPU, Replays: o.Replays, Limit: o.Limit, Keep: o.Keep,
		Reference: o.RunTimeStats, Rate: o.Rate, Baseline: o.Baseline, BaselineName: o.BaselineName}
	switch {
	case o.CPU != nil && *o.CPU < testrun.AnyCPU:
		return nil, fmt.Errorf("%w: CPU %d: want a CPU number, or testrun.AnyCPU to choose", ErrOptions, *o.CPU)
	case o.CPU != nil:
		ro.CPU = *o.CPU
	}
	switch {
	case o.Keep == 0:
		ro.Keep = DefaultReplayKeep
	case o.Keep < 0:
		ro.Keep = 0
	}
	if obs != nil {
		ro.Progress, ro.Notice = obs.Replaying, obs.Notice
	}
	return replay.Run(ctx, ro)
}
