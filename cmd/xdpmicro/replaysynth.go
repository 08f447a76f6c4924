package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/packets"
)

// synthFlags make traffic without a capture: replay --synthetic.
type synthFlags struct {
	packet   string
	flows    int
	zipf     float64
	newFlows string
	packets  int
	seed     uint64
}

// Synthetic traffic's defaults: a short replay of a table that fits
// katran's LRU and overflows a small one.
const (
	defaultSynthFlows   = 10_000
	defaultSynthPackets = 100_000
)

// synthOnly are the flags that shape synthetic traffic: they need
// --synthetic.
var synthOnly = []string{"flows", "zipf", "new-flows", "packets", "seed"}

func (f *synthFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.packet, "synthetic", "", "replay traffic made of `PACKET` in place of a capture: a case as --class names it "+
		"(tcp-syn, udp-dns, ...) or a packet file's or capture's first packet; each flow steps its source address and port")
	fl.IntVar(&f.flows, "flows", defaultSynthFlows, fmt.Sprintf("synthetic: draw the packets from `N` established flows, 1 to %d (2^24)", xdpmicro.MaxSyntheticFlows))
	fl.Float64Var(&f.zipf, "zipf", 0, "synthetic: draw flows by Zipf's law of exponent `S` (1.1: a few flows take most packets); 0 draws them alike")
	describeDefault(fl, "zipf", "uniform")
	fl.StringVar(&f.newFlows, "new-flows", "0", "synthetic: the `SHARE` of packets that each open a new flow (a SYN over TCP): 3%, 0.03, 100% for every packet")
	fl.IntVar(&f.packets, "packets", defaultSynthPackets, fmt.Sprintf("synthetic: make `N` packets, 1 to %d", xdpmicro.MaxReplayPackets))
	fl.Uint64Var(&f.seed, "seed", 1, "synthetic: the `SEED` the flows are drawn from: the same seed, the same packets")
	_ = cmd.RegisterFlagCompletionFunc("synthetic", fixedCompletion(packets.Names()))
}

// check refuses a synthetic flag without --synthetic, or out of bounds.
func (f synthFlags) check(fl *pflag.FlagSet) error {
	if f.packet == "" {
		for _, name := range synthOnly {
			if fl.Changed(name) {
				return usageError(fmt.Errorf("--%s shapes synthetic traffic: it needs --synthetic PACKET", name))
			}
		}
		return nil
	}
	if err := checkCount("flows", f.flows, 1, xdpmicro.MaxSyntheticFlows); err != nil {
		return err
	}
	if err := checkCount("packets", f.packets, 1, xdpmicro.MaxReplayPackets); err != nil {
		return err
	}
	if !(f.zipf >= 0 && f.zipf <= 10) {
		return usageError(fmt.Errorf("--zipf %g: want an exponent above 0 and at most 10, or 0 for uniform", f.zipf))
	}
	_, err := parseShare(f.newFlows)
	return err
}

// traffic is the synthetic traffic asked for, nil without --synthetic.
func (f synthFlags) traffic() (*xdpmicro.SyntheticTraffic, error) {
	if f.packet == "" {
		return nil, nil
	}
	c, err := xdpmicro.SyntheticPacket(f.packet)
	if err != nil {
		return nil, fmt.Errorf("--synthetic: %w", err)
	}
	share, err := parseShare(f.newFlows)
	if err != nil {
		return nil, err
	}
	return &xdpmicro.SyntheticTraffic{Case: c, Flows: f.flows, Zipf: f.zipf, NewFlows: share, Packets: f.packets, Seed: f.seed}, nil
}

// parseShare reads --new-flows: a percentage ("3%") or a fraction.
func parseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if p, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = strings.TrimSpace(p), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v*scale >= 0 && v*scale <= 1) {
		return 0, usageError(fmt.Errorf("--new-flows %q: want a share from 0 to 1, or 0%% to 100%%: 3%%, 0.03", s))
	}
	return v * scale, nil
}
