package object

import (
	"errors"
	"os"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/xdpmicro/xdpmicro/internal/kerneltest"
)

func TestPrograms(t *testing.T) {
	progs, err := kerneltest.ReadTestObject[Object](t, "multi.o").Programs()
	if err != nil {
		t.Fatal(err)
	}
	want := []ProgramInfo{
		{Name: "socket_all", Type: ebpf.SocketFilter, Section: "socket"},
		{Name: "tc_shot", Type: ebpf.SchedCLS, Section: "tc"},
		{Name: "trace_getpid", Type: ebpf.TracePoint, Section: "tracepoint/syscalls/sys_enter_getpid"},
		{Name: "xdp_drop", Type: ebpf.XDP, Section: "xdp", AttachType: ebpf.AttachXDP},
		{Name: "xdp_pass", Type: ebpf.XDP, Section: "xdp", AttachType: ebpf.AttachXDP},
	}
	if len(progs) != len(want) {
		t.Fatalf("got %v, want %v", progs, want)
	}
	for i := range want {
		if progs[i] != want[i] {
			t.Errorf("program %d: got %+v, want %+v", i, progs[i], want[i])
		}
	}
}

// Choosing a program needs no kernel: every refusal is decided from the ELF.
func TestChoose(t *testing.T) {
	self, err := os.Executable() // an ELF, but not a BPF object
	if err != nil {
		t.Fatal(err)
	}
	notBPF, err := ReadObject(self)
	if err != nil {
		t.Fatal(err)
	}
	multi, attach := kerneltest.ReadTestObject[Object](t, "multi.o"), kerneltest.ReadTestObject[Object](t, "attach.o")
	tests := []struct {
		name     string
		object   Object
		program  string
		plainXDP bool
		want     error
		chosen   string
	}{
		{"missing file", Object{}, "", false, ErrBadObject, ""},
		{"not ELF", Object{Name: "text", ELF: []byte("hello")}, "", false, ErrBadObject, ""},
		{"ELF for another machine", notBPF, "", false, ErrBadObject, ""},
		{"ambiguous", multi, "", false, ErrNoProgram, ""},
		{"unknown name", multi, "nope", false, ErrNoProgram, ""},
		{"unsupported type", multi, "trace_getpid", false, ErrUnsupportedType, ""},
		{"by name", multi, "xdp_drop", false, nil, "xdp_drop"},
		{"the only XDP program", kerneltest.ReadTestObject[Object](t, "reject.o"), "", false, nil, "unchecked_read"},
		// attach.o: spread, and three programs for a cpumap or a devmap.
		{"the only program not for a map", attach, "", false, nil, "spread"},
		{"for a cpumap", attach, "cpu_count", false, ErrNotTestRunnable, ""},
		{"for a devmap, xdp.frags", attach, "dev_filter", false, ErrNotTestRunnable, ""},
		{"for a cpumap, as plain XDP", attach, "cpu_count", true, nil, "cpu_count"},
		{"ambiguous with programs for maps as plain XDP", attach, "", true, ErrNoProgram, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "missing file" {
				_, err := ReadObject("no/such/file.o")
				if !errors.Is(err, ErrBadObject) {
					t.Fatalf("got %v, want %v", err, ErrBadObject)
				}
				return
			}
			spec, info, _, err := tt.object.choose(tt.program, Settings{plainXDP: tt.plainXDP})
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if err != nil {
				return
			}
			if info.Name != tt.chosen || len(spec.Programs) != 1 || spec.Programs[tt.chosen] == nil {
				t.Fatalf("chose %q with %d programs, want only %q", info.Name, len(spec.Programs), tt.chosen)
			}
		})
	}
}

func TestActions(t *testing.T) {
	for _, tt := range []struct {
		programType ebpf.ProgramType
		expect      string
		ret         uint32
		name        string
	}{
		{ebpf.XDP, "xdp_pass", 2, "XDP_PASS"},
		{ebpf.XDP, "XDP_ABORTED", 0, "XDP_ABORTED"},
		{ebpf.XDP, "7", 7, "7"},
		{ebpf.SchedCLS, "TC_ACT_SHOT", 2, "TC_ACT_SHOT"},
		{ebpf.SchedCLS, "TC_ACT_UNSPEC", 0xffffffff, "TC_ACT_UNSPEC"},
		{ebpf.SchedCLS, "-1", 0xffffffff, "TC_ACT_UNSPEC"},
		{ebpf.SocketFilter, "0x40", 64, "64"},
		{ebpf.SocketFilter, "-1", 0xffffffff, "-1"},
	} {
		ret, err := ParseExpect(tt.programType, tt.expect)
		if err != nil || ret != tt.ret {
			t.Errorf("ParseExpect(%s, %s) = %d, %v; want %d", tt.programType, tt.expect, ret, err, tt.ret)
		}
		if got := ActionName(tt.programType, ret); got != tt.name {
			t.Errorf("ActionName(%s, %d) = %s, want %s", tt.programType, ret, got, tt.name)
		}
	}
	for _, bad := range []struct {
		programType ebpf.ProgramType
		expect      string
	}{{ebpf.XDP, "TC_ACT_OK"}, {ebpf.SchedCLS, "XDP_PASS"}, {ebpf.SocketFilter, "drop"}, {ebpf.XDP, "-2"}} {
		if _, err := ParseExpect(bad.programType, bad.expect); !errors.Is(err, ErrConfig) {
			t.Errorf("ParseExpect(%s, %s): %v, want ErrConfig", bad.programType, bad.expect, err)
		}
	}
}
