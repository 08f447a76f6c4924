package kernels

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// allocated is what f allocates, in bytes.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// bombLine is a result line whose JSON, a stdout of size bytes, is
// gzipped as it is written: a line of size/1000 bytes or so.
func bombLine(size int) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write([]byte(`{"release":"x","stdout":"`))
	chunk := bytes.Repeat([]byte("A"), 1<<20)
	for n := 0; n < size; n += len(chunk) {
		zw.Write(chunk)
	}
	zw.Write([]byte(`"}`))
	zw.Close()
	return []byte(ResultPrefix + base64.StdEncoding.EncodeToString(buf.Bytes()) + "\n")
}

// A result line is read within MaxResult: one that decompresses to 256
// MiB, one longer than MaxResult, and one cut short are bad results,
// each said why, and reading them allocates a few times MaxResult at
// most.
func TestDecodeResultBounds(t *testing.T) {
	long := append([]byte(ResultPrefix), bytes.Repeat([]byte("A"), MaxResult+10)...)
	for _, tc := range []struct {
		name string
		port []byte
		want string
	}{
		{"256 MiB of JSON", bombLine(256 << 20), "over 16 MiB"},
		{"a line of 16 MiB and more", long, "line is over 16 MiB"},
		{"a line cut short", []byte(ResultPrefix + "H4sI"), "cut short"},
		{"not base64", []byte(ResultPrefix + "!!!!\n"), "not base64"},
		{"not gzip", []byte(ResultPrefix + "AAAA\n"), "not gzip"},
	} {
		var err error
		n := allocated(func() { _, err = DecodeResult(tc.port) })
		if err == nil || errors.Is(err, errNoResultLine) || !strings.Contains(err.Error(), tc.want) || n > 4*MaxResult {
			t.Errorf("%s: %v, %d MiB allocated; want %q, at most %d MiB", tc.name, err, n>>20, tc.want, 4*MaxResult>>20)
		}
	}
	if _, err := DecodeResult([]byte("noise\n")); !errors.Is(err, errNoResultLine) {
		t.Errorf("no result line: %v; want %v", err, errNoResultLine)
	}
}

// A result over MaxResult is sent as a setup failure that says so, not
// as a line the host would refuse without knowing why.
func TestEncodeResultOverBudget(t *testing.T) {
	line, err := EncodeResult(Result{Release: "6.1.0", Stdout: bytes.Repeat([]byte("x"), MaxResult)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := DecodeResult([]byte(line))
	if err != nil || len(res.Stdout) != 0 || !strings.Contains(res.Setup, "over the 16 MiB") || res.Release != "6.1.0" {
		t.Errorf("%+v, %v; want no stdout, the setup saying it was over 16 MiB", res, err)
	}
}

// The console keeps ConsoleTail lines of MaxConsoleLine bytes, whatever
// the guest writes: 64 MiB in one line, then a thousand lines, each with
// escapes; it allocates little, and still sees the guest come up and
// the kernel panic.
func TestConsoleBounds(t *testing.T) {
	c := newConsole(time.Now())
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	n := allocated(func() {
		c.Write([]byte(UpLine + "\n"))
		for i := 0; i < (64<<20)/len(chunk); i++ {
			c.Write(chunk)
		}
		c.Write([]byte("\n[    1.0] Kernel panic - not syncing: \x1b[31mno init\x1b]0;title\x07\n"))
		for i := 0; i < 1000; i++ {
			fmt.Fprintf(c, "line %d \x1b[1mbold\x1b[0m \u009b31m\n", i)
		}
		c.close()
	})
	tail := c.Tail()
	if len(tail) != ConsoleTail || tail[len(tail)-1] != "line 999 bold 31m" {
		t.Errorf("tail %q; want %d lines, the last one printable", tail, ConsoleTail)
	}
	if c.Up() == 0 || !strings.HasPrefix(c.Panic(), "Kernel panic - not syncing: no init") {
		t.Errorf("up %s, panic %q; want both seen", c.Up(), c.Panic())
	}
	if n > 4<<20 {
		t.Errorf("%d MiB allocated for 64 MiB of console; want a few KiB", n>>20)
	}

	c = newConsole(time.Now())
	for i := 0; i < 1024; i++ {
		c.Write(chunk)
	}
	c.close()
	if tail := c.Tail(); len(tail) != 1 || len(tail[0]) > MaxConsoleLine+32 || !strings.HasSuffix(tail[0], fmt.Sprintf("…[%d bytes cut]", 64<<20-MaxConsoleLine)) {
		t.Errorf("a line of 64 MiB kept as %d lines, the last %d bytes; want one, cut at %d bytes, saying so", len(tail), len(tail[len(tail)-1]), MaxConsoleLine)
	}
}

// What the port sends past its bound is counted and dropped.
func TestPortBuffer(t *testing.T) {
	p := &portBuffer{max: 10}
	for i := 0; i < 5; i++ {
		if n, err := p.Write([]byte("0123456")); n != 7 || err != nil {
			t.Fatalf("write: %d, %v; want all taken", n, err)
		}
	}
	if string(p.Bytes()) != "0123456012" || p.dropped != 25 {
		t.Errorf("kept %q, dropped %d; want 10 bytes, 25 dropped", p.Bytes(), p.dropped)
	}
}

// Root runs QEMU as the user sudo ran xdpmicro for, else as nobody, with
// no supplementary group; another user, as it is.
func TestCredential(t *testing.T) {
	if os.Geteuid() != 0 {
		if c := credential(TCG); c != nil {
			t.Errorf("not root: %+v; want nil", c)
		}
		t.Skip("not root: the drop to another user is root's")
	}
	for _, tc := range []struct {
		uid, gid string
		want     [2]uint32
	}{
		{"1000", "1001", [2]uint32{1000, 1001}},
		{"1000", "", [2]uint32{1000, nobody}},
		{"0", "0", [2]uint32{nobody, nobody}},
		{"", "", [2]uint32{nobody, nobody}},
		{"x", "", [2]uint32{nobody, nobody}},
	} {
		t.Setenv("SUDO_UID", tc.uid)
		t.Setenv("SUDO_GID", tc.gid)
		c := credential(TCG)
		if c == nil || c.Uid != tc.want[0] || c.Gid != tc.want[1] || len(c.Groups) != 0 {
			t.Errorf("SUDO_UID %q, SUDO_GID %q: %+v; want uid %d, gid %d, no groups", tc.uid, tc.gid, c, tc.want[0], tc.want[1])
		}
	}
}

// A MemFile reads back through /proc/self/fd, as QEMU opens it, and
// cannot be written once sealed.
func TestMemFile(t *testing.T) {
	f, err := MemFile("test", func(w io.Writer) error { _, err := io.WriteString(w, "kernel"); return err })
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := os.ReadFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil || string(data) != "kernel" {
		t.Errorf("read back %q, %v", data, err)
	}
	rw, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), os.O_RDWR, 0)
	if err == nil {
		_, err = rw.WriteAt([]byte("x"), 0)
		rw.Close()
	}
	if err == nil {
		t.Error("a sealed MemFile was written")
	}
}

// bench's reply as an array is bounded before it is decoded: each item
// is a copy, and 16 MiB of "1," would have made 8 M of them.
func TestDecodeReportsBounds(t *testing.T) {
	data := []byte("[" + strings.Repeat("1,", 4<<20) + "1]")
	if _, err := decodeReports(data); err == nil || !strings.Contains(err.Error(), "too large to decode") {
		t.Errorf("4 M items: %v, want too large to decode", err)
	}
}
