package main

import (
	"os"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/btfvalue/btfcraft"
)

// craftedNested writes bpf/testdata/nested.o with its BTF changed by edit.
func craftedNested(t *testing.T, edit func(b *btfcraft.BTF) error) string {
	t.Helper()
	data, err := os.ReadFile("../../bpf/testdata/nested.o")
	if err != nil {
		t.Fatal(err)
	}
	b, err := btfcraft.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := edit(b); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "crafted.o", string(data))
}

// Crafted BTF (issue 46, item 6): `programs`, which needs no privileges,
// overflowed the stack (1 GB) on a struct that holds itself; --set
// panicked (slice bounds out of range [128:4]) on a member past its
// struct's end. Now a listing, and one line of bad input (exit 2).
func TestCraftedBTF(t *testing.T) {
	holdsItself := craftedNested(t, btfcraft.OuterHoldsItself)
	pastItsEnd := craftedNested(t, btfcraft.InnerMemberPastEnd)
	for object, value := range map[string]string{holdsItself: "{0x0100000002000000, b: 2}", pastItsEnd: "{in: 0x01000000, b: 2}"} {
		code, stdout, stderr := runCLI("programs", object)
		if code != 0 || !strings.Contains(stdout, value) {
			t.Errorf("programs: exit %d, stderr %q; want exit 0 and nested = %s in\n%s", code, stderr, value, stdout)
		}
	}
	for _, tt := range []struct{ object, set, msg string }{
		{pastItsEnd, "nested={in: {a: 1}}", `struct inner: member "a" lies past its end in the object's BTF`},
		{holdsItself, "nested={zz: 1}", `struct outer has no member "zz" (members: b)`},
	} {
		code, stdout, stderr := runCLI(append([]string{"bench", tt.object, "--set", tt.set}, quick...)...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.msg) {
			t.Errorf("--set %s: exit %d, stderr %q; want exit %d and one line with %q", tt.set, code, stderr, exitUsage, tt.msg)
		}
	}
}

// An 8 MiB global is listed by its start and size: `programs` printed
// its 8 MiB as 184 MB of table (issue 46, item 5).
func TestProgramsCutsLargeGlobals(t *testing.T) {
	code, stdout, stderr := runCLI("programs", "../../bpf/testdata/bigmaps.o")
	if code != 0 || len(stdout) > 20_000 || !strings.Contains(stdout, "… (8388480 more bytes)") {
		t.Errorf("exit %d, %d bytes of output, stderr %q; want exit 0, the global cut: %.2000s", code, len(stdout), stderr, stdout)
	}
}
