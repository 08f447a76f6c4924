package crash

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCatch(t *testing.T) {
	var out bytes.Buffer
	code := func() (code int) {
		defer Catch(&out, &code)
		var m map[string]int
		m["x"] = 1 // a nil map: a runtime panic, as a bug would give
		return 0
	}()
	first, _, _ := strings.Cut(out.String(), "\n")
	switch {
	case code != ExitCode:
		t.Errorf("exit %d, want %d", code, ExitCode)
	case !strings.Contains(first, "internal error") || !strings.Contains(first, ReportTo) || !strings.Contains(first, "nil map"):
		t.Errorf("first line %q: want the panic, that it is a bug, and where to report it", first)
	case !strings.Contains(out.String(), "crash_test.go"):
		t.Errorf("no stack of the panicking goroutine:\n%s", out.String())
	}
}

// A panic in a goroutine of its own, which no caller's recover reaches,
// still ends the process with ExitCode and the message: run in a child.
func TestGuard(t *testing.T) {
	if os.Getenv("CRASH_TEST_CHILD") == "1" {
		go func() {
			defer Guard()
			panic("from a goroutine")
		}()
		select {} // Guard exits the process
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGuard$")
	cmd.Env = append(os.Environ(), "CRASH_TEST_CHILD=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitCode {
		t.Fatalf("child: %v, want exit %d; stderr:\n%s", err, ExitCode, stderr.String())
	}
	if first, _, _ := strings.Cut(stderr.String(), "\n"); !strings.Contains(first, "from a goroutine") || !strings.Contains(first, ReportTo) {
		t.Errorf("first line %q", first)
	}
}

// Exit runs what is registered, and not what was removed, before the
// process ends: run in a child, which writes to a file for each.
func TestExitRunsCleanups(t *testing.T) {
	if dir := os.Getenv("CRASH_TEST_EXIT_DIR"); dir != "" {
		mark := func(name string) func() {
			return func() { _ = os.WriteFile(filepath.Join(dir, name), nil, 0o644) }
		}
		AtExit(mark("kept"))
		AtExit(mark("removed"))()
		go func() {
			defer Guard()
			panic("from a goroutine")
		}()
		time.Sleep(time.Minute) // Guard exits first
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestExitRunsCleanups$")
	cmd.Env = append(os.Environ(), "CRASH_TEST_EXIT_DIR="+dir)
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitCode {
		t.Fatalf("child: %v, want exit %d", err, ExitCode)
	}
	if _, err := os.Stat(filepath.Join(dir, "kept")); err != nil {
		t.Errorf("the cleanup registered did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "removed")); err == nil {
		t.Error("the cleanup removed ran")
	}
}
