package packets

import (
	"slices"
	"testing"
)

func TestMatchEffects(t *testing.T) {
	for _, tc := range []struct {
		want, got, missing, unexpected []string
	}{
		{want: []string{"flows: +1 entry"}, got: []string{"flows: +1 entry"}},
		{want: []string{"stamp: * ns"}, got: []string{"stamp: 1234 ns"}},
		{want: []string{"a*c*e"}, got: []string{"abcde"}},
		{want: []string{"a*c*e"}, got: []string{"abdx"}, missing: []string{"a*c*e"}, unexpected: []string{"abdx"}},
		// One effect answers one pattern: the second is missing.
		{want: []string{"push *", "push *"}, got: []string{"push 1"}, missing: []string{"push *"}},
		{want: nil, got: []string{"push 1"}, unexpected: []string{"push 1"}},
	} {
		missing, unexpected := MatchEffects(tc.want, tc.got)
		if !slices.Equal(missing, tc.missing) || !slices.Equal(unexpected, tc.unexpected) {
			t.Errorf("MatchEffects(%q, %q) = %q, %q; want %q, %q", tc.want, tc.got, missing, unexpected, tc.missing, tc.unexpected)
		}
	}
}
