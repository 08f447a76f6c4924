package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

// Given a program, packets runs each case once through it and shows what
// it did to the frame and the maps; without one it runs nothing.
func TestPacketsShowsOutputFrame(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, stdout, stderr := runCLI("packets", "../../bpf/testdata/rewrite.o", "--program", "swap_macs", "--class", "fizz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Another program's cases are not FizzBuzzFibonacci's to explain.
	if strings.Contains(stdout, "is in class") {
		t.Errorf("rewrite.o's cases explained as FizzBuzzFibonacci classes:\n%s", stdout)
	}
	// swap_macs exchanges the addresses 02:00:00:00:00:02 and 02:00:00:00:00:01.
	for _, want := range []string{"XDP_TX", "bytes 5, 11 differ", "fizz, as the program left it (XDP_TX): udp 192.0.2.4:40000 > 198.51.100.1:9, 60 bytes",
		"00000000  02 00 00 00 00 01 02 00  00 00 00 02 08 00"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = runCLI("packets", "v4", "--class", "fizz,none")
	if code != 0 {
		t.Fatalf("v4: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "fizz: map verdicts: pushed FIZZ") || strings.Contains(stdout, "none: map") ||
		!strings.Contains(stdout, "fizz: 192.0.2.4 is in class fizz: ") ||
		strings.Contains(stdout, "as the program left it") || strings.Count(stdout, "unchanged") != 2 {
		t.Errorf("v4 changes no frame and pushes for fizz only:\n%s", stdout)
	}
}

func TestPacketsUsage(t *testing.T) {
	for _, args := range [][]string{
		{"packets", "--program", "x"},
		{"packets", "--map-init", "x.yaml"},
		{"packets", "v4", "--pcap", "/tmp/x.pcap"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != 2 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line", args, code, stdout, stderr)
		}
	}
}

// A raw frame's case is named after its file, and a glob's match may be
// any name: the listing writes ESC, BEL, a C1 CSI as UTF-8 (U+009B) and a
// raw 0x9b byte as escapes, its columns lined up.
func TestPacketsEscapesNames(t *testing.T) {
	dir := t.TempDir()
	frame := make([]byte, 60)
	frame[12], frame[13] = 0x08, 0x00
	const name = "a\x1b]0;pwned\x07b\u009bc\x9bd"
	if err := os.WriteFile(filepath.Join(dir, name+".bin"), frame, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("packets", "--packets", filepath.Join(dir, "*.bin"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(stdout, "\x1b\x07\u009b") || strings.Contains(stdout, "\x9b") {
		t.Errorf("the listing holds a control character:\n%q", stdout)
	}
	if want := `a\x1b]0;pwned\x07b\u009bc\x9bd`; !strings.Contains(stdout, "│ "+want+" │") && !strings.Contains(stdout, "| "+want+" |") {
		t.Errorf("the listing lacks the escaped name %s in its column:\n%s", want, stdout)
	}
}

// packets says, as bench does, which maps' changes it does not show:
// those past the budget for reading maps, and which it compares in
// memory.
func TestPacketsNamesMapsNotCompared(t *testing.T) {
	kerneltest.RequireBPFAlone(t)
	code, _, stderr := runCLI("packets", "../../bpf/testdata/bigmaps.o")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "not shown: ") || !strings.Contains(stderr, "slab_d (15.0 MiB") {
		t.Errorf("stderr does not name the maps not compared: %q", stderr)
	}
	// The one array past a map's budget, which the program writes, is
	// compared in memory, and said so.
	if !strings.Contains(stderr, "created mmapable (BPF_F_MMAPABLE)") || !strings.Contains(stderr, "as before: too_big") {
		t.Errorf("stderr does not say too_big is compared in memory: %q", stderr)
	}
}

// packets takes -q as bench and worst do: the --pcap file is written
// without a line on stderr.
func TestPacketsQuiet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cases.pcap")
	code, _, stderr := runCLI("packets", "-q", "--class", "fizz", "--pcap", path)
	if code != 0 || stderr != "" {
		t.Fatalf("packets -q --pcap: exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("the pcap: %v", err)
	}
	code, stdout, stderr := runCLI("packets", "--quiet", "--class", "fizz")
	if code != 0 || !strings.Contains(stdout, "fizz: 192.0.2.4 is in class fizz") {
		t.Errorf("packets --quiet: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
}
