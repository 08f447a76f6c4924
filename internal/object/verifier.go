package object

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/internal/insncount"
)

// VerifierStats are what the kernel tells of one load of a program: the
// verifier's own statistics (its log at BPF_LOG_STATS, of the very load
// that is measured) and the program's sizes (bpf_prog_info).
type VerifierStats struct {
	// Verdict is the verifier's: success, or failure with Reason, its
	// error's first line.
	Verdict, Reason string
	// From the verifier's log.
	TimeMicros       uint64 // "verification time N usec"
	Processed        uint64 // "processed N insns"
	TotalStates      uint64 // "total_states N"
	PeakStates       uint64 // "peak_states N"
	MaxStatesPerInsn uint64 // "max_states_per_insn N"
	MarkRead         int64  // "mark_read N"; -1 where the kernel does not give it
	StackDepths      []int  // "stack depth 8+0+16": one per function
	// From bpf_prog_info.
	XlatedInsns int // the program as the kernel rewrote it, in instructions
	JITBytes    int // its native code, in bytes; 0 without the JIT
}

// The log lines the verifier writes at BPF_LOG_STATS (kernel/bpf/verifier.c,
// print_verification_stats), 5.2 and later; mark_read is gone in 6.x.
var (
	verificationTimeLine = regexp.MustCompile(`(?m)^verification time (\d+) usec\s*$`)
	processedLine        = regexp.MustCompile(`(?m)^processed (\d+) insns \(limit \d+\)(.*)$`)
	verifierCountField   = regexp.MustCompile(`(\w+) (\d+)`)
)

// The verifier's verdicts.
const (
	VerdictSuccess = "success"
	VerdictFailure = "failure"
)

// RefusedStats are what the log of a load the verifier refused tells:
// the verdict, why, and what it had processed when it stopped (as far
// as the log holds its statistics line).
func RefusedStats(err error) (VerifierStats, bool) {
	var ve *ebpf.VerifierError
	if !errors.As(err, &ve) {
		return VerifierStats{}, false
	}
	s, _ := parseVerifierLog(strings.Join(ve.Log, "\n"))
	s.Verdict, s.Reason = VerdictFailure, firstLine(err.Error())
	return s, true
}

// firstLine is an error's first line: a verifier's log may follow.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// parseVerifierLog reads the statistics lines of a verifier log.
func parseVerifierLog(log string) (VerifierStats, error) {
	s := VerifierStats{MarkRead: -1}
	m := processedLine.FindStringSubmatch(log)
	if m == nil {
		return s, fmt.Errorf("the verifier's log has no \"processed N insns\" line")
	}
	s.Processed, _ = strconv.ParseUint(m[1], 10, 64)
	for _, f := range verifierCountField.FindAllStringSubmatch(m[2], -1) {
		n, _ := strconv.ParseUint(f[2], 10, 64)
		switch f[1] {
		case "total_states":
			s.TotalStates = n
		case "peak_states":
			s.PeakStates = n
		case "max_states_per_insn":
			s.MaxStatesPerInsn = n
		case "mark_read":
			s.MarkRead = int64(n)
		}
	}
	if m := verificationTimeLine.FindStringSubmatch(log); m != nil {
		s.TimeMicros, _ = strconv.ParseUint(m[1], 10, 64)
	}
	if depths, err := insncount.ParseStackDepths(log); err == nil {
		s.StackDepths = depths // absent from logs below BPF_LOG_STATS
	}
	return s, nil
}

// verifierStats reads a loaded program's statistics: its verifier log
// (loaded at LogLevelStats) and its info. Where the kernel gives none
// (a program loaded by someone else), ok is false.
func verifierStats(p *ebpf.Program) (VerifierStats, bool) {
	s, err := parseVerifierLog(p.VerifierLog)
	if err != nil {
		return VerifierStats{}, false
	}
	s.Verdict = VerdictSuccess
	if info, err := p.Info(); err == nil {
		if n, err := info.TranslatedSize(); err == nil {
			s.XlatedInsns = n / 8
		}
		if n, err := info.JitedSize(); err == nil {
			s.JITBytes = int(n)
		}
	}
	return s, true
}

// The whole log of a refused load. cilium/ebpf grows the log buffer of a
// refused load until the log fits, up to 1 GiB, and a verifier that went
// a million instructions deep writes some hundreds of MB at level 2.
// At level 1 the log holds the path refused, each instruction of it a
// line: at most one line an instruction processed. katran's load at level
// 2, which prints that and every state besides, took 441 bytes an
// instruction processed (39 MB for 88,879). So the whole log is read only
// where the statistics' "processed N insns" bounds it by MaxVerifierLog at
// logBytesPerInsn a line, in a buffer of that bound from the start (one
// load, no growing); past it the refusal gives the verifier's reason and
// statistics, the log at BPF_LOG_STATS.
const (
	MaxVerifierLog  = 32 << 20
	logBytesPerInsn = 512
)

// wholeLog are the options of a load again for the whole log of ve's
// refusal, and false where the log could pass MaxVerifierLog.
func wholeLog(ve *ebpf.VerifierError) (ebpf.ProgramOptions, bool) {
	s, err := parseVerifierLog(strings.Join(ve.Log, "\n"))
	if err != nil {
		s.Processed = 0 // refused before the walk began: a few lines
	}
	bound := max(s.Processed*logBytesPerInsn, 64<<10)
	if bound > MaxVerifierLog {
		return ebpf.ProgramOptions{}, false
	}
	// Level 1 alone: its last line is then the reason, which errors show.
	return ebpf.ProgramOptions{LogLevel: ebpf.LogLevelBranch, LogSizeStart: uint32(bound)}, true
}
