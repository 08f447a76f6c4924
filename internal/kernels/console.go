package kernels

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
)

// What is kept of what a guest writes: the guest is whatever kernel was
// given, so each is bounded as it arrives, never read whole.
const (
	// ConsoleTail is how many of the console's last lines an outcome
	// keeps.
	ConsoleTail = 15
	// MaxConsoleLine is the bytes of one console line kept; the rest of
	// the line is counted and cut, and the line says so.
	MaxConsoleLine = 1024
)

// console reads the guest's console as QEMU writes it: it keeps the
// last ConsoleTail lines, each cut at MaxConsoleLine bytes, and notes
// when the guest said UpLine and the first "Kernel panic" line. It
// holds at most a few tens of KiB, whatever the guest writes.
type console struct {
	start time.Time

	mu      sync.Mutex
	tail    []string
	partial []byte // the line being written, at most MaxConsoleLine bytes
	cut     int64  // bytes of it dropped
	up      time.Duration
	panic   string
}

func newConsole(start time.Time) *console { return &console{start: start} }

// Write takes what QEMU wrote, line by line.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		room := MaxConsoleLine - len(c.partial)
		if len(chunk) > room {
			c.cut += int64(len(chunk) - room)
			chunk = chunk[:room]
		}
		c.partial = append(c.partial, chunk...)
		if i < 0 {
			break
		}
		c.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// endLine keeps the line written so far.
func (c *console) endLine() {
	raw := string(c.partial)
	if c.up == 0 && strings.Contains(raw, UpLine) {
		c.up = time.Since(c.start)
	}
	line := printable(raw)
	if c.cut > 0 {
		line += fmt.Sprintf(" …[%d bytes cut]", c.cut)
	}
	if c.panic == "" {
		if i := strings.Index(line, "Kernel panic"); i >= 0 {
			c.panic = strings.TrimSpace(line[i:])
		}
	}
	if strings.TrimSpace(line) != "" {
		c.tail = append(c.tail, line)
		if len(c.tail) > ConsoleTail {
			c.tail = c.tail[len(c.tail)-ConsoleTail:]
		}
	}
	c.partial, c.cut = c.partial[:0], 0
}

// close keeps a last line the guest did not end.
func (c *console) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.partial) > 0 || c.cut > 0 {
		c.endLine()
	}
}

// Up is the time from QEMU's start to the guest's UpLine, zero before.
func (c *console) Up() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up
}

// Panic is the kernel's "Kernel panic - not syncing: ..." line, "" if
// none came.
func (c *console) Panic() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.panic
}

// Tail is the last lines.
func (c *console) Tail() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.tail...)
}

// ansi matches the terminal escapes a console may hold.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// printable is a line as a terminal may show it: escapes, control
// characters (C1 too) and invalid UTF-8 gone, a progress bar's last
// redraw kept (it redraws its line after a carriage return), blanks at
// the end trimmed.
func printable(line string) string {
	line = ansi.ReplaceAllString(strings.ToValidUTF8(line, "\uFFFD"), "")
	line = strings.TrimRight(line, "\r \t")
	if i := strings.LastIndex(line, "\r"); i >= 0 {
		line = line[i+1:]
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\t' {
			return -1
		}
		return r
	}, line)
}

// Printable is a line a guest sent, as a terminal may show it, cut at
// max bytes and saying so.
func Printable(line string, max int) string {
	if len(line) <= max {
		return printable(line)
	}
	keep := max
	for keep > 0 && line[keep]&0xc0 == 0x80 { // not inside a character
		keep--
	}
	return printable(line[:keep]) + fmt.Sprintf(" …[%d bytes cut]", len(line)-keep)
}
