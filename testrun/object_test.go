package testrun

import (
	"errors"
	"os"
	"testing"
)

func readTestObject(t testing.TB, name string) Object {
	t.Helper()
	obj, err := ReadObject("../bpf/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func TestPrograms(t *testing.T) {
	progs, err := readTestObject(t, "multi.o").Programs()
	if err != nil {
		t.Fatal(err)
	}
	want := []ProgramInfo{
		{Name: "socket_all", Type: "SocketFilter", Section: "socket"},
		{Name: "tc_shot", Type: "SchedCLS", Section: "tc"},
		{Name: "trace_getpid", Type: "TracePoint", Section: "tracepoint/syscalls/sys_enter_getpid"},
		{Name: "xdp_drop", Type: "XDP", Section: "xdp"},
		{Name: "xdp_pass", Type: "XDP", Section: "xdp"},
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
	multi := readTestObject(t, "multi.o")
	tests := []struct {
		name    string
		object  Object
		program string
		want    error
		chosen  string
	}{
		{"missing file", Object{}, "", ErrBadObject, ""},
		{"not ELF", Object{Name: "text", ELF: []byte("hello")}, "", ErrBadObject, ""},
		{"ELF for another machine", notBPF, "", ErrBadObject, ""},
		{"ambiguous", multi, "", ErrNoProgram, ""},
		{"unknown name", multi, "nope", ErrNoProgram, ""},
		{"unsupported type", multi, "trace_getpid", ErrUnsupportedType, ""},
		{"by name", multi, "xdp_drop", nil, "xdp_drop"},
		{"the only XDP program", readTestObject(t, "reject.o"), "", nil, "unchecked_read"},
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
			spec, info, _, err := tt.object.choose(tt.program, 0)
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
		programType, expect string
		ret                 uint32
		name                string
	}{
		{"XDP", "xdp_pass", 2, "XDP_PASS"},
		{"XDP", "XDP_ABORTED", 0, "XDP_ABORTED"},
		{"XDP", "7", 7, "7"},
		{"SchedCLS", "TC_ACT_SHOT", 2, "TC_ACT_SHOT"},
		{"SchedCLS", "TC_ACT_UNSPEC", 0xffffffff, "TC_ACT_UNSPEC"},
		{"SchedCLS", "-1", 0xffffffff, "TC_ACT_UNSPEC"},
		{"SocketFilter", "0x40", 64, "64"},
		{"SocketFilter", "-1", 0xffffffff, "-1"},
	} {
		ret, err := ParseExpect(tt.programType, tt.expect)
		if err != nil || ret != tt.ret {
			t.Errorf("ParseExpect(%s, %s) = %d, %v; want %d", tt.programType, tt.expect, ret, err, tt.ret)
		}
		if got := ActionName(tt.programType, ret); got != tt.name {
			t.Errorf("ActionName(%s, %d) = %s, want %s", tt.programType, ret, got, tt.name)
		}
	}
	for _, bad := range [][2]string{{"XDP", "TC_ACT_OK"}, {"SchedCLS", "XDP_PASS"}, {"SocketFilter", "drop"}, {"XDP", "-2"}} {
		if _, err := ParseExpect(bad[0], bad[1]); !errors.Is(err, ErrConfig) {
			t.Errorf("ParseExpect(%s, %s): %v, want ErrConfig", bad[0], bad[1], err)
		}
	}
}
