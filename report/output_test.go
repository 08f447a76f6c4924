package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
	"github.com/xdpmicro/xdpmicro/packets"
)

// Every kind has formats, one of them for people at most, and a name the
// registry does not hold for it is bad input naming the kind's formats.
func TestRegistry(t *testing.T) {
	kinds := map[Kind]bool{}
	for _, r := range registry {
		kinds[r.kind] = true
	}
	for k := range kinds {
		formats := k.Formats()
		if len(formats) == 0 {
			t.Errorf("%s: no format", k)
		}
		seen := map[string]bool{}
		people := 0
		for _, r := range registry {
			if r.kind != k {
				continue
			}
			if seen[string(r.format)] {
				t.Errorf("%s: %s twice", k, r.format)
			}
			seen[string(r.format)] = true
			if r.forPeople {
				people++
			}
			if f, err := k.Parse(string(r.format)); err != nil || f != r.format {
				t.Errorf("%s: Parse(%s) = %q, %v", k, r.format, f, err)
			}
		}
		if people > 1 {
			t.Errorf("%s: %d formats to fall back to, want at most one", k, people)
		}
		_, err := k.Parse("no-such-format")
		if !errors.Is(err, ErrFormat) || !errors.Is(err, badinput.Err) || !strings.Contains(err.Error(), formats[len(formats)-1]) {
			t.Errorf("%s: Parse of an unknown format: %v", k, err)
		}
	}
	if got := KindRun.Help(); !strings.HasPrefix(got, "table, bmf (for Bencher), json (everything, for compare), gobench (for benchstat)") {
		t.Errorf("a run's formats in help: %q", got)
	}
	if !slices.Equal(Formats(), KindRun.Formats()) {
		t.Errorf("Formats() = %v, want a run's: %v", Formats(), KindRun.Formats())
	}
	_, err := KindKernels.Parse("gobench")
	if err == nil || !strings.Contains(err.Error(), "a run across kernels is written as table, json, bmf or markdown") {
		t.Errorf("gobench across kernels: %v", err)
	}
}

// A listing goes to standard output as text: a name from a file cannot
// command the terminal; in a file it is as it was.
func TestOutputEscapesTextOnStdout(t *testing.T) {
	listing := CaseListing{Cases: []packets.Case{{Name: "evil\x1b]0;title\a", Summary: "udp", Frame: make([]byte, 60), Expect: "XDP_PASS"}}}
	var stdout bytes.Buffer
	if err := (Output{Format: Table}).Write(&stdout, OfCases(listing)); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(stdout.String(), "\x1b\a") || !strings.Contains(stdout.String(), `evil\x1b]0;title\x07`) {
		t.Errorf("the listing on standard output holds the escape as it is:\n%q", stdout.String())
	}
	path := filepath.Join(t.TempDir(), "cases.pcap")
	if err := (Output{Format: Pcap, Path: path}).Write(&stdout, OfPcap(listing)); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || len(data) < 60 {
		t.Errorf("pcap: %d bytes, %v", len(data), err)
	}
}

// A kind is written only in its own formats, and a file that cannot be
// written falls back to nothing where no format is for people.
func TestOutputRefusesAnotherKindsFormat(t *testing.T) {
	var stdout bytes.Buffer
	err := (Output{Format: GoBench}).Write(&stdout, OfCases(CaseListing{}))
	if !errors.Is(err, ErrFormat) || stdout.Len() > 0 {
		t.Errorf("the cases as gobench: %v, %q", err, stdout.String())
	}
	listing := CaseListing{Cases: []packets.Case{{Name: "fizz", Frame: make([]byte, 60)}}}
	err = (Output{Format: Pcap, Path: filepath.Join(t.TempDir(), "no", "dir.pcap")}).Write(&stdout, OfPcap(listing))
	if err == nil || stdout.Len() > 0 {
		t.Errorf("a pcap into a missing directory: %v, and on standard output %q", err, stdout.String())
	}
}

// Notes and warnings are said once: under a table on standard output, or
// on stderr.
func TestNotesOnStderr(t *testing.T) {
	for _, tc := range []struct {
		out  Output
		want bool
	}{
		{Output{Format: Table}, false},
		{Output{Format: Table, Path: "run.txt"}, true},
		{Output{Format: JSON}, true},
		{Output{Format: BMF, Path: "bmf.json"}, true},
	} {
		if got := tc.out.NotesOnStderr(); got != tc.want {
			t.Errorf("%+v: NotesOnStderr %v, want %v", tc.out, got, tc.want)
		}
	}
}
