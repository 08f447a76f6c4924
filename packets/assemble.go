package packets

import (
	"cmp"
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
	// PcapLimit of them (0: DefaultPcapLimit; at most MaxCases).
	Files     []string
	Pcap      string
	PcapLimit int
	// Notice, if set, hears of packets left out: those of a capture past
	// PcapLimit, or past the limits on all cases (MaxCases, MaxFrameBytes).
	Notice func(string)
	// Context is given to every case's runs, under a file's own ctx:.
	Context Context
	// Expect, if set, is every case's expected action.
	Expect string
	// Sizes pads every case to each size, in turn.
	Sizes []int
}

// Assemble builds the selected cases, in order: built-in, files, capture;
// each padded to every size, when sizes are given. Names must be unique.
// The sizes are checked before any file is read; the cases, padded, may
// be at most MaxCases, of at most MaxFrameBytes together (ErrLimit).
func Assemble(s Selection) ([]Case, error) {
	if err := checkSizes(s.Sizes); err != nil {
		return nil, err
	}
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
	var kept tally
	if err := kept.add(cases...); err != nil {
		return nil, err
	}
	if s.Pcap != "" {
		captured, cut, err := readPcap(s.Pcap, s.PcapLimit, kept)
		if err != nil {
			return nil, err
		}
		if cut && s.Notice != nil {
			why := fmt.Sprintf("the limit of %d (--pcap-limit, at most %d)", cmp.Or(s.PcapLimit, DefaultPcapLimit), MaxCases)
			if len(captured) < cmp.Or(s.PcapLimit, DefaultPcapLimit) {
				why = fmt.Sprintf("all the cases may hold (%d, with %d MiB of frames)", MaxCases, MaxFrameBytes>>20)
			}
			s.Notice(fmt.Sprintf("capture %s: the first %d distinct packets kept, of more: %s", s.Pcap, len(captured), why))
		}
		_ = kept.add(captured...)
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
	// Padded, every case is one per size: count them before they are made.
	padded := tally{cases: len(cases) * len(s.Sizes)}
	for _, size := range s.Sizes {
		padded.bytes += len(cases) * size
	}
	if err := padded.add(); err != nil {
		return nil, fmt.Errorf("%w, padded to %d sizes", err, len(s.Sizes))
	}
	var sized []Case
	for _, c := range cases {
		for _, size := range s.Sizes {
			padded, err := Pad(c, size)
			if err != nil {
				return nil, fmt.Errorf("case %q padded to %d bytes: %w", c.Name, size, err)
			}
			sized = append(sized, padded)
		}
	}
	return sized, nil
}

// checkSizes refuses a frame size no case can be padded to, or more sizes
// than cases may be.
func checkSizes(sizes []int) error {
	if len(sizes) > MaxCases {
		return fmt.Errorf("%w: %d sizes, more than %d cases", ErrLimit, len(sizes), MaxCases)
	}
	for _, size := range sizes {
		if size < minFrame || size > maxPadSize {
			return fmt.Errorf("%w: %d bytes: want %d (an Ethernet header) to %d (a jumbo frame)", ErrSize, size, minFrame, maxPadSize)
		}
	}
	return nil
}
