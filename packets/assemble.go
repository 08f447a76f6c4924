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
	cases, err := s.builtin()
	if err != nil {
		return nil, err
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
		captured, err := s.captured(kept)
		if err != nil {
			return nil, err
		}
		cases = append(cases, captured...)
	}
	if len(s.Context) > 0 {
		cases = WithContext(cases, s.Context)
	}
	if err := checkNames(cases); err != nil {
		return nil, err
	}
	if s.Expect != "" {
		for i := range cases {
			cases[i].Expect = strings.ToUpper(s.Expect)
		}
	}
	if len(s.Sizes) == 0 {
		return cases, nil
	}
	return padToSizes(cases, s.Sizes)
}

// builtin is the selected built-in cases: those named, or by default the
// source-address classes or the protocol mix; none without Builtin.
func (s Selection) builtin() ([]Case, error) {
	if !s.Builtin {
		return nil, nil
	}
	names := s.Names
	if len(names) == 0 {
		names = Mix()
		if s.Classes {
			names = Classes()
		}
	}
	cases, err := Select(names)
	if err != nil {
		return nil, err
	}
	if s.BundledExpect {
		for i := range cases {
			cases[i].Expect = BundledExpect(cases[i])
		}
	}
	return cases, nil
}

// captured is the capture's cases that fit beside those kept, at most
// the pcap limit; Notice hears of packets left out, and why.
func (s Selection) captured(kept tally) ([]Case, error) {
	captured, cut, err := readPcap(s.Pcap, s.PcapLimit, kept)
	if err != nil {
		return nil, err
	}
	if cut && s.Notice != nil {
		limit := cmp.Or(s.PcapLimit, DefaultPcapLimit)
		why := fmt.Sprintf("the limit of %d (--pcap-limit, at most %d)", limit, MaxCases)
		if len(captured) < limit {
			why = fmt.Sprintf("all the cases may hold (%d, with %d MiB of frames)", MaxCases, MaxFrameBytes>>20)
		}
		s.Notice(fmt.Sprintf("capture %s: the first %d distinct packets kept, of more: %s", s.Pcap, len(captured), why))
	}
	return captured, nil
}

// checkNames refuses a name defined twice.
func checkNames(cases []Case) error {
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			return fmt.Errorf("%w: %q is defined twice", ErrDuplicateCase, c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

// padToSizes pads every case to each size, in turn, the cases so made
// counted against the limits before any is made.
func padToSizes(cases []Case, sizes []int) ([]Case, error) {
	padded := tally{cases: len(cases) * len(sizes)}
	for _, size := range sizes {
		padded.bytes += len(cases) * size
	}
	if err := padded.add(); err != nil {
		return nil, fmt.Errorf("%w, padded to %d sizes", err, len(sizes))
	}
	var sized []Case
	for _, c := range cases {
		for _, size := range sizes {
			p, err := Pad(c, size)
			if err != nil {
				return nil, fmt.Errorf("case %q padded to %d bytes: %w", c.Name, size, err)
			}
			sized = append(sized, p)
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
