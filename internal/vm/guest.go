package vm

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
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

// Job is the command the guest runs.
type Job struct {
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
	var job Job
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

// EncodeResult is the result's line.
func EncodeResult(res Result) (string, error) {
	data, err := json.Marshal(res)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(data)
	if err := zw.Close(); err != nil {
		return "", err
	}
	return ResultPrefix + base64.StdEncoding.EncodeToString(buf.Bytes()) + "\n", nil
}

// DecodeResult finds the result's line in what the port sent.
func DecodeResult(port []byte) (*Result, bool) {
	i := bytes.Index(port, []byte(ResultPrefix))
	if i < 0 {
		return nil, false
	}
	line, _, complete := strings.Cut(string(port[i+len(ResultPrefix):]), "\n")
	if !complete {
		return nil, false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimRight(line, "\r"))
	if err != nil {
		return nil, false
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(zr, 1<<30))
	if err != nil {
		return nil, false
	}
	var res Result
	if json.Unmarshal(data, &res) != nil {
		return nil, false
	}
	return &res, true
}
