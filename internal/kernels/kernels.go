package kernels

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Host names the running kernel among --kernel's values.
const Host = "host"

// DefaultTimeout is what each kernel's command is given after its boot
// to finish: under emulation (TCG) a run is many times slower than here.
const DefaultTimeout = 10 * time.Minute

// Target is one kernel to run on.
type Target struct {
	// Name is as given: "host" or the image's path.
	Name string
	// Image is the kernel image; nil for the host.
	Image *Image
}

// IsHost says whether the target is the running kernel.
func (t Target) IsHost() bool { return t.Image == nil }

// Targets checks each value, before anything runs: "host", or a kernel
// image; and that QEMU is installed where an image is given.
func Targets(values []string) (targets []Target, qemu string, err error) {
	seen := map[string]bool{}
	for _, v := range values {
		if seen[v] {
			return nil, "", bad(fmt.Errorf("--kernel %s given twice", v))
		}
		seen[v] = true
		if v == Host {
			targets = append(targets, Target{Name: v})
			continue
		}
		img, err := CheckImage(v)
		if err != nil {
			return nil, "", err
		}
		targets = append(targets, Target{Name: v, Image: &img})
		if qemu == "" {
			if qemu, err = FindQEMU(); err != nil {
				return nil, "", err
			}
		}
	}
	return targets, qemu, nil
}

// Job is the command to run on each kernel.
type Job struct {
	// Binary is xdpmicro itself, run on the host and as the guest's /init.
	Binary string
	// Args are the command's, e.g. bench v4 --samples 10; HostArgs are
	// added on the host, GuestArgs in a VM.
	Args, HostArgs, GuestArgs []string
	// EmulatedArgs are added under TCG, for a short run.
	EmulatedArgs []string
	// Files are the inputs the command line names, as it names them:
	// each is put into the guest at its absolute path on the host.
	Files []string
	// Dir is the working directory, the host's, the guest's too.
	Dir string
	// QEMU is the emulator's path.
	QEMU string
	// Timeout bounds each kernel's command, its boot excluded:
	// DefaultTimeout unless a caller knows better.
	Timeout time.Duration
	// Progress, if not nil, gets a line as each kernel starts and ends.
	Progress io.Writer
}

// Outcome is what the command did on one kernel.
type Outcome struct {
	Target
	// Release is the kernel's, as uname -r gives it.
	Release string
	// Accel is "host", "kvm" or "tcg"; Fallback says why not KVM.
	Accel    string
	Fallback string
	// VCPUs and MemoryMiB are the VM's.
	VCPUs     int
	MemoryMiB int
	// Up is the boot, to the guest's /init; Wall the kernel's whole time.
	Up, Wall time.Duration
	// Exit, Stdout and Stderr are the command's.
	Exit   int
	Stdout []byte
	Stderr string
	// Err is why the command gave nothing: the kernel did not boot, hung,
	// panicked; nil where it ran, whatever its exit code.
	Err error
	// Console is the tail of the guest's console.
	Console []string
}

// Emulated says the times are TCG's.
func (o Outcome) Emulated() bool { return o.Accel == string(TCG) }

// The VM's resources. Under KVM, two vCPUs: xdpmicro in the guest pins
// its measuring thread to one, as on a host, while the guest's kernel
// keeps the other for its own work; under TCG, one, as emulated times
// mean nothing and one host core is enough. Memory: room for the
// kernel, the initramfs twice (packed and unpacked) and the command.
const (
	kvmVCPUs    = 2
	tcgVCPUs    = 1
	baseMemMiB  = 512
	kvmBootWait = 15 * time.Second // a working KVM reaches /init in a second or two
	tcgBootWait = 90 * time.Second // Debian's kernels take 5 to 10 s here
)

// Run runs the job on each target in turn. A kernel that fails is in its
// outcome, and the others still run; only ctx stops them all.
func Run(ctx context.Context, job Job, targets []Target) ([]Outcome, error) {
	var outcomes []Outcome
	var guest *guestFiles
	for _, t := range targets {
		if ctx.Err() != nil {
			break
		}
		if t.IsHost() {
			job.progress("%s: running on the host", Host)
			o := job.runHost(ctx)
			outcomes = append(outcomes, o)
			job.progress("%s", o.summary())
			continue
		}
		if guest == nil {
			g, err := job.prepare()
			if err != nil {
				return nil, err
			}
			defer g.remove()
			guest = g
			if !HasSandbox(job.QEMU) {
				job.progress("%s takes no -sandbox (built without seccomp): it runs without its system call filter", job.QEMU)
			}
		}
		o := job.runGuest(ctx, t, guest)
		outcomes = append(outcomes, o)
		job.progress("%s", o.summary())
	}
	return outcomes, ctx.Err()
}

func (job Job) progress(format string, args ...any) {
	if job.Progress != nil {
		fmt.Fprintf(job.Progress, "xdpmicro: "+format+"\n", args...)
	}
}

// label names the kernel in progress lines: its release, or as given
// where its image carries none.
func (o Outcome) label() string {
	if o.Release != "" {
		return o.Release
	}
	return o.Name
}

// summary is the progress line of a kernel done.
func (o Outcome) summary() string {
	name := o.label()
	switch {
	case o.Err != nil:
		return fmt.Sprintf("%s: %v", name, o.Err)
	case o.IsHost():
		return fmt.Sprintf("%s: done in %s (exit %d)", name, o.Wall.Round(100*time.Millisecond), o.Exit)
	}
	return fmt.Sprintf("%s: booted in %s under %s, done in %s (exit %d)", name, o.Up.Round(100*time.Millisecond),
		strings.ToUpper(o.Accel), o.Wall.Round(100*time.Millisecond), o.Exit)
}

// runHost runs the command as a child on the running kernel.
func (job Job) runHost(ctx context.Context) Outcome {
	o := Outcome{Target: Target{Name: Host}, Accel: Host}
	var uts syscall.Utsname
	if syscall.Uname(&uts) == nil {
		o.Release = utsString(uts.Release[:])
	}
	cmd := exec.CommandContext(ctx, job.Binary, append(slices.Clone(job.Args), job.HostArgs...)...)
	cmd.Dir = job.Dir
	// On a cancel the child stops as on a Ctrl-C, and its loads go with
	// it. Should xdpmicro die outright, the kernel sends the child the
	// same SIGTERM (Pdeathsig), rather than a SIGKILL: its loads and its
	// CPU lock would go with it either way, but a file it is writing is
	// finished (renamed or removed), not left half made beside its name.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Pdeathsig comes when the thread that started the child ends, not
	// only the process: this goroutine keeps its thread until the child
	// is gone, so that no other goroutine, locking it and ending, sends
	// it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	err := cmd.Run()
	o.Wall = time.Since(start)
	o.Stdout, o.Stderr = stdout.Bytes(), stderr.String()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		o.Exit = exit.ExitCode()
		if o.Exit < 0 {
			o.Err = fmt.Errorf("%s: %w", job.Binary, err)
		}
	case err != nil:
		o.Err = fmt.Errorf("%s: %w", job.Binary, err)
	}
	return o
}

func utsString(b []int8) string {
	var s []byte
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}

// guestFiles are the initramfs, shared by every kernel of a run: in
// memory (MemFile), in no directory, so that a run killed outright
// leaves nothing behind.
type guestFiles struct {
	initrd  *os.File
	size    int64
	cmdline []string
}

func (g *guestFiles) remove() { g.initrd.Close() }

// prepare writes the initramfs: xdpmicro as /init, the job, the inputs.
func (job Job) prepare() (*guestFiles, error) {
	fs := NewInitramfs()
	libDirs, err := fs.AddBinary(job.Binary, "/init")
	if err != nil {
		return nil, fmt.Errorf("the guest's /init: %w", err)
	}
	for _, f := range job.Files {
		abs := f
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(job.Dir, f)
		}
		if err := fs.AddFile(f, abs); err != nil {
			return nil, bad(err)
		}
	}
	spec, err := jsonBytes(GuestJob{Args: append(slices.Clone(job.Args), job.GuestArgs...), EmulatedArgs: job.EmulatedArgs, Dir: job.Dir})
	if err != nil {
		return nil, err
	}
	fs.Add(JobPath, spec, 0o644)
	fs.AddDir(job.Dir) // the working directory, though no input is in it
	initrd, err := fs.MemFile()
	if err != nil {
		return nil, fmt.Errorf("write the initramfs: %w", err)
	}
	g := &guestFiles{initrd: initrd, size: fs.Size()}
	if len(libDirs) > 0 {
		g.cmdline = []string{"LD_LIBRARY_PATH=" + strings.Join(libDirs, ":")}
	}
	return g, nil
}

// memoryMiB is the VM's memory: the base, and the initramfs twice, as
// the kernel holds it packed while it unpacks it.
func (g *guestFiles) memoryMiB() int {
	return baseMemMiB + int(2*g.size>>20)
}

// runGuest boots the kernel: with KVM where /dev/kvm opens, falling back
// to TCG where KVM cannot run it; else under TCG. On this project's
// machines /dev/kvm is a nested kvm-pvm: QEMU aborts at once with -cpu
// host ("failed to set MSR 0x10a"), and with other CPU models Debian's
// kernels stop in their decompressor ("KVM internal error").
func (job Job) runGuest(ctx context.Context, t Target, g *guestFiles) Outcome {
	o := Outcome{Target: t, Release: t.Image.Release(), MemoryMiB: g.memoryMiB()}
	kernel, err := t.Image.Load()
	if err != nil {
		o.Err = err
		return o
	}
	defer kernel.Close()
	m := Machine{QEMU: job.QEMU, Kernel: kernel, Initrd: g.initrd, MemoryMiB: o.MemoryMiB,
		Cmdline: g.cmdline, Run: job.Timeout}
	var out BootOutcome
	if ok, why := KVMUsable(); ok {
		job.progress("%s: booting with KVM, %d vCPUs, %d MiB", o.label(), kvmVCPUs, o.MemoryMiB)
		m.Accel, m.VCPUs, m.Boot = KVM, kvmVCPUs, kvmBootWait
		out = m.Start(ctx)
		if out.Err != nil && out.Up == 0 && ctx.Err() == nil {
			o.Fallback = "KVM " + strings.TrimPrefix(out.Err.Error(), ErrKVM.Error()+": ")
			if !errors.Is(out.Err, ErrKVM) {
				o.Fallback = "KVM " + out.Err.Error() // did not boot: QEMU: ...
			}
		}
	} else {
		o.Fallback = "there is no KVM: " + why
	}
	if o.Fallback != "" {
		job.progress("%s: booting under TCG (emulated: %s), %d vCPU, %d MiB", o.label(), o.Fallback, tcgVCPUs, o.MemoryMiB)
		m.Accel, m.VCPUs, m.Boot = TCG, tcgVCPUs, tcgBootWait
		out = m.Start(ctx)
	}
	o.Accel, o.VCPUs = string(m.Accel), m.VCPUs
	o.Up, o.Wall, o.Console, o.Err = out.Up, out.Wall, out.Console, out.Err
	if out.Result != nil {
		o.take(out.Result)
	}
	return o
}

// take is what the guest sent back (DecodeResult read it, bounded):
// the command's exit code and output, the kernel's release, and why the
// command could not run, if it could not.
func (o *Outcome) take(r *Result) {
	o.Exit, o.Stdout, o.Stderr = r.Exit, r.Stdout, r.Stderr
	if r.Release != "" {
		o.Release = r.Release
	}
	if r.Setup != "" {
		o.Err = fmt.Errorf("in the guest: %s", r.Setup)
	}
}
