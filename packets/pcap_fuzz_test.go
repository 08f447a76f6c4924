package packets

import (
	"bytes"
	"testing"
)

// FuzzParsePcap: any capture gives an error or cases that can be measured:
// unique names, whole Ethernet headers, no frame twice.
func FuzzParsePcap(f *testing.F) {
	cases, err := Select(Names())
	if err != nil {
		f.Fatal(err)
	}
	var seed bytes.Buffer
	if err := WritePcap(&seed, cases); err != nil {
		f.Fatal(err)
	}
	f.Add(seed.Bytes())
	f.Add(seed.Bytes()[:100])
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParsePcap("fuzz.pcap", bytes.NewReader(data), 0)
		if err != nil {
			return
		}
		names, frames := map[string]bool{}, map[string]bool{}
		for _, c := range got {
			if names[c.Name] || frames[string(c.Frame)] || len(c.Frame) < minFrame {
				t.Fatalf("case %q: duplicate or too short", c.Name)
			}
			names[c.Name], frames[string(c.Frame)] = true, true
		}
	})
}
