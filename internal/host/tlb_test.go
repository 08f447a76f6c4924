package host

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCPUHasFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpuinfo")
	text := "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu vme pti pcid\n\nprocessor\t: 1\nflags\t\t: fpu\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if !cpuHasFlag(path, "pcid") || cpuHasFlag(path, "invpcid") || cpuHasFlag(path, "pc") {
		t.Error("flags read wrong: want pcid, not invpcid, not a prefix")
	}
	if cpuHasFlag(filepath.Join(t.TempDir(), "none"), "pcid") {
		t.Error("a missing file has flags")
	}
}
