package results

import "slices"

// VerificationSchema identifies a verification's JSON layout.
const VerificationSchema = "xdpmicro.verifier/v1"

// Verification is what the verifier told of the programs of one build,
// or of two (--before, --after), each loaded several times and never
// run: xdpmicro verifier.
type Verification struct {
	Schema string `json:"schema"`
	Kernel string `json:"kernel"`
	Object string `json:"object"`
	// Before is the old build's object, in a comparison.
	Before   string            `json:"before,omitempty"`
	Programs []VerifiedProgram `json:"programs"`
	Skipped  []ProgramInfo     `json:"skipped,omitempty"` // programs xdpmicro cannot load to run
}

// VerifiedProgram is one program's loads: after's, and before's in a
// comparison, with the change between them where both sides have it.
type VerifiedProgram struct {
	Info   ProgramInfo     `json:"program"`
	Loads  []Verifier      `json:"loads,omitempty"`
	Before []Verifier      `json:"before_loads,omitempty"`
	Change *VerifierChange `json:"change,omitempty"`
}

// Times are the verification times of some loads, lowest first.
func Times(loads []Verifier) []uint64 {
	times := make([]uint64, len(loads))
	for i, v := range loads {
		times[i] = v.TimeMicros
	}
	slices.Sort(times)
	return times
}
