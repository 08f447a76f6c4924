package kernels

import (
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cavaliergopher/cpio"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// The archive holds each file at its path, its parents before it, as
// the kernel's unpacker needs them, and the same files give the same
// bytes.
func TestInitramfs(t *testing.T) {
	fs := NewInitramfs()
	fs.Add("/a/b/c.o", []byte("object"), 0o644)
	fs.Add("init", []byte("binary"), 0o755)
	data := fs.Bytes()
	if !bytes.Equal(data, fs.Bytes()) {
		t.Error("two archives of the same files differ")
	}
	r := cpio.NewReader(bytes.NewReader(data))
	seen := map[string]bool{}
	got := map[string]string{}
	for {
		hdr, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if parent := filepath.Dir(hdr.Name); parent != "." && !seen[parent] {
			t.Errorf("%s comes before its directory %s", hdr.Name, parent)
		}
		seen[hdr.Name] = true
		if hdr.Mode.IsRegular() {
			body, _ := io.ReadAll(r)
			got[hdr.Name] = string(body) + " " + hdr.Mode.Perm().String()
		}
	}
	want := map[string]string{"a/b/c.o": "object 0644", "init": "binary 0755"}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	for _, dir := range []string{"dev", "proc", "sys", "a", "a/b"} {
		if !seen[dir] {
			t.Errorf("no directory %s", dir)
		}
	}
}

// A dynamically linked binary comes with its ELF interpreter and
// libraries, at the paths its loader finds them; the guest is told where.
func TestAddBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	interp, _ := interpreter(f)
	needed, _ := f.ImportedLibraries()
	f.Close()
	fs := NewInitramfs()
	dirs, err := fs.AddBinary(exe, "/init")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fs.files["/init"]; !ok {
		t.Fatal("no /init")
	}
	if interp == "" {
		if len(fs.files) != 6 || dirs != nil {
			t.Errorf("a static binary took %d files, libraries in %v", len(fs.files)-5, dirs)
		}
		return
	}
	if _, ok := fs.files[interp]; !ok {
		t.Errorf("no ELF interpreter %s", interp)
	}
	for _, lib := range needed {
		found := false
		for name := range fs.files {
			found = found || filepath.Base(name) == lib
		}
		if !found {
			t.Errorf("no %s", lib)
		}
	}
	if len(dirs) == 0 {
		t.Error("no library directory for LD_LIBRARY_PATH")
	}
	if _, err := fs.AddBinary("/etc/hostname", "/x"); err == nil {
		t.Error("/etc/hostname taken as a binary")
	}
}

// A missing file and a file that is no bzImage are bad input, in one
// line that names them.
func TestCheckImage(t *testing.T) {
	exe, _ := os.Executable()
	for _, path := range []string{"/no/such/vmlinuz", "/etc/hostname", exe, t.TempDir()} {
		_, err := CheckImage(path)
		if !errors.Is(err, badinput.Err) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want bad input naming it, in one line", path, err)
		}
	}
}

// The result line survives a tty's "\r\n" and whatever precedes it.
func TestResultLine(t *testing.T) {
	res := Result{Release: "6.1.0", Exit: 1, Stdout: []byte("{\n}\n"), Stderr: "xdpmicro: refused\n"}
	line, err := EncodeResult(res)
	if err != nil {
		t.Fatal(err)
	}
	port := "noise\r\n" + strings.ReplaceAll(line, "\n", "\r\n")
	got, err := DecodeResult([]byte(port))
	if err != nil || got.Release != res.Release || got.Exit != 1 || string(got.Stdout) != string(res.Stdout) || got.Stderr != res.Stderr {
		t.Errorf("decoded %+v, %v; want %+v", got, err, res)
	}
	if _, err := DecodeResult([]byte(line[:len(line)/2])); err == nil || errors.Is(err, errNoResultLine) {
		t.Errorf("half a line: %v; want it named cut short", err)
	}
}

// The console's tail keeps the last lines a person can read.
func TestConsoleTail(t *testing.T) {
	c := newConsole(time.Now())
	for _, chunk := range []string{"a\r\n\x1b[1mb", "\x1b[0m\r\n\nbar 10%\rbar 20%\r\n  \n", "c"} {
		c.Write([]byte(chunk))
	}
	c.close()
	got := c.Tail()
	want := []string{"a", "b", "bar 20%", "c"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%q, want %q", got, want)
	}
}
