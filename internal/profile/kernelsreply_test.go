package profile_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kernels"
	"github.com/xdpmicro/xdpmicro/internal/profile"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// A --kernel guest's profile reply of one profile and a diff made
// `profile --kernel … --jit` read a second profile that was not there,
// and panic. The reply passes a saved profile's checks first: it fails
// that kernel, in one line, and every view renders the rest.
func TestProfileKernelsChecksTheReply(t *testing.T) {
	const one = `{"object": "v4", "program": "fizzbuzz", "type": "XDP", "machine": "x86_64", "source": [], ` +
		`"cases": [{"name": "fizz", "instructions": 3, "lines": [], "functions": []}]}`
	const diff = `"diff": {"before": "v3", "after": "v4", "cases": [{"name": "fizz", "before": 3, "after": 2, "lines": [], "functions": []}]}`
	outcome := func(release, reply string) kernels.Outcome {
		return kernels.Outcome{Target: kernels.Target{Name: "vmlinuz-" + release}, Release: release, Accel: string(kernels.TCG), Stdout: []byte(reply)}
	}
	kp := profile.OfKernels([]kernels.Outcome{
		outcome("6.1.0-hostile", `{"profiles": [`+one+`], `+diff+`}`),
		outcome("6.12.0-good", `{"profiles": [`+one+`,`+one+`], `+diff+`}`),
		outcome("6.13.0-names", `{"profiles": [{"object": "o\n═══ on forged ═══", "program": "p", "source": [], "cases": [{"name": "a\nb", "instructions": 1, "lines": [], "functions": []}]}]}`),
	}, []string{"profile", "--jit"})
	hostile := kp.Kernels[0]
	if hostile.Profile != nil || hostile.Status != results.KernelFailed ||
		hostile.Error != "unreadable profile: profile's output: a difference of 1 profile(s): want the two builds it compares" {
		t.Errorf("a diff of one profile: status %s, profile %v, error %q", hostile.Status, hostile.Profile != nil, hostile.Error)
	}
	if good := kp.Kernels[1]; good.Profile == nil || good.Status != results.KernelMeasured {
		t.Errorf("a diff of two: status %s, error %q", good.Status, good.Error)
	}
	for _, v := range []report.View{{}, {Machine: true}, {Machine: true, SourceOrder: true}} {
		var out bytes.Buffer
		if err := (report.Output{Format: report.Text, View: v}).Write(&out, report.OfKernelProfiles(kp)); err != nil {
			t.Fatalf("%+v: %v", v, err)
		}
		if strings.Contains(out.String(), "\n═══ on forged") || strings.Contains(out.String(), "\nb ") {
			t.Errorf("%+v: a guest's name made a line of its own:\n%s", v, out.String())
		}
	}
}
