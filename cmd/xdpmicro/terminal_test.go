package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// terminal is a pseudo-terminal that a child process's stderr is on, as
// a person's would be: xdpmicro draws its progress there, so that what it
// shows tells where the run is.
type terminal struct {
	master *os.File
	mu     sync.Mutex
	shown  bytes.Buffer
	more   chan struct{} // a read added to shown
	closed chan struct{} // the child's end is closed: shown is complete
}

// startOnTerminal starts cmd with its stderr on a new pseudo-terminal of
// 200 columns; it skips where there is none. The child is killed at the
// end of the test if it still runs.
func startOnTerminal(t *testing.T, cmd *exec.Cmd) *terminal {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("the pseudo-terminal's number: %v", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: 200}); err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = slave
	err = cmd.Start()
	slave.Close() // the child's now: its exit closes the terminal
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	term := &terminal{master: master, more: make(chan struct{}, 1), closed: make(chan struct{})}
	go term.read()
	return term
}

// read keeps what the terminal shows until the child's end is closed.
func (term *terminal) read() {
	defer close(term.closed)
	buf := make([]byte, 4096)
	for {
		n, err := term.master.Read(buf)
		term.mu.Lock()
		term.shown.Write(buf[:n])
		term.mu.Unlock()
		select {
		case term.more <- struct{}{}:
		default:
		}
		if err != nil { // EIO once the child's end is closed
			return
		}
	}
}

// String is all the terminal has shown so far.
func (term *terminal) String() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.shown.String()
}

// waitFor waits until the terminal shows what matches re, and fails the
// test if it does not within timeout, or the child's end closes first.
func (term *terminal) waitFor(t *testing.T, re *regexp.Regexp, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for !re.MatchString(term.String()) {
		select {
		case <-term.more:
		case <-term.closed:
			if re.MatchString(term.String()) {
				return
			}
			t.Fatalf("the child's stderr closed before it showed %q:\n%q", re, term.String())
		case <-deadline:
			t.Fatalf("the child did not show %q within %v:\n%q", re, timeout, term.String())
		}
	}
}

// output is all the terminal showed, once the child's end is closed.
func (term *terminal) output(t *testing.T) string {
	t.Helper()
	select {
	case <-term.closed:
	case <-time.After(10 * time.Second):
		t.Errorf("the child's stderr still open 10 s after it exited")
	}
	return term.String()
}
