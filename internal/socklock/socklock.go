package socklock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The sockets are plain file descriptors, driven by raw system calls,
// not the net package's: a lock is held by the process that measures,
// and net would start Go's network poller (an epoll thread, and wake-ups
// through it) in that process for a socket that never carries a byte.

// ErrHeld is returned by Try when another socket holds the name.
var ErrHeld = errors.New("held by another process")

// recheck is how often Wait looks again at a lock it cannot wait on
// (bound but not listening, or its queue full), and how often at most it
// looks at one whose holder answers instead of holding.
const recheck = 50 * time.Millisecond

// backlog is the most connections a lock queues: one per waiting
// process, never accepted. The kernel caps it at net.core.somaxconn.
const backlog = 4096

// Lock is a lock held: its name, bound and listening.
type Lock struct {
	name string
	once sync.Once
	fd   int
}

// Address is how the lock of name appears in ss -xl and /proc/net/unix:
// "@" and the name.
func Address(name string) string { return "@" + name }

// sockaddr is the abstract socket address of name: a leading @ is a
// leading NUL to the kernel.
func sockaddr(name string) *unix.SockaddrUnix { return &unix.SockaddrUnix{Name: Address(name)} }

// socket is a new unix stream socket, closed on exec so that no child
// holds a lock.
func socket(flags int) (int, error) {
	return unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|flags, 0)
}

// Try takes the lock of name if it is free. Held by another socket, it
// returns ErrHeld; any other error means no such lock can be had here (a
// security module refusing the socket, a name too long).
func Try(name string) (*Lock, error) {
	fd, err := socket(0)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", Address(name), os.NewSyscallError("socket", err))
	}
	err = unix.Bind(fd, sockaddr(name))
	if errors.Is(err, unix.EADDRINUSE) {
		unix.Close(fd)
		return nil, fmt.Errorf("%s: %w", Address(name), ErrHeld)
	}
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("lock %s: %w", Address(name), os.NewSyscallError("bind", err))
	}
	// Connections are never accepted: a waiter's stays queued until the
	// lock is released, which resets it (Wait). The queue is bounded, so
	// a flood of connections costs nothing held.
	if err := unix.Listen(fd, backlog); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("lock %s: %w", Address(name), os.NewSyscallError("listen", err))
	}
	return &Lock{name: name, fd: fd}, nil
}

// Release gives the lock up; again, or on a nil lock, it does nothing.
func (l *Lock) Release() {
	if l != nil {
		l.once.Do(func() { unix.Close(l.fd) })
	}
}

// connect opens a connection to the holder of name, without waiting for
// room in its queue (EAGAIN when full).
func connect(name string) (int, error) {
	fd, err := socket(unix.SOCK_NONBLOCK)
	if err != nil {
		return -1, err
	}
	if err := unix.Connect(fd, sockaddr(name)); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// Holder returns the pid of the process holding the lock of name, as the
// kernel recorded it when that process took it; 0 when the lock is free,
// its holder takes no connections, or its pid is not visible from this
// pid namespace.
func Holder(name string) int {
	fd, err := connect(name)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0
	}
	return int(cred.Pid)
}

// Peer is the process holding a lock: its pid (0 where not visible from
// this pid namespace) and the uid it held it as.
type Peer struct {
	Pid, Uid int
}

// HolderOf returns who holds the lock of name: the kernel's record of
// the process that took it (SO_PEERCRED) where it takes connections, as
// every xdpmicro run does; else, for a socket bound and not listening,
// the process with that socket open, found through /proc/net/unix and
// /proc/PID/fd (every process's only as root). ok is false when the lock
// is free or its holder cannot be found.
func HolderOf(name string) (Peer, bool) {
	if fd, err := connect(name); err == nil {
		defer unix.Close(fd)
		if cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			return Peer{Pid: int(cred.Pid), Uid: int(cred.Uid)}, true
		}
	}
	return boundBy(Address(name))
}

// boundBy finds the process that has the unix socket bound at address
// open: the socket's inode from /proc/net/unix, then the first process
// with a descriptor of it.
func boundBy(address string) (Peer, bool) {
	table, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return Peer{}, false
	}
	var inodes []string
	for _, line := range strings.Split(string(table), "\n")[1:] {
		// Num RefCount Protocol Flags Type St Inode Path
		if f := strings.Fields(line); len(f) == 8 && f[7] == address {
			inodes = append(inodes, "socket:["+f[6]+"]")
		}
	}
	if len(inodes) == 0 {
		return Peer{}, false
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return Peer{}, false
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir("/proc/" + p.Name() + "/fd")
		if err != nil {
			continue // another user's, where this process is not root
		}
		for _, fd := range fds {
			if link, err := os.Readlink("/proc/" + p.Name() + "/fd/" + fd.Name()); err == nil && slices.Contains(inodes, link) {
				var st unix.Stat_t
				if unix.Stat("/proc/"+p.Name(), &st) != nil {
					return Peer{}, false
				}
				return Peer{Pid: pid, Uid: int(st.Uid)}, true
			}
		}
	}
	return Peer{}, false
}

// Wait takes the lock of name, waiting while another process holds it,
// until ctx is done. It waits on a connection to the holder, which the
// kernel resets when the holder lets go: no trying again and again
// while an xdpmicro run holds it. The wait blocks a thread, as any blocking system call.
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
	if fd, err := connect(name); err == nil {
		waitHangUp(ctx, fd)
	}
	// Also here when the connection failed (the lock freed meanwhile, a
	// name bound by something that does not listen, a full queue) or a
	// holder that is not xdpmicro answered at once: look again, but
	// never more often than every recheck.
	t := time.NewTimer(max(recheck-time.Since(start), 0))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// waitHangUp blocks until the connection fd is reset (the holder let go
// of the lock), answered, or ctx is done, and closes fd. An xdpmicro
// holder never writes nor accepts: the reset is what ends the wait.
func waitHangUp(ctx context.Context, fd int) {
	var mu sync.Mutex
	closed := false
	// Shutting the connection down wakes the poll below; it must not
	// touch fd once closed, when the number may be another file's.
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !closed {
			_ = unix.Shutdown(fd, unix.SHUT_RDWR)
		}
	})
	defer func() {
		stop()
		mu.Lock()
		closed = true
		unix.Close(fd)
		mu.Unlock()
	}()
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); !errors.Is(err, unix.EINTR) {
			return
		}
	}
}
