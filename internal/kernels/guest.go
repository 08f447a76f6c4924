package kernels

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// The guest's protocol: the host puts the job at JobPath; the guest
// says UpLine on its console as soon as it runs, and writes one
// ResultPrefix line to the second serial port, its Result gzipped and in
// base64 (a tty may turn "\n" into "\r\n"; base64 has neither).
const (
	JobPath      = "/xdpmicro-job.json"
	UpLine       = "xdpmicro-guest: up"
	ResultPrefix = "xdpmicro-guest-result "
	// AccelVar tells the guest's /init its accelerator: the kernel hands
	// a key=value of its command line that it does not know to /init as
	// an environment variable.
	AccelVar = "XDPMICRO_ACCEL"
	// resultPort is the second serial port: the first is the console,
	// where the kernel writes too.
	resultPort = "/dev/ttyS1"
)

// GuestJob is the command the guest runs.
type GuestJob struct {
	Args []string `json:"args"`
	// EmulatedArgs are added to Args under TCG, where the command's time
	// means nothing and a shorter run serves as well.
	EmulatedArgs []string `json:"emulated_args,omitempty"`
	// Dir is the working directory, the host's: relative paths on the
	// command line name the same files there.
	Dir string `json:"dir"`
}

// Result is what the command did in the guest.
type Result struct {
	Release string `json:"release"` // uname -r
	Exit    int    `json:"exit"`
	Stdout  []byte `json:"stdout"`
	Stderr  string `json:"stderr"`
	// Setup is what failed before the command could run, if anything.
	Setup string `json:"setup,omitempty"`
	// Took is the command's own time, boot excluded.
	Took time.Duration `json:"took_ns"`
}

// IsGuest says whether this process is the guest's /init, booted by
// Machine.Run: process 1, with a job.
func IsGuest() bool {
	if os.Getpid() != 1 {
		return false
	}
	_, err := os.Stat(JobPath)
	return err == nil
}

// Guest is main for the guest's /init: it mounts what the command needs,
// runs it, sends the result to the host and powers off. It returns only
// if the power-off fails; the kernel then panics, as init exited, and
// QEMU (-no-reboot) exits all the same.
//
// It runs twice: first to mount /proc and the rest, then again, exec'd
// in the same process 1, for the command. Packages read /proc in their
// init functions, before main: cilium/ebpf's rlimit reads mountinfo.
func Guest(run func(args []string, stdout, stderr io.Writer) int) int {
	var res Result
	if os.Getenv(mountedVar) == "" {
		console := setupConsole()
		fmt.Fprintln(console, UpLine)
		err := mountAll()
		if err == nil {
			err = unix.Exec("/proc/self/exe", os.Args, append(os.Environ(), mountedVar+"=1"))
		}
		res.Setup = err.Error()
	} else {
		res = runJob(os.Stderr, run)
	}
	if err := sendResult(res); err != nil {
		fmt.Fprintf(os.Stderr, "xdpmicro-guest: %v\n", err)
	}
	unix.Sync()
	_ = unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	return 1
}

// mountedVar tells the exec'd /init that the file systems are mounted.
const mountedVar = "XDPMICRO_GUEST_MOUNTED"

// setupConsole mounts devtmpfs, for the serial ports and /dev/null, and
// makes the console the standard files: the kernel found no
// /dev/console to open in the initramfs.
func setupConsole() io.Writer {
	_ = unix.Mount("devtmpfs", "/dev", "devtmpfs", 0, "")
	f, err := os.OpenFile("/dev/console", os.O_RDWR, 0)
	if err != nil {
		return io.Discard
	}
	for fd := 0; fd < 3; fd++ {
		_ = unix.Dup3(int(f.Fd()), fd, 0)
	}
	return f
}

// mounts are the file systems xdpmicro reads: /proc (CPUs, load,
// mountinfo), /sys (CPU lists, the kernel's BTF), bpffs (where a loader
// would pin), tracefs where the kernel has it.
var mounts = []struct{ source, target, fstype string }{
	{"proc", "/proc", "proc"},
	{"sysfs", "/sys", "sysfs"},
	{"bpf", "/sys/fs/bpf", "bpf"},
	{"tracefs", "/sys/kernel/tracing", "tracefs"},
}

func mountAll() error {
	for _, m := range mounts {
		if err := unix.Mount(m.source, m.target, m.fstype, 0, ""); err != nil && m.fstype != "tracefs" {
			return fmt.Errorf("mount %s: %w", m.target, err)
		}
	}
	return nil
}

func runJob(console io.Writer, run func(args []string, stdout, stderr io.Writer) int) Result {
	var res Result
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		res.Release = unix.ByteSliceToString(uts.Release[:])
	}
	data, err := os.ReadFile(JobPath)
	var job GuestJob
	if err == nil {
		err = json.Unmarshal(data, &job)
	}
	if err == nil && job.Dir != "" {
		err = os.Chdir(job.Dir)
	}
	if err != nil {
		res.Setup = fmt.Sprintf("job: %v", err)
		return res
	}
	if os.Getenv(AccelVar) == string(TCG) {
		job.Args = append(job.Args, job.EmulatedArgs...)
	}
	os.Setenv("HOME", "/root")
	os.Setenv("PATH", "/")
	var stdout, stderr bytes.Buffer
	start := time.Now()
	res.Exit = run(job.Args, &stdout, io.MultiWriter(console, &stderr))
	res.Took = time.Since(start)
	res.Stdout, res.Stderr = stdout.Bytes(), stderr.String()
	return res
}

// sendResult writes the result line to the second serial port and waits
// until the port has sent it.
func sendResult(res Result) error {
	line, err := EncodeResult(res)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(resultPort, os.O_WRONLY|unix.O_NOCTTY, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", resultPort, err)
	}
	defer f.Close()
	if _, err := io.WriteString(f, line); err != nil {
		return fmt.Errorf("write %s: %w", resultPort, err)
	}
	// tcdrain: the power-off must not cut the line short.
	return unix.IoctlSetInt(int(f.Fd()), unix.TCSBRK, 1)
}

// MaxResult bounds what a guest sends back, both its result line on the
// port and the JSON that line decompresses to: 16 MiB. A default bench
// of the bundled v4 is 0.75 MB of JSON (75 KB gzipped); a profile,
// 31 KB. A guest that sends more fails, rather than taking the host's
// memory: a gzipped line of 1.4 MB can hold 1 GiB of JSON.
const MaxResult = 16 << 20

// maxRelease bounds a kernel's release: uname's field is 65 bytes.
const maxRelease = 64

// EncodeResult is the result's line. A result over MaxResult is sent as
// a setup failure that says so: the host would refuse it.
func EncodeResult(res Result) (string, error) {
	data, err := json.Marshal(res)
	if err != nil {
		return "", err
	}
	if len(data) > MaxResult {
		over := Result{Release: res.Release, Took: res.Took, Exit: res.Exit,
			Setup: fmt.Sprintf("the command's output is %d MiB, over the %d MiB a guest may send back", len(data)>>20, MaxResult>>20)}
		if data, err = json.Marshal(over); err != nil {
			return "", err
		}
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(data)
	if err := zw.Close(); err != nil {
		return "", err
	}
	return ResultPrefix + base64.StdEncoding.EncodeToString(buf.Bytes()) + "\n", nil
}

// errNoResultLine is a port that holds no result line at all: the guest
// never sent one, as where it did not boot or panicked.
var errNoResultLine = errors.New("no result line")

// DecodeResult finds the result's line in what the port sent and reads
// it, bounded: the line and the JSON it holds at most MaxResult each.
// Where no line begins it returns errNoResultLine; else why the line is
// no result.
func DecodeResult(port []byte) (*Result, error) {
	i := bytes.Index(port, []byte(ResultPrefix))
	if i < 0 {
		return nil, errNoResultLine
	}
	line := port[i+len(ResultPrefix):]
	end := bytes.IndexByte(line, '\n')
	switch {
	case end < 0 && len(line) >= MaxResult:
		return nil, fmt.Errorf("the line is over %d MiB", MaxResult>>20)
	case end < 0:
		return nil, fmt.Errorf("the line is cut short after %d bytes", len(line))
	case end > MaxResult+1:
		return nil, fmt.Errorf("the line is over %d MiB", MaxResult>>20)
	}
	line = bytes.TrimRight(line[:end], "\r")
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(line)))
	n, err := base64.StdEncoding.Decode(raw, line)
	if err != nil {
		return nil, fmt.Errorf("not base64: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw[:n]))
	if err != nil {
		return nil, fmt.Errorf("not gzip: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, MaxResult+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("not gzip: %w", err)
	case len(data) > MaxResult:
		return nil, fmt.Errorf("over %d MiB once decompressed", MaxResult>>20)
	}
	var res Result
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("not a result: %w", err)
	}
	// These are shown as they are, in one line each.
	res.Release = Printable(res.Release, maxRelease)
	res.Setup = Printable(res.Setup, MaxConsoleLine)
	return &res, nil
}
