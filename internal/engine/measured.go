package engine

import (
	"encoding/hex"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/packets"
	"github.com/xdpmicro/xdpmicro/results"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// schemaOf turns what package testrun returns into the saved schema:
// what analysis takes and results save, in their own words (hex frames,
// action names, summaries of the frames a program left).
func schemaOf(res testrun.Result) results.Raw {
	m := results.Raw{Environment: res.Environment, Partial: res.Partial}
	for _, p := range res.Programs {
		m.Programs = append(m.Programs, program(p))
	}
	if res.Floor != nil {
		floor := program(*res.Floor)
		m.Floor = &floor
	}
	return m
}

func program(p testrun.ProgramResult) results.Program {
	prog := results.Program{Label: p.Label, Object: p.Object, Info: results.ProgramInfo{Name: p.Info.Name, Type: p.Info.Type.String(), Section: p.Info.Section}}
	for _, c := range p.Cases {
		prog.Results = append(prog.Results, caseOf(p.Info.Type, c))
	}
	for _, other := range p.Placements {
		prog.Placements = append(prog.Placements, program(other))
	}
	if p.Verifier != nil {
		v := savedVerifier(*p.Verifier)
		prog.Verifier = &v
	}
	prog.CodeOffset = p.CodeOffset
	return prog
}

// savedVerifier is what the kernel told of a load, as results saves it.
func savedVerifier(v testrun.VerifierStats) results.Verifier {
	s := results.Verifier{Verdict: v.Verdict, Reason: v.Reason, TimeMicros: v.TimeMicros, Processed: v.Processed, TotalStates: v.TotalStates,
		PeakStates: v.PeakStates, MaxStatesPerInsn: v.MaxStatesPerInsn, StackDepths: v.StackDepths,
		XlatedInsns: v.XlatedInsns, JITBytes: v.JITBytes}
	if v.MarkRead >= 0 {
		n := uint64(v.MarkRead)
		s.MarkRead = &n
	}
	return s
}

func caseOf(programType ebpf.ProgramType, c testrun.CaseResult) results.Case {
	rc := results.Case{
		Name: c.Case.Name, Summary: c.Case.Summary, Length: len(c.Case.Frame), Frame: hex.EncodeToString(c.Case.Frame),
		Return: c.Return, Action: c.Action, Retries: c.Retries, Single: c.Single, Restored: c.Restored,
		OtherReturns: c.OtherReturns, Instructions: c.Instructions, NoCount: c.NoCount,
		Samples: c.Samples, Runs: c.Runs, Wall: c.Wall, Enough: c.Enough,
		Context: c.Case.Context.String(),
		State:   c.State(), Undone: c.Undone, PutBack: c.PutBack, LRUMap: c.LRUMap, LRUEntries: c.LRUEntries, FirstInstructions: c.FirstInstructions, LaterInstructions: c.LaterInstructions, Unrestored: c.Unrestored,
	}
	if r := c.FlowReplay; r != nil && c.Calls > 0 {
		rate := r.MissRate(c.Calls)
		rc.Flows, rc.MissRate = r.Flows, &rate
	}
	if c.LaterInstructions > 0 && c.LaterReturn != c.Return {
		rc.LaterAction = object.ActionName(programType, c.LaterReturn)
	}
	if c.Case.Source.IsValid() {
		rc.Source = c.Case.Source.String()
	}
	for _, e := range c.Effects {
		rc.Effects = append(rc.Effects, results.Effect(e))
	}
	for _, ch := range c.ContextChanges {
		rc.ContextChanges = append(rc.ContextChanges, results.ContextChange(ch))
	}
	if c.Output != nil {
		rc.OutputFrame = hex.EncodeToString(c.Output)
		rc.OutputSummary = packets.Summarize(c.Output)
		rc.OutputChanges = packets.Changes(c.Case.Frame, c.Output)
	}
	if c.OtherReturns > 0 {
		rc.OtherAction = object.ActionName(programType, c.OtherReturn)
	}
	return rc
}
