package main

import (
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
