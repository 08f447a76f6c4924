package testrun

import (
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/object"
)

// Verify loads p loads times, as Run loads it (the load options applied,
// its maps as declared), runs nothing, and returns what the kernel told
// of each load: the verifier's statistics and the program's sizes. A
// program the verifier refuses is one load whose verdict is failure.
// Every load is freed before Verify returns.
func Verify(p Program, load LoadOptions, loads int) (ProgramInfo, []VerifierStats, error) {
	settings, err := object.NewSettings(object.LoadOptions(load), nil)
	if err != nil {
		return ProgramInfo{}, nil, err
	}
	chosen, err := object.Choose(object.Object(p.Object), p.Program, settings)
	if err != nil {
		return ProgramInfo{}, nil, err
	}
	if err := host.CheckPrivileges(); err != nil {
		return ProgramInfo{}, nil, err
	}
	var stats []VerifierStats
	for range max(loads, 1) {
		l, err := chosen.Load()
		if refused, ok := object.RefusedStats(err); ok {
			// A verdict, not a failed run: the verifier refuses every
			// load of the build alike.
			return ProgramInfo(chosen.Info), append(stats, VerifierStats(refused)), nil
		}
		if err != nil {
			return ProgramInfo{}, nil, err
		}
		v := l.Verifier
		l.Close()
		if v == nil {
			return ProgramInfo{}, nil, fmt.Errorf("%s: the kernel gave no verifier statistics", chosen.Info.Name)
		}
		stats = append(stats, VerifierStats(*v))
	}
	return ProgramInfo(chosen.Info), stats, nil
}
