package packets

import (
	"fmt"
	"strings"
)

// Selection says which cases a run measures, from where.
type Selection struct {
	// Builtin includes built-in cases: Names, or the default set when
	// Names is empty (the source-address classes when Classes is set, else
	// the protocol mix).
	Builtin bool
	Names   []string
	Classes bool
	// BundledExpect makes built-in cases expect what the bundled builds
	// return (see BundledExpect): only when those are measured.
	BundledExpect bool
	// Files add the cases of packet case files and raw frames, or of
	// globs of them (see ReadFiles); Pcap those of a capture, at most
	// PcapLimit of them (0: all).
	Files     []string
	Pcap      string
	PcapLimit int
	// Context is given to every case's runs, under a file's own ctx:.
	Context Context
	// Expect, if set, is every case's expected action.
	Expect string
	// Sizes pads every case to each size, in turn.
	Sizes []int
}

// Assemble builds the selected cases, in order: built-in, files, capture;
// each padded to every size, when sizes are given. Names must be unique.
func Assemble(s Selection) ([]Case, error) {
	var cases []Case
	if s.Builtin {
		names := s.Names
		if len(names) == 0 {
			names = Mix()
			if s.Classes {
				names = Classes()
			}
		}
		builtin, err := Select(names)
		if err != nil {
			return nil, err
		}
		for i := range builtin {
			if s.BundledExpect {
				builtin[i].Expect = BundledExpect(builtin[i])
			}
		}
		cases = append(cases, builtin...)
	}
	if len(s.Files) > 0 {
		fromFile, err := ReadFiles(s.Files)
		if err != nil {
			return nil, err
		}
		cases = append(cases, fromFile...)
	}
	if s.Pcap != "" {
		captured, err := ReadPcap(s.Pcap, s.PcapLimit)
		if err != nil {
			return nil, err
		}
		cases = append(cases, captured...)
	}
	if len(s.Context) > 0 {
		cases = WithContext(cases, s.Context)
	}
	seen := map[string]bool{}
	for i := range cases {
		if seen[cases[i].Name] {
			return nil, fmt.Errorf("%w: %q is defined twice", ErrDuplicateCase, cases[i].Name)
		}
		seen[cases[i].Name] = true
		if s.Expect != "" {
			cases[i].Expect = strings.ToUpper(s.Expect)
		}
	}
	if len(s.Sizes) == 0 {
		return cases, nil
	}
	var sized []Case
	for _, c := range cases {
		for _, size := range s.Sizes {
			padded, err := Pad(c, size)
			if err != nil {
				return nil, fmt.Errorf("case %s padded to %d bytes: %w", c.Name, size, err)
			}
			sized = append(sized, padded)
		}
	}
	return sized, nil
}
