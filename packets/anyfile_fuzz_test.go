package packets

import (
	"errors"
	"os"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// anyFileNames are the names FuzzParseAny gives its input: no extension
// (the content decides), a case file's, a raw frame's, a capture's.
var anyFileNames = []string{"fuzz", "fuzz.yaml", "fuzz.json", "fuzz.bin", "fuzz.pcap"}

// FuzzParseAny: any file given to --packets, under any name, is read as
// ReadFiles reads it (a case file, a raw frame, a capture refused) into
// cases a benchmark can measure, or refused as bad input (exit 2), never
// a panic or a hang. Raw frames are decoded to be summarized, so any
// bytes reach gopacket's layers here.
func FuzzParseAny(f *testing.F) {
	example, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(1), example)
	f.Add(uint8(0), example)
	fr := makePcapFrames(f)
	for i, frame := range [][]byte{fr.udp4, fr.tcp4, fr.udp6, fr.tcp6, fr.arp, fr.icmp4, fr.lldp, fr.vlan} {
		f.Add(uint8(3), frame)
		f.Add(uint8(i%2*4), frame)
	}
	f.Add(uint8(0), []byte("cases: [{name: a, frame: '0200000000020200000000010800'}]"))
	f.Add(uint8(2), []byte(`{"cases": [{"name": "b", "ipv6": {"src": "::1", "dst": "::2"}, "tcp": {"src": 1, "dst": 2, "flags": ["syn"]}}]}`))
	f.Add(uint8(0), []byte("not a case file, but text"))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		name := anyFileNames[int(kind)%len(anyFileNames)]
		cases, raw, err := parseAny(name, data)
		if err != nil {
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("error %q is not bad input: it would exit 1", err)
			}
			return
		}
		if raw && len(cases) != 1 {
			t.Fatalf("a raw frame gave %d cases", len(cases))
		}
		seen := make(map[string]bool)
		for _, c := range cases {
			if c.Name == "" || seen[c.Name] {
				t.Fatalf("case name %q empty or repeated", c.Name)
			}
			seen[c.Name] = true
			if len(c.Frame) < minFrame {
				t.Fatalf("case %s: %d-byte frame", c.Name, len(c.Frame))
			}
			if c.Summary == "" {
				t.Fatalf("case %s: no summary", c.Name)
			}
		}
	})
}
