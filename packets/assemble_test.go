package packets

import (
	"errors"
	"slices"
	"testing"
)

func TestAssemble(t *testing.T) {
	names := func(cases []Case) []string {
		var out []string
		for _, c := range cases {
			out = append(out, c.Name+":"+c.Expect)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		sel  Selection
		want []string
		err  error
	}{
		{"the classes, as the bundled builds see them", Selection{Builtin: true, Classes: true, BundledExpect: true},
			[]string{"fizz:XDP_PASS", "buzz:XDP_PASS", "fizzbuzz:XDP_PASS", "fibonacci:XDP_PASS", "none:XDP_PASS"}, nil},
		{"the mix, expecting nothing", Selection{Builtin: true},
			[]string{"tcp-syn:", "udp-dns:", "icmp-echo:", "ipv6-tcp-syn:", "vlan-udp:", "arp:"}, nil},
		{"named, short aborts in the bundled builds", Selection{Builtin: true, Names: []string{"short", "fizz"}, BundledExpect: true},
			[]string{"short:XDP_ABORTED", "fizz:XDP_PASS"}, nil},
		{"one expectation for all", Selection{Builtin: true, Names: []string{"short", "arp"}, Expect: "xdp_drop"},
			[]string{"short:XDP_DROP", "arp:XDP_DROP"}, nil},
		{"padded to each size", Selection{Builtin: true, Names: []string{"fizz"}, Sizes: []int{64, 128}},
			[]string{"fizz@64:", "fizz@128:"}, nil},
		{"a file's cases after the built-in ones", Selection{Builtin: true, Names: []string{"fizz"}, Files: []string{"testdata/example.yaml"}}, nil, nil},
		{"nothing built in twice", Selection{Builtin: true, Names: []string{"fizz", "fizz"}}, nil, ErrDuplicateCase},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Assemble(tc.sel)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if tc.want != nil && !slices.Equal(names(got), tc.want) {
				t.Errorf("got %v, want %v", names(got), tc.want)
			}
			if len(tc.sel.Files) > 0 && (len(got) < 2 || got[0].Name != "fizz") {
				t.Errorf("file cases: %v", names(got))
			}
		})
	}
}
