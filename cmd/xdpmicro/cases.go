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
}

func (c *caseFlags) register(cmd *cobra.Command, pcapFlag string) {
	fl := cmd.Flags()
	c.pcapFlag = pcapFlag
	fl.StringSliceVar(&c.classes, "class", packets.Classes(), "built-in packet cases, comma-separated; known: "+strings.Join(packets.Names(), ", ")+" (default only without --packets or --"+pcapFlag+")")
	fl.StringVar(&c.packetFile, "packets", "", "packet cases described in a YAML or JSON file (see the README)")
	fl.StringVar(&c.pcap, pcapFlag, "", "packet cases from a pcap or pcapng capture, one per distinct packet")
	fl.IntVar(&c.pcapLimit, "pcap-limit", 0, "at most this many cases from the capture; 0: all")
	fl.IntSliceVar(&c.sizes, "size", nil, "pad every case to each of these frame sizes in bytes, e.g. 64,512,1500")
	fl.StringVar(&c.expect, "expect", "", "expected return of every case: XDP_PASS, XDP_DROP, XDP_TX, XDP_REDIRECT, XDP_ABORTED, TC_ACT_*, or a number")
	_ = cmd.RegisterFlagCompletionFunc("class", fixedCompletion(packets.Names()))
	_ = cmd.RegisterFlagCompletionFunc("expect", fixedCompletion([]string{"XDP_PASS", "XDP_DROP", "XDP_TX", "XDP_REDIRECT", "XDP_ABORTED", "TC_ACT_OK", "TC_ACT_SHOT"}))
}

// cases assembles the selected cases. The built-in cases' expected
// actions are those of the bundled programs: kept only for them.
func (c *caseFlags) cases(fl *pflag.FlagSet, bundled bool) ([]packets.Case, error) {
	var cases []packets.Case
	if fl.Changed("class") || c.packetFile == "" && c.pcap == "" {
		builtin, err := packets.Select(c.classes)
		if err != nil {
			return nil, err
		}
		for i := range builtin {
			if !bundled {
				builtin[i].Expect = ""
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
