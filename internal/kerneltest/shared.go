package kerneltest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/xdpmicro/xdpmicro/internal/host"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// ObjectFields is an object as package object and package testrun both
// hold one (their Object types share it): by a name, as an ELF file's
// bytes, as a parsed collection or as a loaded program.
type ObjectFields interface {
	~struct {
		Name string
		ELF  []byte
		Spec *ebpf.CollectionSpec
		Prog *ebpf.Program
	}
}

// ReadTestObject reads the object file name of the module's bpf/testdata,
// named by its path from the test's directory, as the package's own
// ReadObject names a file: "../bpf/testdata/NAME" from testrun, say.
func ReadTestObject[O ObjectFields](t testing.TB, name string) O {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := dir
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Fatalf("no go.mod above %s", dir)
		}
		root = parent
	}
	path, err := filepath.Rel(dir, filepath.Join(root, "bpf", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	data, err := safefs.ReadFile(path, safefs.MaxInput)
	if err != nil {
		t.Fatal(err)
	}
	return O{Name: path, ELF: data}
}

// ClaimCPU claims a CPU as a run would, from the machine's lock
// directory, until the test ends.
func ClaimCPU(t testing.TB) *host.Claim {
	t.Helper()
	allowed, err := host.AllowedCPUs(host.AnyCPU)
	if err != nil {
		t.Fatal(err)
	}
	claim, err := host.ChooseCPU(context.Background(), host.AnyCPU, allowed, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(claim.Release)
	return claim
}
