package packets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/capture"
	"github.com/xdpmicro/xdpmicro/internal/yamlsize"
)

// distinctFrames are n Ethernet frames of size bytes, each unlike the
// others.
func distinctFrames(n, size int) [][]byte {
	frames := make([][]byte, n)
	for i := range frames {
		f := make([]byte, size)
		f[12], f[13] = 0x88, 0xb5 // a local experimental EtherType
		binary.BigEndian.PutUint32(f[14:], uint32(i))
		frames[i] = f
	}
	return frames
}

// bigCapture is a classic pcap of frames with tcpdump's largest snaplen.
func bigCapture(t testing.TB, frames [][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(capture.MaxCapture, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: pcapTime(i), CaptureLength: len(f), Length: len(f)}, f); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// aliases is a YAML document of n aliases of one scalar, four bytes each.
func aliases(n int) []byte {
	return []byte("cases: &a [x]\nmore: [" + strings.Repeat("*a, ", n) + "*a]\n")
}

// A case file of 40 MB of aliases made yaml.v3 build 2.1 GB of nodes
// before the file was refused: one of a million aliases (4 MB) is now
// refused before it is parsed, its nodes counted in one pass.
func TestParseFileRefusesManyNodes(t *testing.T) {
	data := aliases(1_000_000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ParseFile("aliases.yaml", data)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrPacketFile) || !strings.Contains(fmt.Sprint(err), "YAML nodes") {
		t.Fatalf("%v, want the file refused for its nodes", err)
	}
	if used := after.TotalAlloc - before.TotalAlloc; used > 1<<20 {
		t.Errorf("%d MB allocated to refuse a 4 MB file", used>>20)
	}
	if _, err := ParseFile("big.yaml", make([]byte, MaxCaseFile+1)); !errors.Is(err, ErrPacketFile) || !strings.Contains(fmt.Sprint(err), "MiB") {
		t.Errorf("a file past MaxCaseFile: %v", err)
	}
}

// A case file of MaxCases cases of frames, as worst -o writes them,
// counts no more YAML nodes than ParseFile admits.
func TestMaxCasesWithinNodes(t *testing.T) {
	var file bytes.Buffer
	if err := WriteFile(&file, frameCases(MaxCases), "cases"); err != nil {
		t.Fatal(err)
	}
	if n := yamlsize.Nodes(file.Bytes()); n > maxNodes {
		t.Errorf("%d cases as WriteFile writes them count %d nodes, past %d", MaxCases, n, maxNodes)
	}
}

// frameCases are n cases of distinct 60-byte frames.
func frameCases(n int) []Case {
	cases := make([]Case, n)
	for i, f := range distinctFrames(n, 60) {
		cases[i] = Case{Name: fmt.Sprintf("c%d", i), Summary: "frame", Frame: f}
	}
	return cases
}

// A case file of more than MaxCases cases is refused before its cases
// are built.
func TestParseFileRefusesManyCases(t *testing.T) {
	var file bytes.Buffer
	file.WriteString("cases:\n")
	for i := range MaxCases + 1 {
		fmt.Fprintf(&file, "- {name: c%d, frame: '020000000002020000000001ffff'}\n", i)
	}
	_, err := ParseFile("many.yaml", file.Bytes())
	if !errors.Is(err, ErrPacketFile) || !strings.Contains(fmt.Sprint(err), fmt.Sprintf("%d cases, more than %d", MaxCases+1, MaxCases)) {
		t.Fatalf("%v, want the cases counted and refused", err)
	}
}

// A capture gives at most DefaultPcapLimit cases when no limit is given,
// at most MaxFrameBytes of frames whatever the limit, and Assemble says
// what it left out.
func TestPcapLimits(t *testing.T) {
	dir := t.TempDir()
	many := filepath.Join(dir, "many.pcap")
	if err := os.WriteFile(many, bigCapture(t, distinctFrames(DefaultPcapLimit+1, 60)), 0o644); err != nil {
		t.Fatal(err)
	}
	var notices []string
	cases, err := Assemble(Selection{Pcap: many, Notice: func(s string) { notices = append(notices, s) }})
	if err != nil || len(cases) != DefaultPcapLimit {
		t.Fatalf("%d cases, %v; want the default limit of %d", len(cases), err, DefaultPcapLimit)
	}
	want := fmt.Sprintf("the first %d distinct packets kept, of more: the limit of %d", DefaultPcapLimit, DefaultPcapLimit)
	if len(notices) != 1 || !strings.Contains(notices[0], want) {
		t.Errorf("notices %q, want %q", notices, want)
	}
	if cases, err := ReadPcap(many, 10); err != nil || len(cases) != 10 {
		t.Errorf("limit 10: %d cases, %v", len(cases), err)
	}

	// Frames of 256 KiB, tcpdump's largest: 16 fill MaxFrameBytes.
	big := filepath.Join(dir, "big.pcap")
	perFrame := capture.MaxCapture
	if err := os.WriteFile(big, bigCapture(t, distinctFrames(MaxFrameBytes/perFrame+2, perFrame)), 0o644); err != nil {
		t.Fatal(err)
	}
	notices = nil
	cases, err = Assemble(Selection{Pcap: big, Notice: func(s string) { notices = append(notices, s) }})
	if err != nil || len(cases) != MaxFrameBytes/perFrame {
		t.Fatalf("%d cases, %v; want the %d that fit %d MiB", len(cases), err, MaxFrameBytes/perFrame, MaxFrameBytes>>20)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "all the cases may hold") {
		t.Errorf("notices %q", notices)
	}
}

// A capture past MaxCaptureFile is refused before a byte of it is read.
func TestPcapRefusesLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "large.pcap")
	if err := os.WriteFile(path, bigCapture(t, distinctFrames(1, 60)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, MaxCaptureFile+1); err != nil { // sparse: no disk
		t.Fatal(err)
	}
	_, err := ReadPcap(path, 0)
	if !errors.Is(err, ErrPcap) || !errors.Is(err, badinput.Err) || !strings.Contains(fmt.Sprint(err), "more than 256 MiB") {
		t.Fatalf("%v, want the capture refused for its size", err)
	}
}

// Raw frames add up against MaxFrameBytes, file after file; a glob of
// more files than cases may be is refused before any is read.
func TestReadFilesLimits(t *testing.T) {
	dir := t.TempDir()
	for i, f := range distinctFrames(MaxFrameBytes/capture.MaxCapture+1, capture.MaxCapture) {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.bin", i)), f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := ReadFiles([]string{filepath.Join(dir, "*.bin")})
	if !errors.Is(err, ErrLimit) || !strings.Contains(fmt.Sprint(err), fmt.Sprintf("more than %d MiB of frames", MaxFrameBytes>>20)) {
		t.Fatalf("%v, want the frames refused past %d MiB", err, MaxFrameBytes>>20)
	}
}

// Padding is counted before it is done, and a size no case can take is
// refused before any file is read.
func TestAssembleLimitsSizes(t *testing.T) {
	_, err := Assemble(Selection{Builtin: true, Names: []string{"fizz", "buzz"}, Sizes: make([]int, MaxCases/2+1)})
	if !errors.Is(err, ErrSize) {
		t.Errorf("sizes of 0 bytes: %v", err)
	}
	sizes := make([]int, MaxCases/2+1)
	for i := range sizes {
		sizes[i] = 64
	}
	if _, err := Assemble(Selection{Builtin: true, Names: []string{"fizz", "buzz"}, Sizes: sizes}); !errors.Is(err, ErrLimit) {
		t.Errorf("%d cases, padded: %v, want ErrLimit", 2*len(sizes), err)
	}
	if _, err := Assemble(Selection{Files: []string{"no/such/file.yaml"}, Sizes: []int{9019}}); !errors.Is(err, ErrSize) {
		t.Errorf("a size past a jumbo frame, with a missing file: %v, want the size refused first", err)
	}
}
