package kernels

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/internal/crash"
)

// QEMUName is the emulator xdpmicro boots kernels with.
const QEMUName = "qemu-system-x86_64"

// ErrNoQEMU is returned where QEMU is not installed.
var ErrNoQEMU = badinput.New(QEMUName + " not found: install QEMU (Debian, Ubuntu: apt-get install qemu-system-x86; Fedora: dnf install qemu-system-x86-core; Arch: pacman -S qemu-system-x86)")

// FindQEMU is the path of qemu-system-x86_64 on PATH.
func FindQEMU() (string, error) {
	p, err := exec.LookPath(QEMUName)
	if err != nil {
		return "", ErrNoQEMU
	}
	return p, nil
}

// Accel is how QEMU runs the guest's code.
type Accel string

// The accelerators: KVM runs it on the host's CPU, so its times are real;
// TCG translates it, so its times are not.
const (
	KVM Accel = "kvm"
	TCG Accel = "tcg"
)

// KVMUsable says whether /dev/kvm can be opened, by xdpmicro and by the
// user QEMU runs as, and if not why.
func KVMUsable() (bool, string) {
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return false, "/dev/kvm: " + strings.TrimPrefix(err.Error(), "open /dev/kvm: ")
	}
	f.Close()
	return kvmOpenTo(credential(KVM))
}

// Machine is one boot of a kernel with an initramfs.
type Machine struct {
	QEMU string
	// Kernel and Initrd are the kernel image and the initramfs, open
	// (MemFile): QEMU is handed them, and reads them by descriptor.
	Kernel, Initrd *os.File
	Accel          Accel
	MemoryMiB      int
	VCPUs          int
	// Cmdline is added to the kernel's command line: the guest's
	// environment (LD_LIBRARY_PATH=...), as key=value.
	Cmdline []string
	// Boot is how long the guest may take to reach its /init; Run how
	// long the command may take after.
	Boot, Run time.Duration
}

// BootOutcome is what one boot gave.
type BootOutcome struct {
	// Result is the command's, nil where none came back, and Err says why.
	Result *Result
	Err    error
	// Up is the time from starting QEMU to the guest's /init; zero where
	// it never ran.
	Up   time.Duration
	Wall time.Duration
	// Console is the tail of the guest's console, ConsoleTail lines at
	// most, each cut at MaxConsoleLine bytes.
	Console []string
}

// Failures of a boot, each with the console's tail in BootOutcome.
var (
	ErrNoBoot  = errors.New("did not boot")
	ErrTimeout = errors.New("timed out")
	ErrPanic   = errors.New("kernel panic")
	// ErrKVM is a KVM that cannot run this kernel: QEMU stopped the guest
	// with an internal error, or it never reached /init.
	ErrKVM    = errors.New("KVM failed")
	ErrNoData = errors.New("no result")
	// ErrBadResult is a result line that is not one: cut short, too
	// large, not base64, gzip or JSON. The guest failed, as a kernel that
	// panics does: it is a failed run, not the user's bad input.
	ErrBadResult = errors.New("bad result")
)

// kvmFailure is what QEMU says when KVM cannot go on with a guest; it
// then pauses the guest and waits, so it is watched for.
var kvmFailure = regexp.MustCompile(`(?i)KVM internal error|emulation failure|kvm run failed|failed to initialize kvm`)

// poll is how often the deadlines and QEMU's stderr are looked at.
const poll = 50 * time.Millisecond

// drain bounds the wait, after QEMU exits, for the last of what it wrote.
const drain = 2 * time.Second

// The descriptors QEMU is given (exec.Cmd.ExtraFiles, from 3): the
// write ends of the console's and the port's pipes, the kernel, the
// initramfs.
const (
	consoleFD = 3 + iota
	portFD
	kernelFD
	initrdFD
)

// Args are QEMU's arguments for the machine: no devices but two serial
// ports, each into a pipe xdpmicro reads (QEMU's fd sets: -add-fd, and
// /dev/fdset/N as the path); the kernel and the initramfs read from the
// descriptors it was given; no display, monitor or network; with
// sandbox, its seccomp filter.
func (m Machine) Args(sandbox bool) []string {
	cpu := "max" // TCG: every feature it can emulate, as a new CPU has
	accel := string(m.Accel)
	if m.Accel == KVM {
		cpu = "host"
	}
	cmdline := append([]string{"console=ttyS0", "panic=-1", "quiet", AccelVar + "=" + accel}, m.Cmdline...)
	args := []string{
		"-nodefaults", "-no-user-config", "-display", "none", "-monitor", "none",
		"-no-reboot", "-accel", accel, "-cpu", cpu,
		"-m", strconv.Itoa(m.MemoryMiB), "-smp", strconv.Itoa(m.VCPUs),
		"-add-fd", fmt.Sprintf("fd=%d,set=1", consoleFD), "-add-fd", fmt.Sprintf("fd=%d,set=2", portFD),
		// append: QEMU truncates a file it opens otherwise, and a pipe cannot be
		"-chardev", "file,id=console,path=/dev/fdset/1,append=on", "-chardev", "file,id=port,path=/dev/fdset/2,append=on",
		"-serial", "chardev:console", "-serial", "chardev:port",
		"-kernel", fmt.Sprintf("/proc/self/fd/%d", kernelFD), "-initrd", fmt.Sprintf("/proc/self/fd/%d", initrdFD),
		"-append", strings.Join(cmdline, " "),
	}
	if sandbox {
		args = append(args, SandboxArgs...)
	}
	return args
}

// Start runs the machine until the command's result is back, the guest
// fails, a deadline passes or ctx is done; QEMU is gone when it returns.
// QEMU runs as another user than root where xdpmicro is root
// (credential), under its seccomp filter where it has one.
func (m Machine) Start(ctx context.Context) BootOutcome {
	// The kernel sends QEMU its Pdeathsig when the thread that started it
	// ends, not only the process: this goroutine keeps its thread until
	// QEMU is gone, so that no other goroutine, locking it and ending,
	// takes QEMU with it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	q, err := m.startQEMU()
	if err != nil {
		return BootOutcome{Err: err}
	}
	defer q.consoleR.Close()
	defer q.portR.Close()
	out := BootOutcome{}
	var exit error
	out.Err, exit = q.watch(ctx, m)
	out.Wall = time.Since(q.start)
	q.drain()
	out.Up, out.Console = q.con.Up(), q.con.Tail()
	if out.Err != nil {
		return out
	}
	out.Result, out.Err = q.result(out.Up, exit)
	return out
}

// qemuRun is a QEMU started on a machine: the read ends of its console's
// and port's pipes and what was read from them, its stderr, its exit.
type qemuRun struct {
	cmd             *exec.Cmd
	start           time.Time
	consoleR, portR *os.File
	con             *console
	port            *portBuffer
	stderr          lockedBuffer
	readers         sync.WaitGroup
	exited          chan error
}

// startQEMU starts QEMU on the machine, its console and result port each
// into a pipe read here: the pipes' write ends are QEMU's alone once it
// runs, so that they end with it.
func (m Machine) startQEMU() (*qemuRun, error) {
	consoleR, consoleW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("the console's pipe: %w", err)
	}
	portR, portW, err := os.Pipe()
	if err != nil {
		consoleR.Close()
		consoleW.Close()
		return nil, fmt.Errorf("the port's pipe: %w", err)
	}
	q := &qemuRun{consoleR: consoleR, portR: portR, exited: make(chan error, 1)}
	q.cmd = exec.Command(m.QEMU, m.Args(HasSandbox(m.QEMU))...)
	q.cmd.Dir = "/" // none of xdpmicro's: QEMU needs no directory
	q.cmd.ExtraFiles = []*os.File{consoleW, portW, m.Kernel, m.Initrd}
	q.cmd.Stdout, q.cmd.Stderr = &q.stderr, &q.stderr
	// Its own process group: a Ctrl-C reaches xdpmicro, which stops QEMU
	// itself; the kernel kills it should xdpmicro die first.
	q.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: credential(m.Accel)}
	q.start = time.Now()
	err = q.cmd.Start()
	consoleW.Close() // QEMU's copies are the pipes' only writers: their end is QEMU's
	portW.Close()
	if err != nil {
		consoleR.Close()
		portR.Close()
		return nil, fmt.Errorf("start %s: %w", m.QEMU, err)
	}
	q.con = newConsole(q.start)
	q.port = &portBuffer{max: len(ResultPrefix) + MaxResult + len("\r\n")}
	q.read()
	go func() { q.exited <- q.cmd.Wait() }()
	return q, nil
}

// read copies the console and the port from their pipes, each in its
// own goroutine, until QEMU's ends close.
func (q *qemuRun) read() {
	q.readers.Add(2)
	go func() {
		defer crash.Guard()
		defer q.readers.Done()
		_, _ = io.Copy(q.con, q.consoleR)
		q.con.close()
	}()
	go func() {
		defer crash.Guard()
		defer q.readers.Done()
		_, _ = io.Copy(q.port, q.portR)
	}()
}

// watch waits for QEMU to exit and returns how it exited; on the first
// failure seen before (ctx done, or failure's), it kills QEMU and
// returns that failure too.
func (q *qemuRun) watch(ctx context.Context, m Machine) (failed, exit error) {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case exit = <-q.exited:
			return nil, exit
		case <-ctx.Done():
			failed = ctx.Err()
		case <-tick.C:
			failed = q.failure(m)
		}
		if failed != nil {
			_ = q.cmd.Process.Kill()
			return failed, <-q.exited
		}
	}
}

// failure is why the guest has failed so far, or nil: KVM cannot run it
// (QEMU pauses the guest then, and waits), it did not reach /init within
// m.Boot, or it sent no result m.Run after.
func (q *qemuRun) failure(m Machine) error {
	up := q.con.Up()
	switch since := time.Since(q.start); {
	case kvmFailure.MatchString(q.stderr.String()):
		return fmt.Errorf("%w: %s", ErrKVM, firstMatch(q.stderr.String()))
	case up == 0 && since > m.Boot:
		err := fmt.Errorf("%w within %s", ErrNoBoot, m.Boot)
		if m.Accel == KVM {
			return fmt.Errorf("%w: %w", ErrKVM, err)
		}
		return err
	case up > 0 && since > up+m.Run:
		return fmt.Errorf("%w: no result %s after boot", ErrTimeout, m.Run)
	}
	return nil
}

// drain waits for the readers once QEMU is gone, and with it the pipes'
// writers: they end at once, unless a process QEMU left holds the pipes
// (it may start none); then, after drain, the pipes are closed under them.
func (q *qemuRun) drain() {
	drained := make(chan struct{})
	go func() { q.readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drain):
		q.consoleR.Close()
		q.portR.Close()
		<-drained
	}
}

// result is the command's result from the port, or why there is none: a
// line that is not a result, the kernel's panic, no boot (up is zero), or
// no result where QEMU exited of itself.
func (q *qemuRun) result(up time.Duration, exit error) (*Result, error) {
	res, err := DecodeResult(q.port.Bytes())
	if err == nil {
		return res, nil
	}
	switch panicked := q.con.Panic(); {
	case !errors.Is(err, errNoResultLine):
		return nil, fmt.Errorf("%w: %w", ErrBadResult, err)
	case panicked != "":
		return nil, fmt.Errorf("%w: %s", ErrPanic, panicked)
	case up == 0:
		return nil, fmt.Errorf("%w: %s", ErrNoBoot, qemuSays(q.stderr.String(), exit))
	default:
		return nil, fmt.Errorf("%w: %s", ErrNoData, qemuSays(q.stderr.String(), exit))
	}
}

// portBuffer keeps what the guest sends on the result port, up to max
// bytes; the rest is counted and dropped, so that QEMU never waits on
// xdpmicro, nor xdpmicro's memory on the guest.
type portBuffer struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped int64
}

func (p *portBuffer) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := min(len(b), p.max-len(p.buf))
	p.buf = append(p.buf, b[:keep]...)
	p.dropped += int64(len(b) - keep)
	return len(b), nil
}

// Bytes is what was kept.
func (p *portBuffer) Bytes() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf
}

// qemuSays is why QEMU exited: its first error, else its exit status.
func qemuSays(stderr string, exit error) string {
	status := "status 0"
	if exit != nil {
		status = exit.Error()
	}
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), QEMUName+": ")
		if msg, ok := strings.CutPrefix(line, "error: "); ok {
			return "QEMU: " + msg + " (" + status + ")"
		}
		if line != "" && !strings.HasPrefix(line, "warning: ") {
			return "QEMU: " + line + " (" + status + ")"
		}
	}
	return "QEMU exited, " + status
}

func firstMatch(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if kvmFailure.MatchString(line) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// lockedBuffer is QEMU's output, written by exec's copier, read by the
// watch.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 1<<20 {
		return len(p), nil // enough to say what went wrong
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
