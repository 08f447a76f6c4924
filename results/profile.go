package results

import (
	"fmt"
	"slices"
	"time"
)

// The saved schema of `xdpmicro profile`, filled by package
// internal/profile.

// ProfileReport is a profile run: one program's profile, or two builds'
// and their difference.
type ProfileReport struct {
	Profiles []*Profile   `json:"profiles"`
	Diff     *ProfileDiff `json:"diff,omitempty"`
}

// Profile is one program's profile over the cases: what its lines are,
// and what each case executed of them.
type Profile struct {
	Label   string `json:"label,omitempty"` // before or after, in a comparison
	Object  string `json:"object"`
	Program string `json:"program"`
	Type    string `json:"type,omitempty"`
	// NoLines says why lines are instruction indexes, when they are.
	NoLines string `json:"no_lines,omitempty"`
	// Machine is the JIT's architecture, when its code is given per line;
	// NoMachine says why it is not.
	Machine   string          `json:"machine,omitempty"`
	NoMachine string          `json:"no_machine,omitempty"`
	Source    []ProfileSource `json:"source"`
	Cases     []ProfileCase   `json:"cases"`
	// Verifier is where the verifier spent its effort loading the
	// program: how often it processed each line's instructions (its log
	// at level 2), attributed as a case's executed instructions are;
	// nil, and NoVerifier why, where it was not read.
	Verifier   *ProfileCase `json:"verifier,omitempty"`
	NoVerifier string       `json:"no_verifier,omitempty"`

	// Layout is the program as package profile attributed it, for the
	// formats that need more than the figures above (pprof's addresses,
	// callgrind's calls); nil when read back from a file.
	Layout *ProfileLayout `json:"-"`
}

// ProfileLayout is a program as its profile was attributed over: each
// BPF instruction's place, line and function, and each function's call
// sites. Held in memory only, with the figures it explains.
type ProfileLayout struct {
	Lines []Line
	Insns []LaidInsn // in program order
	Funcs []LaidFunc // in program order, the main function first
	// Slots are the program's raw instructions: a 64-bit load takes two.
	Slots int
}

// LaidInsn is one BPF instruction of a ProfileLayout.
type LaidInsn struct {
	Offset int // in raw instructions from the program's start
	Line   int // the index of its line in Lines
	Func   int // the index of its function in Funcs
}

// LaidFunc is a BPF function of a ProfileLayout: the main one, a
// bpf-to-bpf callee or a callback.
type LaidFunc struct {
	Name  string
	Entry int   // its first instruction
	Sites []int // the instructions that call it or take its address
}

// Caller is the call site of function f when it has exactly one, else -1:
// only then does a callee's cost belong to one caller's line.
func (l *ProfileLayout) Caller(f int) int {
	if len(l.Funcs[f].Sites) != 1 {
		return -1
	}
	return l.Funcs[f].Sites[0]
}

// CallerFunc is the function that holds every call site of f, or -1 when
// none or several do: then f's cost belongs to that function.
func (l *ProfileLayout) CallerFunc(f int) int {
	sites := l.Funcs[f].Sites
	if len(sites) == 0 {
		return -1
	}
	g := l.Insns[sites[0]].Func
	for _, s := range sites[1:] {
		if l.Insns[s].Func != g {
			return -1
		}
	}
	return g
}

// Stack is the chain of callers from instruction i's function up to a
// function with no single calling function, innermost first: a call
// site's instruction where a callee has one, else -1-g for the calling
// function g as a whole.
func (l *ProfileLayout) Stack(i int) []int {
	var out []int
	for f := l.Insns[i].Func; len(out) <= len(l.Funcs); { // BPF has no recursion; a bound all the same
		g := l.CallerFunc(f)
		if g < 0 {
			break
		}
		if site := l.Caller(f); site >= 0 {
			out = append(out, site)
		} else {
			out = append(out, -1-g)
		}
		f = g
	}
	return out
}

// Inclusive is each function's instructions, of the counts per
// instruction, with those of the callees whose chain of single callers
// leads to it.
func (l *ProfileLayout) Inclusive(perInsn []uint64) []uint64 {
	self := make([]uint64, len(l.Funcs))
	for i, n := range perInsn {
		self[l.Insns[i].Func] += n
	}
	out := slices.Clone(self)
	for f := range l.Funcs {
		for g, depth := l.CallerFunc(f), 0; g >= 0 && depth <= len(l.Funcs); g, depth = l.CallerFunc(g), depth+1 {
			out[g] += self[f]
		}
	}
	return out
}

// ProfileSource is a line of the program's source as the program holds
// it: the functions its instructions are in, how many BPF instructions it
// has, and the machine code the JIT emitted for them.
type ProfileSource struct {
	Line
	Functions []string      `json:"functions"`
	BPF       int           `json:"bpf_instructions"`
	Code      []MachineInsn `json:"machine_code,omitempty"`
}

// MachineInsn is one machine instruction: its offset in its function's
// image, as bpftool numbers it, and its text in the GNU assembler's
// syntax, jumps within the program named by function and offset.
type MachineInsn struct {
	Offset uint64 `json:"offset"`
	Text   string `json:"text"`
}

// Line is a place in a program's source: a file and a line number, and
// the line's text as BTF holds it. Without line info, File is empty and
// Number is an instruction's index, Text the instruction.
type Line struct {
	File   string `json:"file,omitempty"`
	Number int    `json:"line"`
	Text   string `json:"source"`
}

// String is file:line, or "insn N" by index.
func (l Line) String() string {
	if l.File == "" {
		return fmt.Sprintf("insn %d", l.Number)
	}
	return fmt.Sprintf("%s:%d", l.File, l.Number)
}

// ProfileCase is what one case executed: every instruction attributed to
// one line and one function.
type ProfileCase struct {
	Name      string          `json:"name"`
	Total     uint64          `json:"instructions"`
	Lines     []LineCount     `json:"lines"`     // the executed lines, in source order
	Functions []FunctionCount `json:"functions"` // the executed functions, in program order
	// TailCalls are the tail calls that left the program, by line: the
	// instructions of the program each entered are not counted.
	TailCalls []HelperCalls `json:"tail_calls,omitempty"`
	// PerInsn is how many times each BPF instruction ran, for the
	// formats that need it (callgrind); nil when read back from a file.
	PerInsn []uint64 `json:"-"`
}

// Share is n as a percentage of the case's total.
func (c ProfileCase) Share(n uint64) float64 {
	if c.Total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(c.Total)
}

// LineCount is what a case executed of a line.
type LineCount struct {
	Line
	Instructions uint64        `json:"instructions"`
	Helpers      []HelperCalls `json:"helpers,omitempty"`
	// Machine is the machine instructions executed, where the mapping is
	// exact: every BPF instruction of each of the line's records in one
	// basic block, and the record's machine code branching only at its
	// end. NotExact says where it is not.
	Machine  uint64 `json:"machine_instructions,omitempty"`
	Exact    bool   `json:"machine_exact,omitempty"`
	NotExact string `json:"machine_not_exact,omitempty"`
}

// HelperCalls is how many times a line called a helper or kfunc.
type HelperCalls struct {
	Name  string `json:"name"`
	Calls uint64 `json:"calls"`
}

// FunctionCount is what a case executed of a function: its own
// instructions and, with them, those of the functions only it calls.
type FunctionCount struct {
	Name      string `json:"name"`
	Self      uint64 `json:"self"`
	Inclusive uint64 `json:"inclusive"`
	Calls     uint64 `json:"calls"` // times it was entered
}

// ProfileDiff is, per case, how the instructions executed changed from
// one build to another, by line and by function. Lines are matched by
// file and line number (by index without line info), functions by name,
// as pprof's -diff_base matches them.
type ProfileDiff struct {
	Before string            `json:"before"`
	After  string            `json:"after"`
	Cases  []ProfileCaseDiff `json:"cases"`
	// Verifier is the change in where the verifier spent its effort,
	// where both builds' walks were read.
	Verifier *ProfileCaseDiff `json:"verifier,omitempty"`
}

// ProfileCaseDiff is one case's change: its totals, and the lines and
// functions whose counts changed, the largest change first.
type ProfileCaseDiff struct {
	Name      string          `json:"name"`
	Before    uint64          `json:"before"`
	After     uint64          `json:"after"`
	Lines     []ProfileChange `json:"lines"`
	Functions []ProfileChange `json:"functions"`
}

// ProfileChange is a line's or a function's instructions before and
// after.
type ProfileChange struct {
	Name   string `json:"name"`             // file:line, or a function's name
	Source string `json:"source,omitempty"` // the line's text
	Before uint64 `json:"before"`
	After  uint64 `json:"after"`
}

// Delta is the change, after less before.
func (c ProfileChange) Delta() int64 { return int64(c.After) - int64(c.Before) }

// KernelProfilesSchema identifies the JSON of a profile across kernels.
const KernelProfilesSchema = "xdpmicro.kernel-profiles/v1"

// KernelProfiles is one profile run on several kernels, in the order
// asked.
type KernelProfiles struct {
	Schema  string          `json:"schema"`
	Kernels []KernelProfile `json:"kernels"`
	// Wall is the whole run's, boots and all.
	Wall time.Duration `json:"wall_ns"`
}

// KernelProfile is what one kernel gave: how it ran, and its profile
// where the program loaded there.
type KernelProfile struct {
	KernelRun
	Profile *ProfileReport `json:"profile,omitempty"`
}
