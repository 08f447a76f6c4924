package object

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// FuzzVerifierLog: any verifier log (a kernel's of another version, or
// one whose source lines, from the object's BTF line info, say anything)
// through the statistics read from a load, from a refusal, and the walk
// profile reads at level 2, to the verifier command's table, JSON and
// BMF: no panic; the walk's counts add up to the instructions the log
// says were processed, or it is refused; a refusal's reason is one
// line, and no control character of the log reaches the table. The
// seeds are real logs: level 1 statistics, level 2 walks of programs
// with and without bpf-to-bpf calls, and a refusal.
func FuzzVerifierLog(f *testing.F) {
	paths, err := filepath.Glob("testdata/verifier/*.log")
	if err != nil || len(paths) < 4 {
		f.Fatalf("%d logs to seed with: %v", len(paths), err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("processed 99999999999999999999999 insns (limit 1) total_states 18446744073709551616 mark_read 1\nstack depth 8+99999999999999999999\n")
	f.Add("0: (b7) r0 = 0\n0: safe\nfrom 1 to 0: safe\nprocessed 3 insns (limit 1000000)\n")
	f.Add("-1: (b7) r0 = 0\nprocessed 1 insns (limit 1000000)\n")
	f.Fuzz(func(t *testing.T, log string) {
		if s, err := parseVerifierLog(log); err == nil {
			for _, d := range s.StackDepths {
				if d < 0 {
					t.Fatalf("a stack depth of %d", d)
				}
			}
			if counts, err := parseWalk(log); err == nil {
				var sum uint64
				for off, n := range counts {
					if off < 0 || n == 0 {
						t.Fatalf("instruction %d processed %d times", off, n)
					}
					sum += n
				}
				if sum != s.Processed {
					t.Fatalf("the walk counts %d instructions, the log says %d were processed", sum, s.Processed)
				}
			}
		} else if _, err := parseWalk(log); err == nil {
			t.Fatal("a log without statistics walked")
		}
		refused, ok := RefusedStats(&ebpf.VerifierError{Cause: errors.New("permission denied"), Log: strings.Split(log, "\n")})
		if !ok || refused.Verdict != VerdictFailure || refused.Reason == "" || strings.Contains(refused.Reason, "\n") {
			t.Fatalf("refused: %v, verdict %q, reason %q", ok, refused.Verdict, refused.Reason)
		}
		v := results.Verification{Schema: results.VerificationSchema, Kernel: "6.1.0-fuzz", Object: "fuzz.o",
			Programs: []results.VerifiedProgram{{Info: results.ProgramInfo{Name: "p", Type: "XDP"}, Loads: []results.Verifier{savedStats(refused)}}}}
		if s, err := parseVerifierLog(log); err == nil {
			s.Verdict = VerdictSuccess
			v.Programs = append(v.Programs, results.VerifiedProgram{Info: results.ProgramInfo{Name: "q", Type: "XDP"}, Loads: []results.Verifier{savedStats(s), savedStats(s)}})
		}
		for _, format := range report.KindVerification.Formats() {
			var out bytes.Buffer
			if err := (report.Output{Format: report.Format(format)}).Write(&out, report.OfVerification(&v)); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if report.Format(format) == report.Table && strings.ContainsAny(out.String(), "\x1b\x07\r\u009b") {
				t.Fatalf("the table holds a control character: %q", out.String())
			}
		}
	})
}

// savedStats is a load's statistics as a saved verification holds them.
func savedStats(s VerifierStats) results.Verifier {
	v := results.Verifier{Verdict: s.Verdict, Reason: s.Reason, TimeMicros: s.TimeMicros, Processed: s.Processed, TotalStates: s.TotalStates,
		PeakStates: s.PeakStates, MaxStatesPerInsn: s.MaxStatesPerInsn, StackDepths: s.StackDepths, XlatedInsns: s.XlatedInsns, JITBytes: s.JITBytes}
	if s.MarkRead >= 0 {
		n := uint64(s.MarkRead)
		v.MarkRead = &n
	}
	return v
}
