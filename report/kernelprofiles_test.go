package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/results"
)

// kernelProfile is a one-case profile of one line whose machine code is
// code, as a kernel that ran it would give it.
func kernelProfile(release string, code ...string) results.KernelProfile {
	line := results.Line{File: "x.c", Number: 7, Text: "return XDP_PASS;"}
	var insns []results.MachineInsn
	for i, text := range code {
		insns = append(insns, results.MachineInsn{Offset: uint64(4 * i), Text: text})
	}
	p := &results.Profile{Object: "x.o", Program: "x", Type: "XDP", Machine: "x86-64",
		Source: []results.ProfileSource{{Line: line, BPF: 2, Code: insns}},
		Cases:  []results.ProfileCase{{Name: "tcp", Total: 2, Lines: []results.LineCount{{Line: line, Instructions: 2, Machine: uint64(len(code)), Exact: true}}}},
	}
	return results.KernelProfile{KernelRun: results.KernelRun{Kernel: release, Release: release, Accel: "tcg", Status: results.KernelMeasured},
		Profile: &results.ProfileReport{Profiles: []*results.Profile{p}}}
}

// Kernels whose code differs only where every load differs (a map's
// address) or where the code before moved (a jump's target) have the
// same code; an instruction more is a difference, named with each
// kernel's count; a kernel that refused is said to have not loaded.
func TestKernelsCodeDiffers(t *testing.T) {
	a := kernelProfile("6.1", "movabs $0xffff8881234a5000,%rdi", "jne 0x4c", "mov $0x2,%eax")
	b := kernelProfile("6.12", "movabs $0xffff88810bcd6000,%rdi", "jne 0x61", "mov $0x2,%eax")
	refused := results.KernelProfile{KernelRun: results.KernelRun{Kernel: "5.15", Status: results.KernelRefused, Error: "kfunc missing"}}
	render := func(kp results.KernelProfiles) string {
		var out bytes.Buffer
		if err := writeKernelProfiles(&out, kp, View{}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	out := render(results.KernelProfiles{Kernels: []results.KernelProfile{a, b, refused}})
	for _, want := range []string{"same machine code on every kernel", "2 BPF · 3", "not loaded", "kfunc missing"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	c := kernelProfile("6.18", "movabs $0xffff888100000000,%rdi", "jne 0x61", "xor %edx,%edx", "mov $0x2,%eax")
	if out := render(results.KernelProfiles{Kernels: []results.KernelProfile{a, c}}); !strings.Contains(out, "differs on 1 executed line:") || !strings.Contains(out, "3 · 4") {
		t.Errorf("an instruction more is not named:\n%s", out)
	}
}
