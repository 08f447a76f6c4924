package packets

import (
	"errors"
	"os"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// FuzzParseFile checks that no file, however malformed, panics the parser,
// that what it refuses is bad input (exit 2), and that what it accepts is
// usable: named cases, each a whole Ethernet header at least.
func FuzzParseFile(f *testing.F) {
	example, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	for _, seed := range []string{
		``,
		`cases: []`,
		`{"cases": [{"name": "a", "ipv4": {"src": "192.0.2.1", "dst": "192.0.2.2"}, "udp": {"src": 1, "dst": 2}}]}`,
		"cases:\n  - &c {name: a, eth: {type: 0x88b5}}\n  - *c\n",
		"cases: [{name: b, eth: {vlan: 4094}, ipv6: {src: '::1', dst: '::2'}, icmp: {type: 255, code: 255}, payload: {hex: 'ff'}}]",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cases, err := ParseFile("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, badinput.Err) {
				t.Fatalf("error %q is not bad input: it would exit 1", err)
			}
			return
		}
		seen := make(map[string]bool)
		for _, c := range cases {
			if c.Name == "" || seen[c.Name] {
				t.Fatalf("case name %q empty or repeated", c.Name)
			}
			seen[c.Name] = true
			if len(c.Frame) < 14 {
				t.Fatalf("case %s: %d-byte frame", c.Name, len(c.Frame))
			}
		}
	})
}
