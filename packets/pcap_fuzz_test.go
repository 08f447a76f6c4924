package packets

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/google/gopacket/layers"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// FuzzParsePcap: any input gives an error that is bad input (exit 2) or
// cases a benchmark can measure: unique names, whole Ethernet headers, no frame twice, and
// frames that Pad grows to the size asked.
func FuzzParsePcap(f *testing.F) {
	sample, err := os.ReadFile(samplePcapng)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	fr := makePcapFrames(f)
	f.Add(classicCapture(f, layers.LinkTypeEthernet, fr.mixed()...))
	f.Fuzz(func(t *testing.T, data []byte) {
		cases, err := ParsePcap("fuzz", bytes.NewReader(data), 0)
		if err != nil {
			// A bytes.Reader never fails: every error is the capture's.
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("error %q is not bad input: it would exit 1", err)
			}
			return
		}
		if len(cases) == 0 {
			t.Fatal("no cases and no error")
		}
		names, frames := map[string]bool{}, map[string]bool{}
		for _, c := range cases {
			switch {
			case names[c.Name]:
				t.Fatalf("case name %q twice", c.Name)
			case frames[string(c.Frame)]:
				t.Fatalf("case %q: frame seen before", c.Name)
			case len(c.Frame) < minFrame:
				t.Fatalf("case %q: %d-byte frame", c.Name, len(c.Frame))
			}
			names[c.Name], frames[string(c.Frame)] = true, true
			// Captured frames are what --size pads: any must pad exactly.
			if size := len(c.Frame) + 64; size <= maxPadSize {
				p, err := Pad(c, size)
				if err != nil || len(p.Frame) != size {
					t.Fatalf("case %q padded to %d: %d bytes, %v", c.Name, size, len(p.Frame), err)
				}
			}
		}
	})
}
