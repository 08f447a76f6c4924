package kerneltest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"
)

// ImagesVar names the directory of the kernel images the --kernel tests
// boot; DefaultImages is where .ci/kernels puts Debian's.
const (
	ImagesVar     = "XDPMICRO_KERNELS"
	DefaultImages = "/var/cache/xdpmicro-kernels"
)

// Images are the vmlinuz-6.1.* and vmlinuz-6.12.* images there, in that
// order, and QEMU's path; the test skips, saying why, without QEMU or
// either image.
func Images(t testing.TB) (older, newer, qemu string) {
	t.Helper()
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		t.Skip("no qemu-system-x86_64 (apt-get install qemu-system-x86)")
	}
	dir := os.Getenv(ImagesVar)
	if dir == "" {
		dir = DefaultImages
	}
	older, newer = newest(dir, `^vmlinuz-6\.1\.`), newest(dir, `^vmlinuz-6\.12\.`)
	if older == "" || newer == "" {
		t.Skipf("no vmlinuz-6.1.* and vmlinuz-6.12.* in %s ($%s): .ci/kernels fetches Debian's", dir, ImagesVar)
	}
	return older, newer, qemu
}

// newest is the last image in dir whose name matches, in version order.
func newest(dir, pattern string) string {
	entries, _ := os.ReadDir(dir)
	re := regexp.MustCompile(pattern)
	var names []string
	for _, e := range entries {
		if re.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Slice(names, func(i, j int) bool { return versionLess(names[i], names[j]) })
	return filepath.Join(dir, names[len(names)-1])
}

// digits are the runs of digits in a name.
var digits = regexp.MustCompile(`[0-9]+|[^0-9]+`)

// versionLess orders names by their numbers as numbers: 6.1.0-9 before
// 6.1.0-56.
func versionLess(a, b string) bool {
	pa, pb := digits.FindAllString(a, -1), digits.FindAllString(b, -1)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] == pb[i] {
			continue
		}
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		if ea == nil && eb == nil {
			return na < nb
		}
		return pa[i] < pb[i]
	}
	return len(pa) < len(pb)
}
