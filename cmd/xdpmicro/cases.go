package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xdpmicro/xdpmicro/packets"
)

// caseFlags select the packet cases, the same for bench and packets.
type caseFlags struct {
	classes    []string
	packetFile string
	pcap       string
	pcapFlag   string // the flag's name: "pcap" in bench, "from-pcap" in packets
	pcapLimit  int
	sizes      []int
	expect     string
	context    string
}

func (c *caseFlags) register(cmd *cobra.Command, pcapFlag string) {
	fl := cmd.Flags()
	c.pcapFlag = pcapFlag
	fl.StringSliceVar(&c.classes, "class", nil, "built-in packet cases, comma-separated; known: "+strings.Join(packets.Names(), ", ")+
		"; groups: "+packets.GroupClasses+" (the source-address classes), "+packets.GroupMix+" (the protocol mix). "+
		"Default, only without --packets or --"+pcapFlag+": the classes for a bundled build, the mix for other objects")
	fl.StringVar(&c.packetFile, "packets", "", "packet cases described in a YAML or JSON file (see the README)")
	fl.StringVar(&c.pcap, pcapFlag, "", "packet cases from a pcap or pcapng capture, one per distinct packet")
	fl.IntVar(&c.pcapLimit, "pcap-limit", 0, "at most this many cases from the capture; 0: all")
	fl.IntSliceVar(&c.sizes, "size", nil, "pad every case to each of these frame sizes in bytes, e.g. 64,512,1500")
	fl.StringVar(&c.context, "ctx", "", "context fields every case's runs are given, name=value comma-separated, e.g. mark=0x2a,priority=3 (tc, socket filter: mark, priority, ingress_ifindex, ifindex, cb[0]..cb[4], tstamp, wire_len, gso_segs, gso_size, hwtstamp; XDP: ingress_ifindex, rx_queue_index); an ifindex may be an interface name; a packet file's ctx: overrides field by field")
	fl.StringVar(&c.expect, "expect", "", "expected return of every case: XDP_PASS, XDP_DROP, XDP_TX, XDP_REDIRECT, XDP_ABORTED, TC_ACT_*, or a number")
	_ = cmd.RegisterFlagCompletionFunc("class", fixedCompletion(append(packets.Names(), packets.GroupClasses, packets.GroupMix)))
	_ = cmd.RegisterFlagCompletionFunc("expect", fixedCompletion([]string{"XDP_PASS", "XDP_DROP", "XDP_TX", "XDP_REDIRECT", "XDP_ABORTED", "TC_ACT_OK", "TC_ACT_SHOT"}))
}

// caseDefaults say what the programs measured are: the bundled builds
// parse source-address classes, other objects get the protocol mix.
type caseDefaults struct {
	classes bool // every program is a bundled build: the classes by default
	expect  bool // every program is a FizzBuzz build: expect what they return
}

// cases assembles the selected cases. The built-in cases expect what the
// bundled programs return, only when those are measured.
func (c *caseFlags) cases(fl *pflag.FlagSet, defaults caseDefaults) ([]packets.Case, error) {
	var cases []packets.Case
	if fl.Changed("class") || c.packetFile == "" && c.pcap == "" {
		names := c.classes
		if !fl.Changed("class") {
			names = packets.Mix()
			if defaults.classes {
				names = packets.Classes()
			}
		}
		builtin, err := packets.Select(names)
		if err != nil {
			return nil, err
		}
		for i := range builtin {
			if defaults.expect {
				builtin[i].Expect = packets.BundledExpect(builtin[i])
			}
		}
		cases = append(cases, builtin...)
	}
	if c.packetFile != "" {
		fromFile, err := packets.ReadFile(c.packetFile)
		if err != nil {
			return nil, err
		}
		cases = append(cases, fromFile...)
	}
	if c.pcap != "" {
		captured, err := packets.ReadPcap(c.pcap, c.pcapLimit)
		if err != nil {
			return nil, err
		}
		cases = append(cases, captured...)
	}
	if c.context != "" {
		all, err := packets.ParseContext(c.context)
		if err != nil {
			return nil, fmt.Errorf("--ctx: %w", err)
		}
		cases = packets.WithContext(cases, all)
	}
	seen := map[string]bool{}
	for i := range cases {
		if seen[cases[i].Name] {
			return nil, usageError{fmt.Errorf("packet case %q is defined twice", cases[i].Name)}
		}
		seen[cases[i].Name] = true
		if c.expect != "" {
			cases[i].Expect = strings.ToUpper(c.expect)
		}
	}
	if len(c.sizes) == 0 {
		return cases, nil
	}
	var sized []packets.Case
	for _, cs := range cases {
		for _, size := range c.sizes {
			padded, err := packets.Pad(cs, size)
			if err != nil {
				return nil, fmt.Errorf("--size %d, case %s: %w", size, cs.Name, err)
			}
			sized = append(sized, padded)
		}
	}
	return sized, nil
}
