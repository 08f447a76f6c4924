package host

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// atSecure is AT_SECURE, the auxiliary vector's entry by which the kernel
// tells a program that exec gave it privileges its caller lacked: file
// capabilities (setcap) or a set-user-ID bit.
const atSecure = 23

// HidesKernelAddresses says whether this process must not show kernel
// addresses: exec gave it privileges (file capabilities, as the install
// docs' setcap line gives them) and the user who ran it is not root.
// That user could not read kernel addresses (no CAP_SYSLOG for
// kptr_restrict, and no CAP_PERFMON of their own), yet with the
// binary's CAP_PERFMON the verifier lets a program store one in a map.
// Root, or a process that gained nothing at exec (its user holds the
// capabilities already, and could load such a program with any loader),
// is shown them.
var HidesKernelAddresses = sync.OnceValue(func() bool {
	return os.Getuid() != 0 && gainedAtExec()
})

// gainedAtExec says whether exec raised this process's privileges; where
// the auxiliary vector cannot be read, whether it holds any capability
// that its non-root user started it with none of, as far as
// /proc/self/status tells: when in doubt, hide.
func gainedAtExec() bool {
	auxv, err := unix.Auxv()
	if err == nil {
		for _, kv := range auxv {
			if kv[0] == atSecure {
				return kv[1] != 0
			}
		}
	}
	eff, err := effectiveCapabilities()
	return err != nil || eff != 0
}
