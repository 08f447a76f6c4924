package kernels

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"slices"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/xdpmicro/xdpmicro/internal/safefs"
)

// QEMU boots kernels that may be anyone's, so it runs with as little as
// it can: as a user other than root, under its own seccomp filter, and
// handed the files it needs, open, rather than their names.

// SandboxArgs turn on QEMU's seccomp filter: no obsolete system calls,
// no set*uid (so no way back to root's ids, were it started with them),
// no fork or exec, no changing its own priority or CPUs.
var SandboxArgs = []string{"-sandbox", "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny"}

// HasSandbox says whether the QEMU at path takes -sandbox: a build
// without seccomp refuses the option while it reads its command line,
// before -version prints and exits. It asks each QEMU once.
func HasSandbox(qemu string) bool {
	if ok, asked := sandboxes.Load(qemu); asked {
		return ok.(bool)
	}
	probe := exec.Command(qemu, append(slices.Clone(SandboxArgs), "-version")...)
	probe.SysProcAttr = &syscall.SysProcAttr{Credential: credential(TCG)} // as the VMs run
	ok := probe.Run() == nil
	sandboxes.Store(qemu, ok)
	return ok
}

var sandboxes sync.Map // QEMU's path: whether it takes -sandbox

// nobody is the user QEMU runs as when root runs xdpmicro not through
// sudo: the kernel's overflow ids where the system names no nobody.
const nobody = 65534

// credential is who QEMU runs as, nil to leave it as xdpmicro runs: a
// process that is not root cannot change its ids, and needs no drop.
// Root runs it as the user sudo ran xdpmicro for (SUDO_UID, SUDO_GID,
// when set and not root), else as nobody; with no supplementary group
// but the one that may open /dev/kvm, for KVM.
func credential(accel Accel) *syscall.Credential {
	if os.Geteuid() != 0 {
		return nil
	}
	uid, gid := uint32(nobody), uint32(nobody)
	if u, err := user.Lookup("nobody"); err == nil {
		if n, err := strconv.ParseUint(u.Uid, 10, 32); err == nil && n != 0 {
			uid = uint32(n)
		}
		if n, err := strconv.ParseUint(u.Gid, 10, 32); err == nil && n != 0 {
			gid = uint32(n)
		}
	}
	if n, ok := envID("SUDO_UID"); ok {
		uid, gid = n, nobody
		if g, ok := envID("SUDO_GID"); ok {
			gid = g
		}
	}
	cred := &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}
	if accel == KVM {
		if g, ok := kvmGroup(); ok {
			cred.Groups = append(cred.Groups, g)
		}
	}
	return cred
}

// envID is a non-zero id from the environment.
func envID(name string) (uint32, bool) {
	n, err := strconv.ParseUint(os.Getenv(name), 10, 32)
	return uint32(n), err == nil && n != 0
}

// kvmGroup is the group /dev/kvm is open to for reading and writing
// (kvm, where udev's rules made it so); never root's group, which would
// give QEMU more than the one device.
func kvmGroup() (uint32, bool) {
	var st unix.Stat_t
	if unix.Stat("/dev/kvm", &st) != nil || st.Gid == 0 || st.Mode&0o060 != 0o060 {
		return 0, false
	}
	return st.Gid, true
}

// kvmOpenTo says whether the user cred names can open /dev/kvm to read
// and write, from its mode: root may open it where QEMU, run as another
// user, may not.
func kvmOpenTo(cred *syscall.Credential) (bool, string) {
	if cred == nil {
		return true, ""
	}
	var st unix.Stat_t
	if err := unix.Stat("/dev/kvm", &st); err != nil {
		return false, "/dev/kvm: " + err.Error()
	}
	switch {
	case st.Mode&0o006 == 0o006, st.Uid == cred.Uid && st.Mode&0o600 == 0o600:
		return true, ""
	case st.Mode&0o060 == 0o060 && (st.Gid == cred.Gid || containsID(cred.Groups, st.Gid)):
		return true, ""
	}
	return false, fmt.Sprintf("/dev/kvm (mode %#o, uid %d, gid %d) is not open to uid %d, whom QEMU runs as", st.Mode&0o777, st.Uid, st.Gid, cred.Uid)
}

func containsID(ids []uint32, id uint32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// MemFile is a file that lives in memory only (memfd_create), written
// by write and then sealed: QEMU reads it as /proc/self/fd/N, though it
// runs as another user, and cannot change it for the next boot. It has
// no name in any directory, so nothing is left behind when xdpmicro and
// QEMU end, however they end (SIGKILL too).
func MemFile(name string, write func(io.Writer) error) (*os.File, error) {
	fd, err := unix.MemfdCreate("xdpmicro-"+name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, os.NewSyscallError("memfd_create", err))
	}
	f := os.NewFile(uintptr(fd), "memfd:xdpmicro-"+name)
	if err := write(f); err != nil {
		f.Close()
		return nil, err // the writer's own words
	}
	seals := unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, os.NewSyscallError("seal", err))
	}
	return f, nil
}

// maxImage bounds a kernel image read into memory: Debian's are 8 to 12
// MB; an image as large as an input may be is no kernel.
const maxImage = 256 << 20

// Load reads the image into a MemFile, as every input is read: QEMU
// boots the very bytes that were checked, and needs no access to the
// image's directory.
func (img Image) Load() (*os.File, error) {
	return MemFile("vmlinuz", func(w io.Writer) error {
		f, err := safefs.Open(img.Path)
		if err != nil {
			return err
		}
		defer f.Close()
		n, err := io.Copy(w, io.LimitReader(f, maxImage+1))
		if err == nil && n > maxImage {
			err = errors.New("larger than 256 MiB: no kernel image")
		}
		if err != nil {
			return fmt.Errorf("--kernel %s: %w", img.Path, err)
		}
		return nil
	})
}
