package socklock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// ErrHeld is returned by Try when another socket holds the name.
var ErrHeld = errors.New("held by another process")

// recheck is how often Wait looks again at a lock it cannot wait on
// (bound but not listening, or its queue full), and how often at most it
// looks at one whose holder answers instead of holding.
const recheck = 50 * time.Millisecond

// Lock is a lock held: its name, bound and listening.
type Lock struct {
	name string
	ln   *net.UnixListener
}

// Address is how the lock of name appears in ss -xl and /proc/net/unix:
// "@" and the name.
func Address(name string) string { return "@" + name }

// addr is the socket address of name: Go reads a leading @ as abstract.
func addr(name string) *net.UnixAddr { return &net.UnixAddr{Name: Address(name), Net: "unix"} }

// Try takes the lock of name if it is free. Held by another socket, it
// returns ErrHeld; any other error means no such lock can be had here (a
// security module refusing the socket, a name too long).
func Try(name string) (*Lock, error) {
	ln, err := net.ListenUnix("unix", addr(name))
	if errors.Is(err, unix.EADDRINUSE) {
		return nil, fmt.Errorf("%s: %w", Address(name), ErrHeld)
	}
	if err != nil {
		// The bind's or listen's own error: the rest repeats the name.
		var sys *os.SyscallError
		if errors.As(err, &sys) {
			err = sys
		}
		return nil, fmt.Errorf("lock %s: %w", Address(name), err)
	}
	// Connections are never accepted: a waiter's stays queued until the
	// lock is released, which resets it (Wait). The queue is bounded
	// (net.core.somaxconn), so a flood of connections costs nothing held.
	return &Lock{name: name, ln: ln}, nil
}

// Name is the lock's name, without the @.
func (l *Lock) Name() string { return l.name }

// Release gives the lock up. A nil lock is a no-op.
func (l *Lock) Release() {
	if l != nil {
		_ = l.ln.Close()
	}
}

// Holder returns the pid of the process holding the lock of name, as the
// kernel recorded it when that process took it; 0 when the lock is free,
// its holder takes no connections, or its pid is not visible from this
// pid namespace.
func Holder(name string) int {
	c, err := net.DialUnix("unix", nil, addr(name))
	if err != nil {
		return 0
	}
	defer c.Close()
	return peerPID(c)
}

// peerPID is the pid of the process that bound the other end of c.
func peerPID(c *net.UnixConn) int {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	_ = raw.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}

// Wait takes the lock of name, waiting while another process holds it,
// until ctx is done. It waits on a connection to the holder, which the
// kernel resets when the holder lets go: no polling, and no thread held
// while it waits.
func Wait(ctx context.Context, name string) (*Lock, error) {
	for {
		l, err := Try(name)
		if !errors.Is(err, ErrHeld) {
			return l, err
		}
		if err := waitRelease(ctx, name); err != nil {
			return nil, err
		}
	}
}

// waitRelease returns when the holder of name may have let it go, or
// with ctx's error when ctx is done first.
func waitRelease(ctx context.Context, name string) error {
	start := time.Now()
	if c, err := net.DialUnix("unix", nil, addr(name)); err == nil {
		stop := context.AfterFunc(ctx, func() { _ = c.SetReadDeadline(time.Unix(1, 0)) })
		// An xdpmicro holder never writes nor accepts: the read ends when
		// the kernel resets the connection, at the lock's release.
		_, _ = c.Read(make([]byte, 1))
		stop()
		c.Close()
	}
	// Also here when the dial failed (the lock freed meanwhile, a name
	// bound by something that does not listen, a full queue) or a holder
	// that is not xdpmicro answered at once: look again, but never more
	// often than every recheck.
	t := time.NewTimer(max(recheck-time.Since(start), 0))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
