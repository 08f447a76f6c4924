package host

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Capabilities that loading and test-running an XDP program needs. Before
// Linux 5.8, CAP_SYS_ADMIN covers them all.
const (
	capNetAdmin = 12
	capSysAdmin = 21
	capBPF      = 39
)

// CheckPrivileges reports, as ErrPermission, which capabilities this
// process lacks to load and run XDP programs, and how to get them.
func CheckPrivileges() error {
	eff, err := effectiveCapabilities()
	if err != nil {
		return nil // unknown: let the kernel decide
	}
	has := func(c uint) bool { return eff&(1<<c) != 0 }
	if has(capSysAdmin) {
		return nil
	}
	var missing []string
	if !has(capBPF) {
		missing = append(missing, "CAP_BPF")
	}
	if !has(capNetAdmin) {
		missing = append(missing, "CAP_NET_ADMIN")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: missing %s: %s", ErrPermission, strings.Join(missing, " and "), PermissionHint)
}

func effectiveCapabilities() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if hex, ok := strings.CutPrefix(s.Text(), "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		}
	}
	return 0, fmt.Errorf("no CapEff in /proc/self/status")
}
