package report

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// report renders what results holds and nothing else: it depends on no
// package that loads, runs or counts a program, nor on the root package,
// which does all three; nor does internal/printable, the text it
// shares with the HTML page. A renderer that needs more than the saved figures gets it in
// results' in-memory fields, or as plain data from the producer
// (doc.go).
func TestDependsOnNoMeasuring(t *testing.T) {
	for _, pkg := range []string{".", "../internal/printable"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if pkg == "." && !slices.Contains(deps, "github.com/xdpmicro/xdpmicro/results") {
			t.Fatalf("go list -deps lists no results: %q", deps)
		}
		for _, dep := range deps {
			if measures(dep) {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}

// measures says whether a package loads, runs or counts a program.
func measures(pkg string) bool {
	forbidden := []string{
		"github.com/xdpmicro/xdpmicro",
		"github.com/xdpmicro/xdpmicro/testrun",
		"github.com/xdpmicro/xdpmicro/internal/object",
		"github.com/xdpmicro/xdpmicro/internal/worst",
		"github.com/xdpmicro/xdpmicro/internal/profile",
		"github.com/xdpmicro/xdpmicro/bpf",
	}
	return slices.Contains(forbidden, pkg) || pkg == "github.com/cilium/ebpf" || strings.HasPrefix(pkg, "github.com/cilium/ebpf/")
}
