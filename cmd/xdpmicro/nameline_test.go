package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// An error line quoting a name with a tab, a line feed or a line
// separator keeps to its one line, each written as its escape: a name
// could otherwise forge a line of xdpmicro's after it.
func TestErrorLineOneLine(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x\n\txdpmicro: forged\u2028.json")
	code, _, stderr := runCLI("compare", name, name)
	if code != exitUsage {
		t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
	}
	if strings.Count(stderr, "\n") != 1 || strings.ContainsAny(stderr, "\t\u2028") {
		t.Errorf("the error is not one line: %q", stderr)
	}
	if !strings.Contains(stderr, `x \x09xdpmicro: forged\u2028.json`) {
		t.Errorf("the name is not shown escaped: %q", stderr)
	}
}
