package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// nobody is the other user whose files and symlinks the tests plant.
const nobody = 65534

// asNobody makes path (a symlink itself, not its target) user nobody's,
// as if nobody had planted it; it skips the test without root.
func asNobody(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("planting another user's files needs root (sudo go test ...)")
	}
	if err := os.Lchown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}

// victim is a file only root may read, as /etc/shadow is.
type victim struct {
	path string
	data string
	mode fs.FileMode
}

func newVictim(t *testing.T) victim {
	t.Helper()
	v := victim{path: filepath.Join(t.TempDir(), "victim"), data: "precious data\n", mode: 0o600}
	if err := os.WriteFile(v.path, []byte(v.data), v.mode); err != nil {
		t.Fatal(err)
	}
	return v
}

// untouched fails the test unless the victim keeps its content and mode.
func (v victim) untouched(t *testing.T) {
	t.Helper()
	fi, err := os.Lstat(v.path)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(v.path)
	if string(data) != v.data || fi.Mode() != v.mode {
		t.Errorf("victim %s: %q %v, was %q %v", v.path, data, fi.Mode(), v.data, v.mode)
	}
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// Written files hold the whole content, 0644 less the umask, and leave
// no temporary file behind.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	for _, data := range []string{"first\n", "second, longer\n"} {
		if err := WriteFile(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Errorf("read back %q, want %q", got, data)
		}
	}
	mask := syscall.Umask(0)
	syscall.Umask(mask)
	if fi, _ := os.Stat(path); fi.Mode() != 0o644&^fs.FileMode(mask) {
		t.Errorf("mode %v, want 0644 less umask %o", fi.Mode(), mask)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "out.json"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("into a missing directory: %v", err)
	}
}

// A symlink planted at the name is replaced, its target untouched; so is
// another user's file, world-writable, without its mode being copied.
func TestWriteFileReplacesPlanted(t *testing.T) {
	v := newVictim(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, os.ModeSticky|0o777); err != nil { // as /tmp
		t.Fatal(err)
	}
	link := filepath.Join(dir, "out.json")
	symlink(t, v.path, link)
	asNobody(t, link)
	// As root, a symlink at the name is refused, whoever owns it.
	if err := WriteFile(link, []byte("report\n")); !errors.Is(err, ErrUnsafe) {
		t.Errorf("through nobody's symlink: %v, want %v", err, ErrUnsafe)
	}
	v.untouched(t)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v %v", fi.Mode(), err)
	}

	theirs := filepath.Join(dir, "theirs.json")
	if err := os.WriteFile(theirs, []byte("nobody's\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(theirs, 0o666); err != nil { // past the umask
		t.Fatal(err)
	}
	asNobody(t, theirs)
	kept := filepath.Join(t.TempDir(), "kept") // the same file, to look at after
	if err := os.Link(theirs, kept); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(theirs, []byte("report\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(kept); string(data) != "nobody's\n" {
		t.Errorf("nobody's file now holds %q", data)
	}
	fi, _ := os.Stat(theirs)
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 0 || fi.Mode()&0o022 != 0 {
		t.Errorf("the report is uid %d's, mode %v: want root's, writable by root alone", st.Uid, fi.Mode())
	}
}

// A directory reached through a symlink another user owns is refused,
// and nothing is written where it points; root's symlinks, this user's
// and the sudo user's are followed, but for root's writes, which follow
// root's own alone (TestRootWritesThroughRootsOnly).
func TestSymlinkOwners(t *testing.T) {
	target := t.TempDir()
	dir := t.TempDir()
	if err := os.Chmod(dir, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report")
	symlink(t, target, link)
	if err := WriteFile(filepath.Join(link, "index.html"), []byte("page")); err != nil {
		t.Fatalf("through this user's symlink: %v", err)
	}
	asNobody(t, link)
	for _, try := range []func() error{
		func() error { return WriteFile(filepath.Join(link, "index.html"), []byte("page")) },
		func() error { _, err := OpenDir(filepath.Join(link, "sub"), true); return err },
		func() error { _, err := ReadFile(filepath.Join(link, "index.html"), MaxInput); return err },
	} {
		err := try()
		if !errors.Is(err, ErrUnsafe) {
			t.Errorf("through nobody's symlink: %v, want %v", err, ErrUnsafe)
			continue
		}
		want := "refused: " + link + " is a symlink that uid 65534 owns, who could have planted it"
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q, want one line with %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(target, "sub")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a directory was made through nobody's symlink: %v", err)
	}
	t.Setenv("SUDO_UID", "65534")
	if _, err := ReadFile(filepath.Join(link, "index.html"), MaxInput); err != nil {
		t.Errorf("reading through the sudo user's symlink: %v", err)
	}
}

// Relative paths, "..", symlinks to relative targets and chains of them
// resolve as the kernel resolves them; a loop is an error.
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll("a/b", 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "a/b", "ab")
	symlink(t, "../b", "a/up")     // a/up → a/../b, which is missing
	symlink(t, "../a/b", "a/back") // a/back → a/b
	symlink(t, "loop", "loop")
	for path, ok := range map[string]bool{
		"ab/f": true, "./a/../ab/f": true, "a/back/f": true, "a/b/../b/f": true,
		"a/up/f": false, "loop/f": false, "ab/f/g": false,
	} {
		err := WriteFile(path, []byte(path))
		if (err == nil) != ok {
			t.Errorf("%s: %v", path, err)
		}
		if ok {
			if data, _ := os.ReadFile("a/b/f"); string(data) != path {
				t.Errorf("%s: a/b/f holds %q", path, data)
			}
		}
	}
	if err := WriteFile("loop/f", nil); !errors.Is(err, unix.ELOOP) {
		t.Errorf("loop: %v", err)
	}
	d, err := OpenDir("x/y/z", true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.CheckWritable(); err != nil {
		t.Error(err)
	}
	if fi, err := os.Stat("x/y/z"); err != nil || !fi.IsDir() {
		t.Errorf("made x/y/z: %v", err)
	}
	if entries, _ := os.ReadDir("x/y/z"); len(entries) != 0 {
		t.Errorf("the check left %v", entries)
	}
}

// Only regular files are read: a FIFO is refused at once rather than
// waited on, a device before it is opened; a file too large is refused
// before it is read.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "cases.yaml")
	if err := unix.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo, MaxInput); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
	for _, path := range []string{"/dev/null", dir} {
		if _, err := Open(path); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v", path, err)
		}
	}
	sparse := filepath.Join(dir, "huge.pcap")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 1<<40); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(sparse, MaxInput); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a 1 TiB file: %v", err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	_, err := ReadFile(missing, MaxInput)
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "open "+missing+": no such file or directory" {
		t.Errorf("missing: %v", err)
	}
	if data, err := ReadFile("/proc/self/stat", MaxInput); err != nil || len(data) == 0 {
		t.Errorf("a file that claims no size: %q, %v", data, err)
	}
}

// A symlink of this user's at the name is followed, but by root: the
// file it names is replaced, and the symlink stays. One to anything but
// a regular file (/dev/stdout to a terminal, a FIFO) is refused, and
// stays too: renamed over, /dev/stdout would be a file for every program
// after. As root, a symlink at the name is refused, whoever owns it.
func TestWriteFileThroughOwnSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "results", "out.json")
	if err := os.Mkdir(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "out.json")
	symlink(t, "results/out.json", link)
	// notRegular is what a write to a link to anything but a regular
	// file is refused as: root refuses the link itself.
	notRegular := ErrNotRegular
	if os.Geteuid() == 0 {
		notRegular = ErrUnsafe
		for _, err := range []error{CheckWrite(link), WriteFile(link, []byte("x"))} {
			if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), link+" is a symlink: as root, xdpmicro writes no file through one") {
				t.Errorf("as root, through root's own symlink: %v, want %v", err, ErrUnsafe)
			}
		}
		if _, err := os.Stat(real); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("as root, a file was written through the symlink: %v", err)
		}
	}
	for _, data := range []string{"first\n", "second\n"} { // missing, then there
		if os.Geteuid() == 0 {
			break
		}
		if err := CheckWrite(link); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(link, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(real); string(got) != data {
			t.Errorf("the symlink's target holds %q, want %q", got, data)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the symlink was replaced: %v %v", fi.Mode(), err)
		}
	}

	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout := filepath.Join(dir, "stdout")
	symlink(t, "/dev/null", stdout)
	// /dev/stdout into a pipe: /proc/self/fd/N names "pipe:[...]".
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	pipe := "/proc/self/fd/" + strconv.Itoa(int(w.Fd()))
	for path, want := range map[string]error{stdout: notRegular, fifo: ErrNotRegular, dir: ErrNotRegular, pipe: notRegular} {
		for name, write := range map[string]func(string) error{
			"CheckWrite": CheckWrite,
			"WriteFile":  func(p string) error { return WriteFile(p, []byte("x")) },
		} {
			if err := write(path); !errors.Is(err, want) {
				t.Errorf("%s %s: %v, want %v", name, path, err, want)
			}
		}
	}
	if target, err := os.Readlink(stdout); err != nil || target != "/dev/null" {
		t.Errorf("the symlink to /dev/null is now %q, %v", target, err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v, %v", fi.Mode(), err)
	}
}

// Under sudo, what root makes in the sudo user's directories is theirs:
// directories made on the way, new files, and files of theirs it
// replaces, which keep their mode. Elsewhere root's stays root's, and a
// third user's file it replaces lends it nothing.
func TestSudoUserOwnsWhatRootMakes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing owners needs root (sudo go test ...)")
	}
	t.Setenv("SUDO_UID", strconv.Itoa(nobody))
	t.Setenv("SUDO_GID", strconv.Itoa(nobody))
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	ownedBy := func(path string, uid uint32, mode fs.FileMode) {
		t.Helper()
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != uid || (mode != 0 && fi.Mode().Perm() != mode) {
			t.Errorf("%s: uid %d gid %d mode %v, want uid %d mode %v", path, st.Uid, st.Gid, fi.Mode().Perm(), uid, mode)
		}
	}

	cache := filepath.Join(home, ".cache", "xdpmicro")
	d, err := OpenDir(cache, true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.WriteFile("phases.json", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	ownedBy(filepath.Join(home, ".cache"), nobody, 0)
	ownedBy(cache, nobody, 0)
	ownedBy(filepath.Join(cache, "phases.json"), nobody, 0)

	out := filepath.Join(home, "out.json")
	if err := os.WriteFile(out, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(out, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(out, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	ownedBy(out, nobody, 0o600)

	planted := filepath.Join(home, "planted.json")
	if err := os.WriteFile(planted, []byte("someone else's\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(planted, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(planted, []byte("report\n")); err != nil {
		t.Fatal(err)
	}
	ownedBy(planted, 0, 0)

	rootsDir := t.TempDir()
	if err := WriteFile(filepath.Join(rootsDir, "out.json"), []byte("report\n")); err != nil {
		t.Fatal(err)
	}
	ownedBy(filepath.Join(rootsDir, "out.json"), 0, 0)
	rootsOld := filepath.Join(rootsDir, "secret.json")
	if err := os.WriteFile(rootsOld, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(rootsOld, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	ownedBy(rootsOld, 0, 0o600)
}

// As root, under sudo, no output goes through a symlink but root's own,
// in a directory only root can change: a checkout's out.json -> a file
// of root's made root replace that file, and a --report directory that
// was the sudo user's symlink was written through. A symlink at the name
// itself is refused whoever owns it. Each is one line, bad input.
func TestRootWritesThroughRootsOnly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("root's writes need root (sudo go test ...)")
	}
	t.Setenv("SUDO_UID", strconv.Itoa(nobody))
	t.Setenv("SUDO_GID", strconv.Itoa(nobody))
	v := newVictim(t)
	roots := t.TempDir() // root's, 0700: where root's own links may be followed
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(home, "out.json")
	symlink(t, v.path, out)
	asNobody(t, out)
	report := filepath.Join(home, "report")
	symlink(t, roots, report)
	asNobody(t, report)
	rootsInHome := filepath.Join(home, "roots-link") // root's own link, in a directory the user can change
	symlink(t, roots, rootsInHome)
	for name, err := range map[string]error{
		"-o, the sudo user's symlink":               WriteFile(out, []byte("report\n")),
		"-o checked":                                CheckWrite(out),
		"--report, the sudo user's symlink":         func() error { _, err := OpenDir(report, true); return err }(),
		"--report checked":                          func() error { _, err := OpenDir(report, false); return err }(),
		"a file in the sudo user's symlinked dir":   WriteFile(filepath.Join(report, "index.html"), []byte("page")),
		"root's symlink in the user's directory":    WriteFile(filepath.Join(rootsInHome, "out.json"), []byte("x")),
		"root's symlink at the name, in root's dir": WriteFile(func() string { l := filepath.Join(roots, "latest.json"); symlink(t, "out.json", l); return l }(), []byte("x")),
	} {
		if !errors.Is(err, ErrUnsafe) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line of %v", name, err, ErrUnsafe)
		}
	}
	v.untouched(t)
	if entries, _ := os.ReadDir(roots); len(entries) != 1 { // latest.json alone
		t.Errorf("root's directory holds %d entries: something was written through a link", len(entries))
	}
	// Root's own link in root's directory, or in a sticky one (/tmp), is
	// followed; the sudo user's is still read through.
	sticky := t.TempDir()
	if err := os.Chmod(sticky, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{roots, sticky} {
		link := filepath.Join(dir, "results")
		symlink(t, t.TempDir(), link)
		if err := WriteFile(filepath.Join(link, "out.json"), []byte("x")); err != nil {
			t.Errorf("root's link in %s: %v", dir, err)
		}
	}
	if _, err := ReadFile(out, MaxInput); err != nil {
		t.Errorf("reading through the sudo user's symlink: %v", err)
	}
}
