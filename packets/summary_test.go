package packets

import (
	"fmt"
	"strings"
	"testing"
)

func TestChanges(t *testing.T) {
	in := []byte{0, 1, 2, 3, 4, 5, 6, 7}
	for _, tc := range []struct {
		out  []byte
		want string
	}{
		{[]byte{0, 1, 2, 3, 4, 5, 6, 7}, ""},
		{[]byte{9, 1, 2, 3, 4, 5, 6, 7}, "bytes 0 differ"},
		{[]byte{0, 9, 9, 3, 4, 9, 6, 7}, "bytes 1–2, 5 differ"},
		{[]byte{0, 1, 2, 3}, "8 → 4 bytes"},
		{[]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "8 → 10 bytes"},
		{[]byte{1, 1, 3, 3, 5, 5, 7, 7, 8}, "8 → 9 bytes; bytes 0, 2, 4, 6 differ"},
		{[]byte{1, 2, 3, 4, 5, 6, 7, 8}, "bytes 0–7 differ"},
	} {
		if got := Changes(in, tc.out); got != tc.want {
			t.Errorf("Changes(%v, %v) = %q, want %q", in, tc.out, got, tc.want)
		}
	}
	long := make([]byte, 40)
	other := make([]byte, 40)
	for i := 0; i < 40; i += 2 {
		other[i] = 1
	}
	if got := Changes(long, other); !strings.Contains(got, "(20 ranges)") {
		t.Errorf("20 changed bytes apart: %q, want the count of ranges", got)
	}
}

func TestSummarize(t *testing.T) {
	c, err := Select([]string{Fizz})
	if err != nil {
		t.Fatal(err)
	}
	got := Summarize(c[0].Frame)
	if !strings.Contains(got, c[0].Source.String()) || !strings.HasSuffix(got, fmt.Sprintf(", %d bytes", len(c[0].Frame))) {
		t.Errorf("Summarize(fizz) = %q, want its source %s and its length", got, c[0].Source)
	}
	if got := Summarize([]byte{1, 2, 3}); !strings.Contains(got, "shorter than an Ethernet header") {
		t.Errorf("Summarize(3 bytes) = %q", got)
	}
}
