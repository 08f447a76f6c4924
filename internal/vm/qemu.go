package vm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
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

// KVMUsable says whether /dev/kvm can be opened, and if not why.
func KVMUsable() (bool, string) {
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return false, "/dev/kvm: " + strings.TrimPrefix(err.Error(), "open /dev/kvm: ")
	}
	f.Close()
	return true, ""
}

// Machine is one boot of a kernel with an initramfs.
type Machine struct {
	QEMU      string
	Kernel    string
	Initrd    string
	Accel     Accel
	MemoryMiB int
	VCPUs     int
	// Cmdline is added to the kernel's command line: the guest's
	// environment (LD_LIBRARY_PATH=...), as key=value.
	Cmdline []string
	// Dir is a private directory for the console's and the port's files.
	Dir string
	// Boot is how long the guest may take to reach its /init; Run how
	// long the command may take after.
	Boot, Run time.Duration
}

// Outcome is what one boot gave.
type Outcome struct {
	// Result is the command's, nil where none came back, and Err says why.
	Result *Result
	Err    error
	// Up is the time from starting QEMU to the guest's /init; zero where
	// it never ran.
	Up   time.Duration
	Wall time.Duration
	// Console is the tail of the guest's console.
	Console []string
}

// Failures of a boot, each with the console's tail in Outcome.
var (
	ErrNoBoot  = errors.New("did not boot")
	ErrTimeout = errors.New("timed out")
	ErrPanic   = errors.New("kernel panic")
	// ErrKVM is a KVM that cannot run this kernel: QEMU stopped the guest
	// with an internal error, or it never reached /init.
	ErrKVM    = errors.New("KVM failed")
	ErrNoData = errors.New("no result")
)

// kvmFailure is what QEMU says when KVM cannot go on with a guest; it
// then pauses the guest and waits, so it is watched for.
var kvmFailure = regexp.MustCompile(`(?i)KVM internal error|emulation failure|kvm run failed|failed to initialize kvm`)

// poll is how often the console is read while waiting.
const poll = 50 * time.Millisecond

// ConsoleTail is how many of the console's last lines an outcome keeps.
const ConsoleTail = 15

// Args are QEMU's arguments for the machine: no devices but two serial
// ports, each into a file; no display, monitor or network.
func (m Machine) Args(console, port string) []string {
	cpu := "max" // TCG: every feature it can emulate, as a new CPU has
	accel := string(m.Accel)
	if m.Accel == KVM {
		cpu = "host"
	}
	cmdline := append([]string{"console=ttyS0", "panic=-1", "quiet", AccelVar + "=" + accel}, m.Cmdline...)
	return []string{
		"-nodefaults", "-no-user-config", "-display", "none", "-monitor", "none",
		"-no-reboot", "-accel", accel, "-cpu", cpu,
		"-m", strconv.Itoa(m.MemoryMiB), "-smp", strconv.Itoa(m.VCPUs),
		"-serial", "file:" + console, "-serial", "file:" + port,
		"-kernel", m.Kernel, "-initrd", m.Initrd,
		"-append", strings.Join(cmdline, " "),
	}
}

// Start runs the machine until the command's result is back, the guest
// fails, a deadline passes or ctx is done; QEMU is gone when it returns.
func (m Machine) Start(ctx context.Context) Outcome {
	id := strconv.FormatInt(time.Now().UnixNano(), 36)
	console := filepath.Join(m.Dir, "console-"+id)
	port := filepath.Join(m.Dir, "port-"+id)
	cmd := exec.Command(m.QEMU, m.Args(console, port)...)
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	// Its own process group: a Ctrl-C reaches xdpmicro, which stops QEMU
	// itself; the kernel kills it should xdpmicro die first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Outcome{Err: fmt.Errorf("start %s: %w", m.QEMU, err)}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	out := Outcome{}
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
		text, _ := os.ReadFile(console)
		if out.Up == 0 && bytes.Contains(text, []byte(UpLine)) {
			out.Up = time.Since(start)
		}
		switch since := time.Since(start); {
		case out.Err != nil:
		case kvmFailure.MatchString(stderr.String()):
			out.Err = fmt.Errorf("%w: %s", ErrKVM, firstMatch(stderr.String()))
		case out.Up == 0 && since > m.Boot:
			out.Err = fmt.Errorf("%w within %s", ErrNoBoot, m.Boot)
			if m.Accel == KVM {
				out.Err = fmt.Errorf("%w: %w", ErrKVM, out.Err)
			}
		case out.Up > 0 && since > out.Up+m.Run:
			out.Err = fmt.Errorf("%w: no result %s after boot", ErrTimeout, m.Run)
		}
		if out.Err != nil {
			_ = cmd.Process.Kill()
			waitErr = <-exited
			done = true
		}
	}
	out.Wall = time.Since(start)
	text, _ := os.ReadFile(console)
	out.Console = tailLines(string(text), ConsoleTail)
	if out.Err != nil {
		return out
	}
	data, _ := os.ReadFile(port)
	if res, ok := DecodeResult(data); ok {
		out.Result = res
		return out
	}
	switch {
	case bytes.Contains(text, []byte("Kernel panic")):
		out.Err = fmt.Errorf("%w: %s", ErrPanic, panicLine(string(text)))
	case out.Up == 0:
		out.Err = fmt.Errorf("%w: %s", ErrNoBoot, qemuSays(stderr.String(), waitErr))
	default:
		out.Err = fmt.Errorf("%w: %s", ErrNoData, qemuSays(stderr.String(), waitErr))
	}
	return out
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

// panicLine is the kernel's "Kernel panic - not syncing: ..." line.
func panicLine(console string) string {
	for _, line := range strings.Split(console, "\n") {
		if i := strings.Index(line, "Kernel panic"); i >= 0 {
			return strings.TrimSpace(line[i:])
		}
	}
	return ""
}

// ansi matches the terminal escapes a console may hold.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// tailLines is the last n non-blank lines of text, printable.
func tailLines(text string, n int) []string {
	text = ansi.ReplaceAllString(text, "")
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r \t")
		// a progress bar redraws its line with carriage returns
		if i := strings.LastIndex(line, "\r"); i >= 0 {
			line = line[i+1:]
		}
		line = strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' {
				return -1
			}
			return r
		}, line)
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
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
