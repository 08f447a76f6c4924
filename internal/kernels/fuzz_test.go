package kernels

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/results"
)

// FuzzGuestReports: whatever a guest sends back as its command's output,
// error and exit code, through the result line (encoded as the guest
// does, read as the host does), the outcome and the reports across
// kernels, to the table, JSON and BMF: a kernel that measured, with
// reports that pass the saved-result checks, or one that did not, with
// its reason in one printable line; never a panic. The seeds in
// testdata are real bench --format json outputs, flat and compared.
func FuzzGuestReports(f *testing.F) {
	for _, name := range []string{"flat.json", "compare.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "", 0)
		f.Add([]byte("["+strings.TrimSpace(string(data))+","+strings.TrimSpace(string(data))+"]"), "", 0)
	}
	for _, seed := range []string{`{}`, `[]`, `[{}]`, `null`, `{"schema": "` + results.Schema + `", "programs": [{"cases": []}]}`} {
		f.Add([]byte(seed), "", 0)
	}
	f.Add([]byte(""), "xdpmicro: load xdp_prog: verifier: invalid access\n  0: (61) r2 = *(u32 *)(r1 +4)\n\x1b[31m\x1b]0;x\x07", 1)
	f.Add([]byte(""), "", -1)
	f.Fuzz(func(t *testing.T, stdout []byte, stderr string, exit int) {
		line, err := EncodeResult(Result{Release: "6.1.0-fuzz", Exit: exit, Stdout: stdout, Stderr: stderr})
		if err != nil {
			t.Fatal(err)
		}
		res, err := DecodeResult([]byte(line))
		if err != nil {
			t.Fatalf("the guest's line does not read back: %v", err)
		}
		o := Outcome{Target: Target{Name: "vmlinuz", Image: &Image{Path: "vmlinuz"}}, Accel: string(TCG)}
		o.take(res)
		runs := Reports([]Outcome{o}, []string{"bench"})
		if len(runs.Kernels) != 1 {
			t.Fatalf("%d kernels from one outcome", len(runs.Kernels))
		}
		k := runs.Kernels[0]
		switch k.Status {
		case results.KernelMeasured:
			if len(k.Reports) == 0 {
				t.Fatal("measured, with no report")
			}
			for i := range k.Reports {
				data, err := json.Marshal(&k.Reports[i])
				if err != nil {
					t.Fatal(err)
				}
				if _, err := results.Parse("saved", data); err != nil {
					t.Fatalf("a report taken from a guest reads back as %v", err)
				}
			}
		case results.KernelRefused, results.KernelFailed:
			if k.Error == "" || strings.ContainsAny(k.Error, "\n\r\x1b") || len(k.Error) > maxLine+32 {
				t.Fatalf("%s, its reason not one printable line: %q", k.Status, k.Error)
			}
			for _, l := range k.Log {
				if strings.ContainsAny(l, "\n\r\x1b") || len(l) > maxLine+32 {
					t.Fatalf("a log line not printable: %q", l)
				}
			}
		default:
			t.Fatalf("status %q", k.Status)
		}
		for _, format := range []report.Format{report.Table, report.JSON, report.BMF} {
			for _, view := range []report.View{{}, {Wide: true, Verbose: true}} {
				var buf bytes.Buffer
				if err := report.WriteKernels(&buf, runs, format, view); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
			}
		}
	})
}
