package engine

import (
	"fmt"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/phases"
	"github.com/xdpmicro/xdpmicro/results"
)

// recall scales rep to the fast phase the runs before it on this boot and
// CPU met (AtRecalled), and remembers its own.
// The history only ever adds: a file it cannot read or write is said, and
// the run stands on its own.
func (o *runner) recall(rep *results.Run, obs Observer) {
	level, half, ok := FloorLevel(rep)
	if !ok {
		return
	}
	say := func(err error) {
		if obs != nil {
			obs.Notice(fmt.Sprintf("phase history (--history): %v", err))
		}
	}
	boot, err := phases.Boot()
	if err != nil {
		say(err)
		return
	}
	key := o.historyKey(boot, rep.Environment.MainCPU(), rep.Floor.Info.Type, (1+len(rep.Floor.Placements))/max(rep.Environment.Groups, 1), FloorLevelFrames(rep))
	h, err := phases.Load(o.History)
	if err != nil {
		say(fmt.Errorf("%w; starting it anew", err))
	}
	now := time.Now()
	if ref, ok := h.Reference(key, now, o.Stats.Confidence); ok {
		AtRecalled(rep, Recalled{Floor: ref.Floor, RelHalf: ref.RelHalf, Runs: ref.Runs, Drift: ref.Drift, DriftKnown: ref.DriftKnown}, o.Stats.Confidence)
	}
	h.Add(key, level, half, now)
	if err := h.Save(o.History); err != nil {
		say(err)
	}
}

// historyKey is the phase history's key of this run: its boot, CPU and
// floor's type, its design, its programs' loads a group beside
// floorPerGroup of the floor's, and the frames (hex) its floor's level
// is read from.
func (o *runner) historyKey(boot string, cpu int, floorType string, floorPerGroup int, levelFrames []string) phases.Key {
	return phases.Key{Boot: boot, CPU: cpu, Type: floorType, Design: phases.NewDesign(len(o.Programs), o.groupLoads(), floorPerGroup),
		Frames: phases.NewFrames(levelFrames)}
}
