package object

import (
	"fmt"

	"path"
	"strings"

	"github.com/cilium/ebpf"
)

// Measurable says whether a program of the object can be measured as it
// is loaded: a supported type, and not an XDP program for a cpumap or a
// devmap unless the settings load those as plain XDP.
func (s Settings) Measurable(p ProgramInfo) bool {
	return p.Supported() && (p.ForMap() == "" || s.plainXDP)
}

// IsPattern says whether a --program value names several programs: a
// comma list or a glob.
func IsPattern(program string) bool {
	return strings.ContainsAny(program, ",*?[")
}

// Select names the programs of obj that patterns choose, in the object's
// (name) order: every measurable one when patterns is empty, else those
// whose names equal or match (path.Match) one of the comma-separated
// patterns. skipped are the programs a glob or the empty pattern passed
// over as not measurable. A pattern that chooses nothing is bad input,
// and so is a name chosen that cannot be measured.
func Select(obj Object, patterns string, s Settings) (names []string, skipped []ProgramInfo, err error) {
	infos, err := obj.Programs()
	if err != nil {
		return nil, nil, err
	}
	for i := range infos {
		if infos[i].Type == ebpf.UnspecifiedProgram {
			infos[i].Type = s.programType // --type, for sections that name none
		}
	}
	var list []string
	if patterns != "" {
		list = strings.Split(patterns, ",")
	}
	chosen := map[string]bool{}
	for _, pat := range list {
		if _, err := path.Match(pat, ""); err != nil || pat == "" {
			return nil, nil, fmt.Errorf("%w: program pattern %q: want a name or a glob such as xdp_*", ErrNoProgram, pat)
		}
		matched := false
		for _, p := range infos {
			if ok, _ := path.Match(pat, p.Name); ok {
				matched, chosen[p.Name] = true, true
				if pat == p.Name && !s.Measurable(p) {
					// Named outright: say why it cannot be run.
					_, err := obj.named(infos, p.Name, s.plainXDP)
					return nil, nil, err
				}
			}
		}
		if !matched {
			return nil, nil, fmt.Errorf("%w: %s has no program matching %q; it holds: %s", ErrNoProgram, obj.Name, pat, listPrograms(infos))
		}
	}
	for _, p := range infos {
		switch {
		case len(list) > 0 && !chosen[p.Name]:
		case s.Measurable(p):
			names = append(names, p.Name)
		default:
			skipped = append(skipped, p)
		}
	}
	if len(names) == 0 {
		return nil, skipped, withTypeHint(fmt.Errorf("%w: %s: none of the programs chosen can be measured: %s",
			ErrUnsupportedType, obj.Name, listPrograms(skipped)), skipped)
	}
	return names, skipped, nil
}
