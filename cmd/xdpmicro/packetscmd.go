package main

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/google/renameio/v2"
	"github.com/olekukonko/tablewriter"
	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro/packets"
)

func packetsCommand() *cobra.Command {
	var selection caseFlags
	var out string
	cmd := &cobra.Command{
		Use:   "packets",
		Short: "Show the packet cases bench would use, or write them as a pcap",
		Long: `Show the packet cases that bench would use with the same selection flags:
name, summary, source address, size, expected return, why each IPv4 source
is in its FizzBuzzFibonacci class, and each frame in hex.
With --pcap, write them instead as a pcap file for tcpdump or Wireshark
(the input capture, if any, is --from-pcap here).`,
		Example: `  xdpmicro packets
  xdpmicro packets --class fizz,short --size 64,1500
  xdpmicro packets --packets cases.yaml --pcap cases.pcap && tcpdump -nr cases.pcap`,
		Args: atMostArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cases, err := selection.cases(cmd.Flags(), caseDefaults{classes: true, expect: true})
			if err != nil {
				return err
			}
			if out != "" {
				var buf bytes.Buffer
				if err := packets.WritePcap(&buf, cases); err != nil {
					return err
				}
				if err := renameio.WriteFile(out, buf.Bytes(), 0o644); err != nil {
					return fmt.Errorf("write %s: %w", out, err)
				}
				_, err := fmt.Fprintf(cmd.ErrOrStderr(), "xdpmicro: %d case(s) written to %s\n", len(cases), out)
				return err
			}
			w := cmd.OutOrStdout()
			table := tablewriter.NewWriter(w)
			table.Header("case", "summary", "source", "bytes", "expect")
			for _, c := range cases {
				src := ""
				if c.Source.IsValid() {
					src = c.Source.String()
				}
				if err := table.Append(c.Name, c.Summary, src, fmt.Sprint(len(c.Frame)), c.Expect); err != nil {
					return err
				}
			}
			if err := table.Render(); err != nil {
				return err
			}
			// Why each IPv4 source is in its FizzBuzzFibonacci class, as
			// the bundled v3 and v4 decide it.
			for _, c := range cases {
				if c.Source.Is4() {
					fmt.Fprintf(w, "%s: %s is in class %s: %s\n", c.Name, c.Source, packets.Classify(c.Source), packets.Reason(c.Source))
				}
			}
			for _, c := range cases {
				if len(c.Context) > 0 {
					fmt.Fprintf(w, "%s: context %s\n", c.Name, c.Context)
				}
			}
			for _, c := range cases {
				fmt.Fprintf(w, "\n%s (%d bytes)\n%s", c.Name, len(c.Frame), hex.Dump(c.Frame))
			}
			return nil
		},
	}
	selection.register(cmd, "from-pcap")
	cmd.Flags().StringVar(&out, "pcap", "", "write the cases to this pcap file (atomically) instead of listing them")
	return cmd
}
