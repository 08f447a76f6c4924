package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// An --output that is no regular file (a FIFO here; /dev/null or
// /dev/stdout alike) is refused in one line before anything is measured,
// and left as it was: a new file renamed over it would have replaced a
// device of /dev for every program on the machine. Through a symlink of
// this user's, the same; as root, the symlink is refused itself.
func TestOutputNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "stdout")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"bench", "--output", fifo},
		{"bench", "--output", link},
		{"validate", "--output", link},
		{"worst", "-o", fifo},
		{"profile", "-o", link},
	} {
		code, stdout, stderr := runCLI(args...)
		path := args[len(args)-1]
		want := "xdpmicro: --output " + path + ": not a regular file"
		if path == link && os.Geteuid() == 0 {
			want = "xdpmicro: --output " + path + ": refused: " + path + " is a symlink: as root"
		}
		if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line beginning %q", args, code, stdout, stderr, want)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v, %v", fi.Mode(), err)
	}
	if target, err := os.Readlink(link); err != nil || target != fifo {
		t.Errorf("the symlink is now %q, %v", target, err)
	}
}
