package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro/packets"
)

// caseFlags select the packet cases, the same for bench and packets.
type caseFlags struct {
	classes     []string
	packetFiles []string
	pcap        string
	pcapFlag    string // the flag's name: "pcap" in bench, "from-pcap" in packets
	pcapLimit   int
	sizes       []int
	expect      string
	context     string
}

func (c *caseFlags) register(cmd *cobra.Command, pcapFlag string) {
	fl := cmd.Flags()
	fl.StringSliceVar(&c.classes, "class", nil, "the built-in cases or groups `NAME,...`")
	describeDefault(fl, "class", "the classes for a bundled build, else the mix; none with --packets or a capture")
	c.registerFiles(cmd, pcapFlag)
	fl.IntSliceVar(&c.sizes, "size", nil, "pad every case to each frame size `BYTES,...` (e.g. 64,512,1500), as cases named case@size; "+
		"a size below a case's own frame is refused")
	c.registerContext(cmd)
	fl.StringVar(&c.expect, "expect", "", "fail unless every case returns `ACTION`, a name or number")
	describeDefault(fl, "expect", "a packet file's own; on a FizzBuzz build, the built-in cases'")
	_ = cmd.RegisterFlagCompletionFunc("class", fixedCompletion(append(packets.Names(), packets.GroupClasses, packets.GroupMix)))
	_ = cmd.RegisterFlagCompletionFunc("expect", fixedCompletion([]string{"XDP_PASS", "XDP_DROP", "XDP_TX", "XDP_REDIRECT", "XDP_ABORTED", "TC_ACT_OK", "TC_ACT_SHOT"}))
}

// registerFiles adds the cases read from files: packet files, raw
// frames, a capture.
func (c *caseFlags) registerFiles(cmd *cobra.Command, pcapFlag string) {
	fl := cmd.Flags()
	c.pcapFlag = pcapFlag
	fl.StringSliceVar(&c.packetFiles, "packets", nil, "YAML or JSON case files, or raw frames as bpftool's data_in "+
		"(a case per frame): `FILE,...`, repeatable, or a glob (docs/packets.md)")
	fl.StringVar(&c.pcap, pcapFlag, "", "packet cases from a pcap or pcapng `FILE`, one per distinct packet")
	fl.IntVar(&c.pcapLimit, "pcap-limit", packets.DefaultPcapLimit, fmt.Sprintf("keep the first `N` distinct packets of the capture, 1 to %d; "+
		"a capture may have %d MiB", packets.MaxCases, packets.MaxCaptureFile>>20))
}

// registerContext adds --ctx.
func (c *caseFlags) registerContext(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.context, "ctx", "", "run every case with the context `FIELD=VALUE,...` (e.g. mark=0x2a); "+
		"a packet file's ctx: overrides it field by field")
}

// caseDefaults say what the programs measured are: the bundled builds
// parse source-address classes, other objects get the protocol mix.
type caseDefaults struct {
	classes bool // every program is a bundled build: the classes by default
	expect  bool // every program is a FizzBuzz build: expect what they return
}

// cases turns the flags into a selection of packets and builds it,
// saying on cmd's stderr what of a capture was left out.
func (c *caseFlags) cases(cmd *cobra.Command, defaults caseDefaults) ([]packets.Case, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	fl := cmd.Flags()
	sel := packets.Selection{
		Builtin: fl.Changed("class") || len(c.packetFiles) == 0 && c.pcap == "",
		Classes: defaults.classes, BundledExpect: defaults.expect,
		Files: c.packetFiles, Pcap: c.pcap, PcapLimit: c.pcapLimit,
		Expect: c.expect, Sizes: c.sizes, Notice: noticeTo(cmd.ErrOrStderr()),
	}
	if fl.Changed("class") {
		sel.Names = c.classes
	}
	if err := c.parseContext(&sel); err != nil {
		return nil, err
	}
	return packets.Assemble(sel)
}

// parseContext puts --ctx into sel.
func (c *caseFlags) parseContext(sel *packets.Selection) error {
	if c.context == "" {
		return nil
	}
	var err error
	if sel.Context, err = packets.ParseContext(c.context); err != nil {
		return fmt.Errorf("--ctx: %w", err)
	}
	return nil
}

// seeds are the packets a search starts from: every built-in case, and
// those of the files and capture given, each with --ctx.
func (c *caseFlags) seeds(cmd *cobra.Command) ([]packets.Case, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	sel := packets.Selection{Builtin: true, Names: packets.Names(), Files: c.packetFiles, Pcap: c.pcap, PcapLimit: c.pcapLimit,
		Notice: noticeTo(cmd.ErrOrStderr())}
	if err := c.parseContext(&sel); err != nil {
		return nil, err
	}
	return packets.Assemble(sel)
}

// check refuses, before any file is read, a --pcap-limit out of bounds.
func (c *caseFlags) check() error {
	if c.pcapLimit < 1 || c.pcapLimit > packets.MaxCases {
		return usageError(fmt.Errorf("--pcap-limit %d: want 1 to %d", c.pcapLimit, packets.MaxCases))
	}
	return nil
}
