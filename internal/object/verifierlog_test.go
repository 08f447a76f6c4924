package object

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// A refusal's whole log is asked for in one buffer of its bound, and not
// at all where the bound passes MaxVerifierLog (issue 59, item 9):
// cilium/ebpf would grow it up to 1 GiB.
func TestWholeLogBounded(t *testing.T) {
	refusal := func(processed string) *ebpf.VerifierError {
		log := []string{"R1 offset is outside of the packet", "verification time 9 usec", "stack depth 0"}
		if processed != "" {
			log = append(log, "processed "+processed+" insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0")
		}
		return &ebpf.VerifierError{Cause: unix.EACCES, Log: log}
	}
	for _, tt := range []struct {
		processed string
		ok        bool
		start     uint32
	}{
		{"", true, 64 << 10},
		{"2", true, 64 << 10},
		{"4096", true, 4096 * logBytesPerInsn},
		{"65536", true, MaxVerifierLog},
		{"65537", false, 0},
		{"999999", false, 0},
	} {
		opts, ok := wholeLog(refusal(tt.processed))
		if ok != tt.ok || opts.LogSizeStart != tt.start || ok && opts.LogLevel&ebpf.LogLevelBranch == 0 {
			t.Errorf("processed %q: %+v, %v; want a start of %d, %v", tt.processed, opts, ok, tt.start, tt.ok)
		}
	}
}

// A real refusal still shows the path the verifier refused, from the load
// again at level 1.
func TestRefusalShowsPath(t *testing.T) {
	kerneltest.RequireBPF(t)
	_, err := Load(kerneltest.ReadTestObject[Object](t, "reject.o"), "")
	var ve *ebpf.VerifierError
	if !errors.Is(err, ErrVerifier) || !errors.As(err, &ve) {
		t.Fatalf("reject.o: %v, want the verifier's refusal", err)
	}
	path := regexp.MustCompile(`^\d+: \([0-9a-f]{2}\) `)
	log := strings.Join(ve.Log, "\n")
	t.Logf("%s", log)
	if !strings.Contains(log, "processed ") || !hasLine(ve.Log, path) {
		t.Errorf("log %q: want the refused path's instructions and the statistics", log)
	}
}

func hasLine(lines []string, re *regexp.Regexp) bool {
	for _, l := range lines {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}
