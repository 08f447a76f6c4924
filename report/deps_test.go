package report

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// report renders what results holds and nothing else: it depends on no
// package that loads, runs or counts a program, nor on the root package,
// which does all three. A renderer that needs more than the saved figures
// gets it in results' in-memory fields, or as plain data from the
// producer (doc.go).
func TestDependsOnNoMeasuring(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/xdpmicro/xdpmicro/results") {
		t.Fatalf("go list -deps lists no results: %q", deps)
	}
	forbidden := []string{
		"github.com/xdpmicro/xdpmicro",
		"github.com/xdpmicro/xdpmicro/testrun",
		"github.com/xdpmicro/xdpmicro/internal/object",
		"github.com/xdpmicro/xdpmicro/internal/worst",
		"github.com/xdpmicro/xdpmicro/internal/profile",
		"github.com/xdpmicro/xdpmicro/bpf",
	}
	for _, dep := range deps {
		if slices.Contains(forbidden, dep) || dep == "github.com/cilium/ebpf" || strings.HasPrefix(dep, "github.com/cilium/ebpf/") {
			t.Errorf("report depends on %s", dep)
		}
	}
}
