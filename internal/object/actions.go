package object

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/internal/btfvalue"
)

// The program types xdpmicro measures: all run on a packet through
// BPF_PROG_TEST_RUN with a repeat count.
var measurable = []ebpf.ProgramType{ebpf.XDP, ebpf.SchedCLS, ebpf.SocketFilter}

// SupportedTypes names the program types xdpmicro can measure.
var SupportedTypes = func() []string {
	var names []string
	for _, t := range measurable {
		names = append(names, t.String())
	}
	return names
}()

const tcActUnspec = "TC_ACT_UNSPEC"

// ActionName names a return code of a program of that type. A socket
// filter's return is the number of bytes to keep, so it stays a number,
// signed as the program returns it (-1: the whole packet).
func ActionName(programType ebpf.ProgramType, ret uint32) string {
	names := btfvalue.ActionNames[programType]
	switch {
	case int(ret) < len(names):
		return names[ret]
	case programType == ebpf.SchedCLS && int32(ret) == -1:
		return tcActUnspec
	case programType == ebpf.SocketFilter:
		return strconv.FormatInt(int64(int32(ret)), 10)
	}
	return strconv.FormatUint(uint64(ret), 10)
}

// ParseExpect turns an expected action, a name of the program type's
// actions or a number, into a return code.
func ParseExpect(programType ebpf.ProgramType, expect string) (uint32, error) {
	name := strings.ToUpper(strings.TrimSpace(expect))
	if i := slices.Index(btfvalue.ActionNames[programType], name); i >= 0 {
		return uint32(i), nil
	}
	if name == tcActUnspec && programType == ebpf.SchedCLS {
		return uint32(0xffffffff), nil
	}
	if n, err := strconv.ParseInt(name, 0, 64); err == nil && n >= -1 && n <= 0xffffffff {
		return uint32(n), nil
	}
	known := "a number"
	if names := btfvalue.ActionNames[programType]; len(names) > 0 {
		known = strings.Join(names, ", ") + " or a number"
	}
	return 0, fmt.Errorf("%w: expected action %q is not one of a %s program's: %s", ErrConfig, expect, programType, known)
}
