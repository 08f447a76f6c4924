package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// built is the xdpmicro binary of this package's tests, built once, on
// the first test that asks for it, into a directory TestMain removes.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

// buildBinary returns xdpmicro, built once for the tests that need a real
// process. Every test shares the file: one that changes it works on a
// copy.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "xdpmicro-test-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "xdpmicro")
		// The go that runs the tests, found even where sudo's PATH lacks it.
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		built.out, built.err = exec.Command(goTool, "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build: %v\n%s", built.err, built.out)
	}
	return built.bin
}
