package kernels

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzDecodeResult: whatever a guest writes to its result port gives a
// result or the reason it is none, never a panic; a result's release and
// setup error are printable, one line each, and bounded. The seeds are
// lines the guest sends (a result, a setup failure), one with a tty's
// "\r\n", a line over MaxResult, and some that are no line at all.
func FuzzDecodeResult(f *testing.F) {
	for _, res := range []Result{
		{Release: "6.1.0-56-amd64", Exit: 0, Stdout: []byte(`{"schema": "xdpmicro.bench/v2"}`), Took: 7},
		{Release: "6.12.117+deb12-amd64", Exit: 1, Stderr: "xdpmicro: load: verifier\n  0: r0 = 0\n"},
		{Setup: "mount /proc: \x1b[31mno such device"},
	} {
		line, err := EncodeResult(res)
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(line))
		f.Add([]byte("noise\r\n" + strings.ReplaceAll(line, "\n", "\r\n")))
	}
	f.Add(bombLine(MaxResult + 1))
	for _, seed := range []string{"", ResultPrefix, ResultPrefix + "\n", ResultPrefix + "H4sIAAAAAAAA/w==\n", "xdpmicro-guest: up\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, port []byte) {
		res, err := DecodeResult(port)
		if err != nil {
			if res != nil {
				t.Fatalf("a result and an error (%v)", err)
			}
			return
		}
		for _, s := range []string{res.Release, res.Setup} {
			if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) >= 0 {
				t.Fatalf("not printable: %q", s)
			}
		}
		if len(res.Release) > maxRelease+32 || len(res.Setup) > MaxConsoleLine+32 || len(res.Stdout) > MaxResult {
			t.Fatalf("over its bound: release %d, setup %d, stdout %d bytes", len(res.Release), len(res.Setup), len(res.Stdout))
		}
	})
}
