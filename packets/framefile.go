package packets

import (
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/xdpmicro/xdpmicro/internal/capture"
)

// A case of a packet file may give its frame whole, in hex, instead of by
// layers: a frame the layers cannot say (a length that lies, a header cut
// short), as a search finds them. WriteFile writes such files.

// layerFields are a case's fields that build its frame by layers.
var layerFields = []string{"eth", "ipv4", "ipv6", "arp", "udp", "tcp", "icmp", "encap", "payload"}

// frameCase reads a case whose frame: is given in hex (spaces and line
// breaks allowed), as it is: no length or checksum is fixed.
func (p *parser) frameCase(o *object) (Case, error) {
	for _, f := range layerFields {
		if o.has(f) {
			return Case{}, p.fail(o.fields[f], o.at(f), "give the frame by layers or whole (frame:), not both")
		}
	}
	s, n, _, err := o.text("frame")
	if err != nil {
		return Case{}, err
	}
	digits := strings.Join(strings.Fields(s), "")
	if len(digits)%2 != 0 {
		return Case{}, p.fail(n, o.at("frame"), "odd number of hex digits (%d)", len(digits))
	}
	data, err := hex.DecodeString(digits)
	switch {
	case err != nil:
		return Case{}, p.fail(n, o.at("frame"), "not hex: %v", err)
	case len(data) < minFrame:
		return Case{}, p.fail(n, o.at("frame"), "%d bytes: a frame needs at least an Ethernet header (%d bytes)", len(data), minFrame)
	case len(data) > capture.MaxCapture:
		return Case{}, p.fail(n, o.at("frame"), "%d bytes: more than any frame (%d)", len(data), capture.MaxCapture)
	}
	pkt := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.NoCopy)
	return Case{Summary: Summarize(data), Source: describe(pkt).source, Frame: data}, nil
}

// hexLine is how many bytes of a frame WriteFile puts on a line.
const hexLine = 16

// WriteFile writes cases as a packet file that ReadFile reads back into
// the same cases: each by name, with its expected action and context,
// its frame whole in hex under a comment with its summary. comment, if
// not empty, heads the file, a line of it a comment line.
func WriteFile(w io.Writer, cases []Case, comment string) error {
	var b strings.Builder
	if comment != "" {
		for _, line := range strings.Split(comment, "\n") {
			b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
		}
	}
	b.WriteString("cases:\n")
	for _, c := range cases {
		if !caseName.MatchString(c.Name) {
			return fmt.Errorf("%w: %q is not a case name: use a-z, 0-9, '.', '_' and '-'", ErrPacketFile, c.Name)
		}
		if c.Summary != "" {
			fmt.Fprintf(&b, "  # %s\n", strings.ReplaceAll(c.Summary, "\n", " "))
		}
		fmt.Fprintf(&b, "  - name: %s\n", c.Name)
		if c.Expect != "" {
			fmt.Fprintf(&b, "    expect: %s\n", c.Expect)
		}
		if len(c.Context) > 0 {
			fields := make([]string, len(c.Context))
			for i, f := range c.Context {
				value := fmt.Sprint(f.Value)
				switch {
				case f.Device != "":
					value = strconv.Quote(f.Device)
				case f.text != "":
					value = f.text // as given: 0x2a stays 0x2a
				}
				// Quoted: cb[1] would end a flow mapping's key.
				fields[i] = strconv.Quote(f.Name) + ": " + value
			}
			fmt.Fprintf(&b, "    ctx: {%s}\n", strings.Join(fields, ", "))
		}
		b.WriteString("    frame: >-\n")
		for i := 0; i < len(c.Frame); i += hexLine {
			fmt.Fprintf(&b, "      %x\n", c.Frame[i:min(i+hexLine, len(c.Frame))])
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
