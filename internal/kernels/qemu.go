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
	consoleR, consoleW, err := os.Pipe()
	if err != nil {
		return BootOutcome{Err: fmt.Errorf("the console's pipe: %w", err)}
	}
	defer consoleR.Close()
	portR, portW, err := os.Pipe()
	if err != nil {
		consoleW.Close()
		return BootOutcome{Err: fmt.Errorf("the port's pipe: %w", err)}
	}
	defer portR.Close()
	cmd := exec.Command(m.QEMU, m.Args(HasSandbox(m.QEMU))...)
	cmd.Dir = "/" // none of xdpmicro's: QEMU needs no directory
	cmd.ExtraFiles = []*os.File{consoleW, portW, m.Kernel, m.Initrd}
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	// Its own process group: a Ctrl-C reaches xdpmicro, which stops QEMU
	// itself; the kernel kills it should xdpmicro die first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: credential(m.Accel)}
	start := time.Now()
	err = cmd.Start()
	consoleW.Close() // QEMU's copies are the pipes' only writers: their end is QEMU's
	portW.Close()
	if err != nil {
		return BootOutcome{Err: fmt.Errorf("start %s: %w", m.QEMU, err)}
	}
	con := newConsole(start)
	port := &portBuffer{max: len(ResultPrefix) + MaxResult + len("\r\n")}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer crash.Guard()
		defer readers.Done()
		_, _ = io.Copy(con, consoleR)
		con.close()
	}()
	go func() {
		defer crash.Guard()
		defer readers.Done()
		_, _ = io.Copy(port, portR)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	out := BootOutcome{}
	var waitErr error
	done := false
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for !done {
		select {
		case waitErr = <-exited:
			done = true
			continue
		case <-ctx.Done():
			out.Err = ctx.Err()
		case <-tick.C:
		}
		up := con.Up()
		switch since := time.Since(start); {
		case out.Err != nil:
		case kvmFailure.MatchString(stderr.String()):
			out.Err = fmt.Errorf("%w: %s", ErrKVM, firstMatch(stderr.String()))
		case up == 0 && since > m.Boot:
			out.Err = fmt.Errorf("%w within %s", ErrNoBoot, m.Boot)
			if m.Accel == KVM {
				out.Err = fmt.Errorf("%w: %w", ErrKVM, out.Err)
			}
		case up > 0 && since > up+m.Run:
			out.Err = fmt.Errorf("%w: no result %s after boot", ErrTimeout, m.Run)
		}
		if out.Err != nil {
			_ = cmd.Process.Kill()
			waitErr = <-exited
			done = true
		}
	}
	out.Wall = time.Since(start)
	// QEMU is gone, and with it the pipes' writers: the readers end at
	// once, unless a process QEMU left holds them (it may start none).
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drain):
		consoleR.Close()
		portR.Close()
		<-drained
	}
	out.Up, out.Console = con.Up(), con.Tail()
	if out.Err != nil {
		return out
	}
	res, err := DecodeResult(port.Bytes())
	if err == nil {
		out.Result = res
		return out
	}
	switch panicked := con.Panic(); {
	case !errors.Is(err, errNoResultLine):
		out.Err = fmt.Errorf("%w: %w", ErrBadResult, err)
	case panicked != "":
		out.Err = fmt.Errorf("%w: %s", ErrPanic, panicked)
	case out.Up == 0:
		out.Err = fmt.Errorf("%w: %s", ErrNoBoot, qemuSays(stderr.String(), waitErr))
	default:
		out.Err = fmt.Errorf("%w: %s", ErrNoData, qemuSays(stderr.String(), waitErr))
	}
	return out
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
