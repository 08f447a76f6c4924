package profile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	pprof "github.com/google/pprof/profile"

	"github.com/xdpmicro/xdpmicro/internal/object"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// callgrindLine is every line Callgrind's format allows in what
// WriteCallgrind writes: a name with a line feed of its own would start
// a line of the format's, a cost or a call.
var callgrindLine = regexp.MustCompile(`^(|# callgrind format|version: 1|creator: xdpmicro|cmd: .*|positions: line|events: Ir|summary: \d+|c?f[lien]=\(\d+\)( .*)?|calls=\d+ \d+|\d+ \d+)$`)

// fuzzBlocks cuts n instructions into blocks at the cuts given.
func fuzzBlocks(n int, cuts []byte) []testrun.Block {
	starts := []int{0}
	for _, c := range cuts {
		starts = append(starts, int(c)%n)
	}
	slices.Sort(starts)
	starts = slices.Compact(starts)
	blocks := make([]testrun.Block, len(starts))
	for i, s := range starts {
		end := n
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		blocks[i] = testrun.Block{Start: s, End: end}
	}
	return blocks
}

// FuzzLineInfo: any object's programs, with the BTF line and func info
// their instructions carry (file names, source text, line numbers,
// function names from the object), attributed over blocks and counts,
// and the verifier's walk, to every format a profile is written in, one
// build's and two's difference: no panic; a case's total is its blocks'
// counts times their lengths, spread over every instruction; the text
// holds no control character, Callgrind's format no line of a name's
// making, pprof's reads back valid. The seeds are the repository's
// objects, with and without line info.
func FuzzLineInfo(f *testing.F) {
	var paths []string
	for _, pattern := range []string{"../../bpf/*_bpfel.o", "../../bpf/testdata/*.o", "../../examples/*/*_bpfel.o"} {
		p, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		paths = append(paths, p...)
	}
	if len(paths) < 20 {
		f.Fatalf("%d objects to seed with", len(paths))
	}
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(i), []byte{3, 7, 20, 40}, "fizz\x1b[2J\n", uint64(i))
	}
	f.Fuzz(func(t *testing.T, elf []byte, which uint8, cuts []byte, caseName string, seed uint64) {
		// The object's own checks first: a zero-filled section of
		// gigabytes is refused before cilium/ebpf allocates it.
		if _, err := (object.Object{Name: "fuzz.o", ELF: elf}).Programs(); err != nil {
			return
		}
		spec, err := ebpf.LoadCollectionSpecFromReader(bytes.NewReader(elf))
		if err != nil {
			t.Fatalf("the object's programs listed, the spec not: %v", err)
		}
		var names []string
		for n := range spec.Programs {
			names = append(names, n)
		}
		slices.Sort(names)
		ps := spec.Programs[names[int(which)%len(names)]]
		insns := ps.Instructions
		if len(insns) == 0 || len(insns) > 1<<14 {
			return
		}
		blocks := fuzzBlocks(len(insns), cuts)
		p, err := NewProgram(insns, blocks)
		if err != nil {
			if !errors.Is(err, ErrCounts) {
				t.Fatalf("error %q is not ErrCounts", err)
			}
			return
		}
		// Two cases' counts: one from the seed, one every block once.
		counts := [][]uint64{make([]uint64, len(blocks)), make([]uint64, len(blocks))}
		for i := range blocks {
			counts[0][i] = (seed >> (i % 64)) & 7
			counts[1][i] = 1
		}
		if caseName == "second" {
			caseName += "'"
		}
		prof, err := New("", "fuzz.o", ps.Name, ps.Type.String(), p, []string{caseName, "second"}, counts)
		if err != nil {
			t.Fatalf("counts that fit the blocks: %v", err)
		}
		for k, c := range prof.Cases {
			var want, spread uint64
			for i, b := range blocks {
				want += counts[k][i] * uint64(b.Len())
			}
			for _, n := range c.PerInsn {
				spread += n
			}
			if c.Total != want || spread != want || len(c.PerInsn) != len(insns) {
				t.Fatalf("case %s: total %d, spread %d over %d instructions; the blocks' counts make %d", c.Name, c.Total, spread, len(c.PerInsn), want)
			}
		}
		// The verifier's walk: each instruction's raw offset, processed
		// once.
		walk := map[int]uint64{}
		off := 0
		for i := range insns {
			walk[off] = 1
			off += int(insns[i].Size() / asm.InstructionSize)
		}
		verified, err := p.Verified(walk)
		if err != nil || verified.Total != uint64(len(insns)) {
			t.Fatalf("a walk of every instruction once: total %d of %d, %v", verified.Total, len(insns), err)
		}
		prof.Verifier = &verified
		one := &Report{Profiles: []*Profile{prof}}
		after := *prof
		after.Label = "after"
		two := &Report{Profiles: []*Profile{prof, &after}, Diff: Compare(prof, &after)}
		for _, rep := range []*Report{one, two} {
			for _, format := range report.KindProfile.Formats() {
				var out bytes.Buffer
				view := report.View{SourceOrder: seed&1 != 0, Machine: true}
				if err := (report.Output{Format: report.Format(format), View: view}).Write(&out, report.OfProfile(rep)); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				checkProfileOutput(t, report.Format(format), out.Bytes())
			}
		}
	})
}

// checkProfileOutput checks a profile as one format wrote it.
func checkProfileOutput(t *testing.T, format report.Format, out []byte) {
	t.Helper()
	switch format {
	case report.Text:
		if i := bytes.IndexAny(out, "\x1b\x07\r\u009b\u2028"); i >= 0 {
			t.Fatalf("the text holds a control character: %q", out[max(0, i-40):min(len(out), i+40)])
		}
	case report.Callgrind:
		s := bufio.NewScanner(bytes.NewReader(out))
		s.Buffer(nil, len(out)+1)
		for s.Scan() {
			if !callgrindLine.MatchString(s.Text()) {
				t.Fatalf("callgrind: a line of no form of the format's: %q", s.Text())
			}
		}
		if n := bytes.Count(out, []byte("\ncmd: ")); n != 1 {
			t.Fatalf("callgrind: %d cmd lines", n)
		}
	case report.Pprof:
		p, err := pprof.Parse(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("pprof does not read back: %v", err)
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("pprof reads back invalid: %v", err)
		}
	case report.JSON:
		if !json.Valid(out) {
			t.Fatalf("not JSON: %s", strings.ToValidUTF8(string(out[:min(len(out), 200)]), "?"))
		}
	}
}
