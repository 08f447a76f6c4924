package profile_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/kernels"
	"github.com/xdpmicro/xdpmicro/internal/profile"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// FuzzProfileKernels: whatever a --kernel guest sends back as profile's
// JSON output, through ProfileKernels to every format of a profile
// across kernels, the view with each kernel's profile (--jit) too: that
// kernel's profile, or its failure with the reason in one printable
// line; never a panic. The seeds are real profile --format json outputs
// (one build with the JIT's code, a comparison of two, a program
// without branches), and a comparison cut to one profile: its diff made
// the renderer read a second one that was not there.
func FuzzProfileKernels(f *testing.F) {
	paths, err := filepath.Glob("testdata/profile-*.json")
	if err != nil || len(paths) < 3 {
		f.Fatalf("%d profiles to seed with: %v", len(paths), err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		var rep results.ProfileReport
		if err := json.Unmarshal(data, &rep); err != nil {
			f.Fatal(err)
		}
		if rep.Diff != nil {
			rep.Profiles = rep.Profiles[:1]
			one, err := json.Marshal(rep)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(one)
		}
	}
	for _, seed := range []string{`{}`, `{"profiles": []}`, `{"profiles": [null]}`, `{"profiles": [{}], "diff": {}}`, `null`, `[]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stdout []byte) {
		o := kernels.Outcome{Target: kernels.Target{Name: "vmlinuz-fuzz"}, Release: "6.1.0-fuzz", Accel: string(kernels.TCG), Stdout: stdout}
		kp := profile.OfKernels([]kernels.Outcome{o}, []string{"profile"})
		if len(kp.Kernels) != 1 {
			t.Fatalf("%d kernels from one outcome", len(kp.Kernels))
		}
		k := kp.Kernels[0]
		switch {
		case k.Profile != nil:
			if k.Status != results.KernelMeasured || len(k.Profile.Profiles) == 0 {
				t.Fatalf("status %s with a profile of %d programs", k.Status, len(k.Profile.Profiles))
			}
		case k.Status == results.KernelFailed:
			if k.Error == "" || strings.ContainsAny(k.Error, "\n\r\x1b\x07\u009b") {
				t.Fatalf("failed, its reason not one printable line: %q", k.Error)
			}
		default:
			t.Fatalf("status %s, and no profile", k.Status)
		}
		for _, format := range report.KindKernelProfiles.Formats() {
			for _, view := range []report.View{{}, {Machine: true, SourceOrder: true}} {
				var out bytes.Buffer
				if err := (report.Output{Format: report.Format(format), View: view}).Write(&out, report.OfKernelProfiles(kp)); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				if report.Format(format) == report.Text && strings.ContainsAny(out.String(), "\x1b\x07\u009b") {
					t.Fatalf("the text holds a control character: %q", out.String())
				}
			}
		}
	})
}
