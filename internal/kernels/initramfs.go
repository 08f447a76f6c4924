package kernels

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"time"

	"github.com/cavaliergopher/cpio"
	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// Initramfs is the guest's root file system, built in memory: the kernel
// unpacks it into a tmpfs and runs its /init. Files are kept by their
// absolute path in the guest; directories are added for them.
type Initramfs struct {
	files map[string]entry
}

type entry struct {
	data []byte
	mode cpio.FileMode
}

// NewInitramfs returns an empty one, with the mount points the guest
// needs.
func NewInitramfs() *Initramfs {
	fs := &Initramfs{files: map[string]entry{}}
	for _, dir := range []string{"/dev", "/proc", "/sys", "/tmp", "/root"} {
		fs.dir(dir)
	}
	return fs
}

// Add puts data at the absolute path name, with permission bits perm.
func (fs *Initramfs) Add(name string, data []byte, perm cpio.FileMode) {
	name = path.Clean("/" + name)
	fs.dir(path.Dir(name))
	fs.files[name] = entry{data: data, mode: cpio.TypeReg | perm}
}

// AddFile reads the host file at hostPath, as every input is read, and
// puts it at the same path in the guest, so that a command line and a
// file that names another relative to itself mean the same there.
func (fs *Initramfs) AddFile(hostPath, guestPath string) error {
	data, err := safefs.ReadFile(hostPath, safefs.MaxInput)
	if err != nil {
		return err
	}
	fs.Add(guestPath, data, 0o644)
	return nil
}

// AddDir adds the directory name, absolute, and its parents.
func (fs *Initramfs) AddDir(name string) { fs.dir(path.Clean("/" + name)) }

// dir adds a directory and its parents.
func (fs *Initramfs) dir(name string) {
	for ; name != "/" && name != "."; name = path.Dir(name) {
		if _, ok := fs.files[name]; ok {
			return
		}
		fs.files[name] = entry{mode: cpio.TypeDir | 0o755}
	}
}

// Size is the bytes of file content it holds.
func (fs *Initramfs) Size() int64 {
	var n int64
	for _, e := range fs.files {
		n += int64(len(e.data))
	}
	return n
}

// WriteTo writes it as a newc cpio archive, parents before children, as
// the kernel's unpacker needs them.
func (fs *Initramfs) WriteTo(w io.Writer) (int64, error) {
	names := make([]string, 0, len(fs.files))
	for name := range fs.files {
		names = append(names, name)
	}
	sort.Strings(names) // a parent sorts before its children
	cw := &countWriter{w: w}
	archive := cpio.NewWriter(cw)
	mtime := time.Unix(0, 0) // the same files give the same archive
	for _, name := range names {
		e := fs.files[name]
		hdr := &cpio.Header{Name: name[1:], Mode: e.mode, Size: int64(len(e.data)), ModTime: mtime}
		if err := archive.WriteHeader(hdr); err != nil {
			return cw.n, fmt.Errorf("initramfs: %s: %w", name, err)
		}
		if _, err := archive.Write(e.data); err != nil {
			return cw.n, fmt.Errorf("initramfs: %s: %w", name, err)
		}
	}
	if err := archive.Close(); err != nil {
		return cw.n, fmt.Errorf("initramfs: %w", err)
	}
	return cw.n, nil
}

// MemFile is the archive in a MemFile, for Machine.Initrd: it is in no
// directory, so a run killed outright leaves no file of it behind.
func (fs *Initramfs) MemFile() (*os.File, error) {
	return MemFile("initramfs", func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if _, err := fs.WriteTo(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// Bytes is the archive.
func (fs *Initramfs) Bytes() []byte {
	var buf bytes.Buffer
	_, _ = fs.WriteTo(&buf) // a bytes.Buffer does not fail
	return buf.Bytes()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
