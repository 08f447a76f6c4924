package packets

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// writeFrames writes files into a new directory and returns it.
func writeFrames(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func builtinFrame(t *testing.T, name string) Case {
	t.Helper()
	cases, err := Select([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	return cases[0]
}

func caseNames(cases []Case) []string {
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
	}
	return names
}

// A built-in case's frame written to a file reads back as the same frame,
// named after the file, summarized by decoding, expecting nothing.
func TestRawFrameReadsBack(t *testing.T) {
	for _, name := range []string{Fizz, Short, NonIPv4, ARP, VLANUDP} {
		want := builtinFrame(t, name)
		dir := writeFrames(t, map[string][]byte{"frame-" + name + ".bin": want.Frame})
		got, err := ReadFiles([]string{filepath.Join(dir, "frame-"+name+".bin")})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != 1 {
			t.Fatalf("%s: %d cases", name, len(got))
		}
		c := got[0]
		if c.Name != "frame-"+name || string(c.Frame) != string(want.Frame) || c.Expect != "" || c.Context != nil {
			t.Errorf("%s: read back as %+v", name, c)
		}
		if c.Summary != Summarize(want.Frame) || c.Source != want.Source {
			t.Errorf("%s: summary %q, source %v; want %q, %v", name, c.Summary, c.Source, Summarize(want.Frame), want.Source)
		}
	}
}

// Several files keep their order; a glob is expanded, sorted; .raw and no
// extension are frames too.
func TestRawFramesSeveralAndGlob(t *testing.T) {
	fizz, none, short := builtinFrame(t, Fizz).Frame, builtinFrame(t, None).Frame, builtinFrame(t, Short).Frame
	dir := writeFrames(t, map[string][]byte{
		"b.bin": fizz, "a.bin": none, "c.raw": short, "d": fizz, "sub/e.bin": none,
		"[x].bin": short, // a file name with glob characters is taken as it is
	})
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{at("b.bin"), at("a.bin"), at("c.raw"), at("d")}, []string{"b", "a", "c", "d"}},
		{[]string{at("*.bin")}, []string{"[x]", "a", "b"}},
		{[]string{at("[ab].bin"), at("c.*")}, []string{"a", "b", "c"}},
		{[]string{at("*/*.bin"), at("d")}, []string{"e", "d"}},
		{[]string{at("[x].bin")}, []string{"[x]"}},
	} {
		got, err := ReadFiles(tc.args)
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if !slices.Equal(caseNames(got), tc.want) {
			t.Errorf("%v: cases %v, want %v", tc.args, caseNames(got), tc.want)
		}
	}
}

// Bad input: each wraps ErrPacketFile and says what is wrong in one line.
func TestRawFramesBadInput(t *testing.T) {
	fizz := builtinFrame(t, Fizz).Frame
	dir := writeFrames(t, map[string][]byte{
		"one/fizz.bin": fizz, "two/fizz.raw": fizz,
		"empty.bin": nil, "empty": nil, "tiny.bin": fizz[:13],
		"capture.pcap": fizz, "capture": {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		"notes": []byte("a frame of text, named as no frame\n"),
	})
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{at("one/fizz.bin"), at("two/fizz.raw")}, `both name case "fizz"`},
		{[]string{at("*/fizz.*")}, `both name case "fizz"`},
		{[]string{at("one/fizz.bin"), at("one/fizz.bin")}, `both name case "fizz"`},
		{[]string{at("empty.bin")}, "empty file"},
		{[]string{at("empty")}, "empty file"},
		{[]string{at("tiny.bin")}, "13 bytes: a raw frame needs at least an Ethernet header (14 bytes)"},
		{[]string{at("*.nothing")}, "matches no file"},
		{[]string{at("[.bin")}, "not a glob"},
		{[]string{at("missing.bin")}, "no such file"},
		{[]string{at("capture.pcap")}, "give it to --pcap"},
		{[]string{at("capture")}, "give it to --pcap"},
		{[]string{at("notes")}, "a raw frame of text needs a .bin or .raw name"},
	} {
		_, err := ReadFiles(tc.args)
		if !errors.Is(err, ErrPacketFile) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error %v, want one line with %q", tc.args, err, tc.want)
		}
	}
}

// Case files read as before, with or without their extension, next to
// raw frames; their errors are unchanged.
func TestCaseFilesAmongFrames(t *testing.T) {
	example, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReadFile("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFrames(t, map[string][]byte{
		"cases.yaml": example, "cases": example, "cases.txt": example,
		"frame.bin": builtinFrame(t, Fizz).Frame,
		"bad.yaml":  []byte("cases:\n  - name: x\n    ipv4: {src: 192.0.2.300, dst: 198.51.100.1}\n"),
		"bad":       []byte("cases:\n  - name: x\n    ipv4: {src: 192.0.2.300, dst: 198.51.100.1}\n"),
	})
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, name := range []string{"cases.yaml", "cases", "cases.txt"} {
		got, err := ReadFiles([]string{at(name)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read differently from ReadFile", name)
		}
	}
	got, err := ReadFiles([]string{at("frame.bin"), at("cases.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1+len(want) || got[0].Name != "frame" || got[1].Name != want[0].Name {
		t.Errorf("a frame and a case file: %v", caseNames(got))
	}
	for _, name := range []string{"bad.yaml", "bad"} {
		_, err := ReadFiles([]string{at(name)})
		if msg := at(name) + `:3: cases[0].ipv4.src: "192.0.2.300" is not an IPv4 address`; err == nil || err.Error() != msg {
			t.Errorf("%s: error %v, want %s", name, err, msg)
		}
	}
}

// The rule that tells a case file from a raw frame.
func TestIsCaseFile(t *testing.T) {
	fizz := builtinFrame(t, Fizz).Frame
	text := []byte("cases:\n  - name: x\n")
	// A frame that is valid UTF-8 all through, but holds zeros.
	utf8Frame := []byte("\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00E\x00é")
	for _, tc := range []struct {
		path string
		data []byte
		want bool
	}{
		{"cases.yaml", text, true},
		{"cases.YML", text, true},
		{"cases.json", []byte(`{"cases": []}`), true},
		{"cases", text, true},
		{"cases.txt", []byte("\ufeff# comment\r\ncases:\r\n\t- name: x\r\n"), true},
		{"cases.bin", text, false},           // the name says frame
		{"frame.yaml", fizz, true},           // the name says case file: its error will tell
		{"frame", fizz, false},               // binary
		{"frame.dat", utf8Frame, false},      // UTF-8, with control characters
		{"frame", []byte("\xc3\x28"), false}, // not UTF-8
		{"frame.RAW", fizz, false},
		{"empty", nil, true}, // empty is text: "empty file" either way
	} {
		if got := IsCaseFile(tc.path, tc.data); got != tc.want {
			t.Errorf("IsCaseFile(%s, %q) = %v, want %v", tc.path, tc.data, got, tc.want)
		}
	}
}

func TestBeginsWithCases(t *testing.T) {
	for s, want := range map[string]bool{
		"cases:\n":                          true,
		"---\n# c\n\ncases :\n":             true,
		"%YAML 1.2\n---\ncases: []":         true,
		"{\"cases\": []}":                   true,
		"{\n  \"cases\"\n  : []}":           false, // a key split from its colon: not worth reading
		"{\n  'cases': []}":                 true,
		"casesx: 1":                         false,
		"name: x\ncases: []":                false,
		"hello":                             false,
		"":                                  false,
		"  - cases:":                        false,
		"\ufeffcases: []":                   true,
		"# cases: in a comment\nfoo: bar\n": false,
	} {
		if got := beginsWithCases([]byte(s)); got != want {
			t.Errorf("beginsWithCases(%q) = %v, want %v", s, got, want)
		}
	}
}

// Raw frames expect nothing but --expect.
func TestAssembleRawFrames(t *testing.T) {
	dir := writeFrames(t, map[string][]byte{"fizz.bin": builtinFrame(t, Fizz).Frame})
	for expect, want := range map[string]string{"": "", "xdp_drop": "XDP_DROP"} {
		got, err := Assemble(Selection{Files: []string{filepath.Join(dir, "*.bin")}, BundledExpect: true, Expect: expect})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Name != "fizz" || got[0].Expect != want {
			t.Errorf("--expect %q: %+v", expect, got)
		}
	}
	// Named as a built-in case also selected: given twice.
	_, err := Assemble(Selection{Builtin: true, Names: []string{Fizz}, Files: []string{filepath.Join(dir, "fizz.bin")}})
	if !errors.Is(err, ErrDuplicateCase) {
		t.Errorf("a frame named as a built-in case: %v", err)
	}
}
