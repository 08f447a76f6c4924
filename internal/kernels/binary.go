package kernels

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// libraryDirs are where a library a binary needs is looked for after its
// own run path: the places glibc's and musl's loaders look by default, on
// multiarch systems (Debian, Ubuntu) and the others.
var libraryDirs = []string{
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib",
	"/usr/local/lib", "/usr/local/lib/x86_64-linux-gnu",
}

// maxBinary bounds a binary or library read whole.
const maxBinary = 1 << 30

// AddBinary puts the x86-64 executable at hostPath into the initramfs as
// guestPath. A dynamically linked one (a Go binary built with cgo, as
// `go build` makes one where a C compiler is found) takes its ELF
// interpreter and the libraries it needs, found as its loader would
// find them, each at the path it was found at; it returns the
// directories the guest's loader must search, for LD_LIBRARY_PATH. A
// static binary needs nothing more: nothing is returned.
//
// The binary is taken as it is rather than a static one built for the
// guest: the user's xdpmicro need not come with a Go toolchain, and the
// guest then runs exactly the code the host does.
func (fs *Initramfs) AddBinary(hostPath, guestPath string) (libDirs []string, err error) {
	data, err := safefs.ReadFile(hostPath, maxBinary)
	if err != nil {
		return nil, err
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: not an ELF executable: %w", hostPath, err)
	}
	if f.Machine != elf.EM_X86_64 {
		return nil, fmt.Errorf("%s is a %s binary; the guest runs x86-64", hostPath, f.Machine)
	}
	fs.Add(guestPath, data, 0o755)
	interp, err := interpreter(f)
	if err != nil || interp == "" {
		return nil, err
	}
	if err := fs.addResolved(interp); err != nil {
		return nil, fmt.Errorf("%s's ELF interpreter: %w", hostPath, err)
	}
	seen := map[string]bool{}
	dirs := map[string]bool{}
	if err := fs.addLibraries(f, filepath.Dir(hostPath), seen, dirs); err != nil {
		return nil, fmt.Errorf("%s: %w", hostPath, err)
	}
	for dir := range dirs {
		libDirs = append(libDirs, dir)
	}
	return libDirs, nil
}

// interpreter is the path in PT_INTERP, "" for a static binary.
func interpreter(f *elf.File) (string, error) {
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			return "", fmt.Errorf("read PT_INTERP: %w", err)
		}
		return strings.TrimRight(string(b), "\x00"), nil
	}
	return "", nil
}

// addLibraries adds the libraries f needs (DT_NEEDED), and theirs.
func (fs *Initramfs) addLibraries(f *elf.File, origin string, seen, dirs map[string]bool) error {
	needed, err := f.ImportedLibraries()
	if err != nil {
		return fmt.Errorf("read DT_NEEDED: %w", err)
	}
	search := runPath(f, origin)
	for _, name := range needed {
		if seen[name] {
			continue
		}
		seen[name] = true
		found := findLibrary(name, search)
		if found == "" {
			return fmt.Errorf("library %s not found in %s", name, strings.Join(append(search, libraryDirs...), ":"))
		}
		data, err := safefs.ReadFile(found, maxBinary)
		if err != nil {
			return err
		}
		fs.Add(found, data, 0o755)
		dirs[path.Dir(found)] = true
		lib, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", found, err)
		}
		if err := fs.addLibraries(lib, path.Dir(found), seen, dirs); err != nil {
			return err
		}
	}
	return nil
}

// runPath is DT_RUNPATH, or else DT_RPATH, with $ORIGIN expanded.
func runPath(f *elf.File, origin string) []string {
	paths, _ := f.DynString(elf.DT_RUNPATH)
	if len(paths) == 0 {
		paths, _ = f.DynString(elf.DT_RPATH)
	}
	var dirs []string
	for _, p := range paths {
		for _, dir := range filepath.SplitList(p) {
			dir = strings.ReplaceAll(strings.ReplaceAll(dir, "${ORIGIN}", origin), "$ORIGIN", origin)
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

func findLibrary(name string, search []string) string {
	if strings.Contains(name, "/") {
		return name
	}
	for _, dir := range append(search, libraryDirs...) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// addResolved adds the file at p, a symlink's target read, at p itself.
func (fs *Initramfs) addResolved(p string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	data, err := safefs.ReadFile(real, maxBinary)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return errors.New(p + " is empty")
	}
	fs.Add(p, data, 0o755)
	return nil
}
