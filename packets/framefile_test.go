package packets

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// A written file reads back into the same cases: names, actions,
// contexts and frames, byte for byte, a frame cut inside its IPv4 header
// and one whose IP length lies among them.
func TestWriteFileRoundTrip(t *testing.T) {
	cases, err := Select([]string{Fizz, Short, NonIPv4, "tcp-syn"})
	if err != nil {
		t.Fatal(err)
	}
	lying := slices.Clone(cases[0].Frame)
	lying[17] = 0xff // the IPv4 total length, past the frame's end
	cases = append(cases, Case{Name: "lying", Summary: Summarize(lying), Frame: lying})
	cases[0].Expect = "XDP_PASS"
	ctx, err := ParseContext("mark=0x2a,cb[1]=7,ingress_ifindex=lo")
	if err != nil {
		t.Fatal(err)
	}
	cases[3].Context = ctx
	var buf bytes.Buffer
	if err := WriteFile(&buf, cases, "found by a test\nsecond line"); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.HasPrefix(text, "# found by a test\n# second line\ncases:\n") {
		t.Errorf("the file does not begin with its comment:\n%s", text)
	}
	back, err := ParseFile("written.yaml", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if len(back) != len(cases) {
		t.Fatalf("%d cases read back, want %d", len(back), len(cases))
	}
	for i, c := range cases {
		b := back[i]
		if b.Name != c.Name || b.Expect != c.Expect || !bytes.Equal(b.Frame, c.Frame) || b.Context.String() != c.Context.String() {
			t.Errorf("case %d read back as %s %q %q %x, want %s %q %q %x", i, b.Name, b.Expect, b.Context, b.Frame, c.Name, c.Expect, c.Context, c.Frame)
		}
		if b.Summary != Summarize(c.Frame) {
			t.Errorf("case %s: summary %q, want %q", c.Name, b.Summary, Summarize(c.Frame))
		}
	}
	if back[0].Source != cases[0].Source {
		t.Errorf("source %v, want %v", back[0].Source, cases[0].Source)
	}
}

// A whole frame is refused with layers beside it, and when it is no
// frame, naming the line and the field.
func TestFrameFieldErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"cases:\n  - name: a\n    frame: \"0200\"\n", "f.yaml:3: cases[0].frame: 2 bytes: a frame needs at least an Ethernet header"},
		{"cases:\n  - name: a\n    frame: \"020\"\n", "f.yaml:3: cases[0].frame: odd number of hex digits (3)"},
		{"cases:\n  - name: a\n    frame: \"zz\"\n", "f.yaml:3: cases[0].frame: not hex"},
		{"cases:\n  - name: a\n    frame: \"0200000000020200000000010800\"\n    udp: {src: 1, dst: 2}\n", "f.yaml:4: cases[0].udp: give the frame by layers or whole"},
	} {
		_, err := ParseFile("f.yaml", []byte(tc.yaml))
		if !errors.Is(err, ErrPacketFile) || err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s…", tc.yaml, err, tc.want)
		}
	}
}

// A name that a packet file would refuse is refused in writing.
func TestWriteFileRefusesBadNames(t *testing.T) {
	err := WriteFile(&bytes.Buffer{}, []Case{{Name: "Bad Name", Frame: make([]byte, 60)}}, "")
	if !errors.Is(err, ErrPacketFile) {
		t.Errorf("got %v, want ErrPacketFile", err)
	}
}
